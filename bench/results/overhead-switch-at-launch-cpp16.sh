#!/usr/bin/env bash
# The probe's overhead with the protocol (mode none, 300 steps x 3, medians of 3; C++ batch 16,
# pinned to CPUs 2-5) when a stretch's end is switched off at the return of the program's next launch
# (SYNCLINT_PROBE_SWITCH_AT_LAUNCH, the default since 2026-12-04), pooled over runs 59 and 60 (one VM, kept
# warm between them), and the window thread's switch-off (the earlier default) in the same run 59,
# interleaved; each round's probed process against its round's unprobed one. From the repository root;
# writes bench/results/overhead-switch-at-launch-cpp16.txt.
set -euo pipefail
t() { echo "bench/results/gpu-run$1-raw/ov/overhead.tsv"; }
A=SYNCLINT_PROBE_DEBUG=1+SYNCLINT_PROBE_SWITCH_AT_LAUNCH=1 D=SYNCLINT_PROBE_DEBUG=1
python3 bench/gpu/overhead_phases.py \
  --rounds "runs 59 and 60 (switched off at a launch's return)=$A@$(t 59)" \
  --rounds "runs 59 and 60 (switched off at a launch's return)=$A@$(t 60)" \
  --rounds "run 59 (switched off by the window thread)=$D@$(t 59)" \
  >bench/results/overhead-switch-at-launch-cpp16.txt
cat bench/results/overhead-switch-at-launch-cpp16.txt
