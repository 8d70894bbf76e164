#!/usr/bin/env bash
# The probe's overhead with the protocol (mode none, 300 steps x 3, medians of 3; C++ batch 16,
# pinned to CPUs 2-5), each round's probed process against its round's unprobed one:
#  - runs 62 and 65 (one VM, kept warm between them): the default (a stretch's end switched off at the
#    return of the program's next launch, GPU records never on) and GPU records in the first stretch,
#    switched off on the program's thread with its launch callbacks (SYNCLINT_PROBE_GPU_RECORDS=first
#    SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH=1), interleaved;
#  - the default over both VMs it ran on: runs 59-60 (where it was still opt-in, as
#    SYNCLINT_PROBE_SWITCH_AT_LAUNCH=1) and runs 62 and 65.
# From the repository root; writes bench/results/overhead-records-off-at-switch-cpp16.txt.
set -euo pipefail
t() { echo "bench/results/gpu-run$1-raw/ov/overhead.tsv"; }
D=SYNCLINT_PROBE_DEBUG=1
F=$D+SYNCLINT_PROBE_GPU_RECORDS=first+SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH=1
A=$D+SYNCLINT_PROBE_SWITCH_AT_LAUNCH=1
python3 bench/gpu/overhead_phases.py \
  --rounds "runs 62 and 65, the default=$D@$(t 62)" \
  --rounds "runs 62 and 65, the default=$D@$(t 65)" \
  --rounds "runs 62 and 65, records in the first stretch, off on the program's thread=$F@$(t 62)" \
  --rounds "runs 62 and 65, records in the first stretch, off on the program's thread=$F@$(t 65)" \
  --rounds "runs 59, 60, 62 and 65, the default, two VMs=$A@$(t 59)" \
  --rounds "runs 59, 60, 62 and 65, the default, two VMs=$A@$(t 60)" \
  --rounds "runs 59, 60, 62 and 65, the default, two VMs=$D@$(t 62)" \
  --rounds "runs 59, 60, 62 and 65, the default, two VMs=$D@$(t 65)" \
  >bench/results/overhead-records-off-at-switch-cpp16.txt
cat bench/results/overhead-records-off-at-switch-cpp16.txt
