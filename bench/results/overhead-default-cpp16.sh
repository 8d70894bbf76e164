#!/usr/bin/env bash
# The probe's overhead with the protocol (mode none, 300 steps x 3, medians of 3; C++ batch 16,
# pinned to CPUs 2-5), each round's probed process against its round's unprobed one, pooled over every run
# of each setting:
#  - the default, GPU records in the first stretch switched off on the program's thread: runs 62 and 65
#    (one VM, by name: SYNCLINT_PROBE_GPU_RECORDS=first SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH=1) and run 67
#    (a fresh start of the device, as the defaults);
#  - `model` (no GPU records), with a stretch's end switched off at the program's next launch: runs 59-60
#    (SYNCLINT_PROBE_SWITCH_AT_LAUNCH=1), 62 and 65 (the defaults then) and 67 (by name).
# Each run alone is in its gpu-runNN-raw/ov/phases.txt. From the repository root; writes
# bench/results/overhead-default-cpp16.txt.
set -euo pipefail
t() { echo "bench/results/gpu-run$1-raw/ov/overhead.tsv"; }
D=SYNCLINT_PROBE_DEBUG=1
F=$D+SYNCLINT_PROBE_GPU_RECORDS=first+SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH=1
M=$D+SYNCLINT_PROBE_GPU_RECORDS=model
A=$D+SYNCLINT_PROBE_SWITCH_AT_LAUNCH=1
first="runs 62, 65 and 67, the default (records in the first stretch)"
model="runs 59, 60, 62, 65 and 67, model (no records)"
python3 bench/gpu/overhead_phases.py \
  --rounds "$first=$F@$(t 62)" --rounds "$first=$F@$(t 65)" --rounds "$first=$D@$(t 67)" \
  --rounds "$model=$A@$(t 59)" --rounds "$model=$A@$(t 60)" --rounds "$model=$D@$(t 62)" \
  --rounds "$model=$D@$(t 65)" --rounds "$model=$M@$(t 67)" \
  >bench/results/overhead-default-cpp16.txt
cat bench/results/overhead-default-cpp16.txt
