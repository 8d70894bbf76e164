#!/usr/bin/env bash
# The probe's overhead with the issue's own protocol (mode none, 300 steps x 3, medians of 3; C++ batch
# 16, pinned to CPUs 2-5) and no GPU records, the default since run 43: each run's rounds, pooled by the
# code they ran (runs 46-47 at 305bdaa, two VMs; runs 49 and 52 at 4902c72, one VM; runs 54 and 55 at
# 32ebdca, one VM) and pooled over the four VMs,
# each round's probed process against its round's unprobed one. From the repository root; writes bench/results/overhead-issue-protocol-cpp16.txt.
set -euo pipefail
t() { echo "bench/results/gpu-run$1-raw/ov/overhead.tsv"; }
F=SYNCLINT_PROBE_DEBUG=1+SYNCLINT_PROBE_GPU_RECORDS=model D=SYNCLINT_PROBE_DEBUG=1
python3 bench/gpu/overhead_phases.py \
  --rounds "runs 43 and 45 (dladdr1 captures)=$F (cpp 16)@$(t 43)" --rounds "runs 43 and 45 (dladdr1 captures)=$F@$(t 45)" \
  --rounds "runs 46 and 47 (_dl_find_object captures)=$D@$(t 46)" --rounds "runs 46 and 47 (_dl_find_object captures)=$D@$(t 47)" \
  --rounds "runs 49 and 52 (symbolizer kept, resolver thread)=$D@$(t 49)" --rounds "runs 49 and 52 (symbolizer kept, resolver thread)=$D@$(t 52)" \
  --rounds "runs 46, 47, 49 and 52 (three VMs)=$D@$(t 46)" --rounds "runs 46, 47, 49 and 52 (three VMs)=$D@$(t 47)" \
  --rounds "runs 46, 47, 49 and 52 (three VMs)=$D@$(t 49)" --rounds "runs 46, 47, 49 and 52 (three VMs)=$D@$(t 52)" \
  --rounds "runs 54 and 55 (GPU model: the last kernels take a sync's wait)=$D@$(t 54)" \
  --rounds "runs 54 and 55 (GPU model: the last kernels take a sync's wait)=$D@$(t 55)" \
  --rounds "runs 46-55 (four VMs)=$D@$(t 46)" --rounds "runs 46-55 (four VMs)=$D@$(t 47)" \
  --rounds "runs 46-55 (four VMs)=$D@$(t 49)" --rounds "runs 46-55 (four VMs)=$D@$(t 52)" \
  --rounds "runs 46-55 (four VMs)=$D@$(t 54)" --rounds "runs 46-55 (four VMs)=$D@$(t 55)" \
  >bench/results/overhead-issue-protocol-cpp16.txt
cat bench/results/overhead-issue-protocol-cpp16.txt
