#!/usr/bin/env bash
# The estimates at batch 128 (C++ and Python, all modes) against the unprobed twins, pooled over three starts
# of the device: runs 63 and 64 (one VM, kept warm between them), run 66 and run 69 (C++ only, the default
# only). The default, GPU records in the first stretch switched off on the program's thread, ran by name in
# runs 63-64 (SYNCLINT_PROBE_GPU_RECORDS=first SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH=1) and as the defaults
# in runs 66 and 69 (an empty setting.txt); `model` (no GPU records) the other way round in runs 63-66.
# This script names each setting in a temporary copy so that one validate.py call pools each; both
# settings are compared with the unprobed twins of all four runs. From the repository root; writes
# bench/results/accuracy-default-b128.txt.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
first="SYNCLINT_PROBE_GPU_RECORDS=first SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH=1"
for r in 63 64 66 69; do
  mkdir -p "$tmp/r$r"
  tar xzf "bench/results/gpu-run$r-raw/rp/repeats.tar.gz" -C "$tmp/r$r"
done
model="SYNCLINT_PROBE_GPU_RECORDS=model"
# Name each probed process's setting where it ran as the defaults: `model` in runs 63-64, the first stretch's
# records in run 66. Probed processes only: an unprobed twin's folder has no setting.txt.
label_defaults() {
  local rep
  for rep in "$tmp/r$1"/rep-*/; do
    if [[ -f $rep/setting.txt && -z $(tr -d '[:space:]' <"$rep/setting.txt") ]]; then echo "$2" >"$rep/setting.txt"; fi
  done
}
label_defaults 63 "$model"
label_defaults 64 "$model"
label_defaults 66 "$first"
label_defaults 69 "$first"
{
  for setting in "$first" "$model"; do
    echo "# runs 63, 64, 66 and 69 pooled, setting: '${setting}'"
    python3 bench/gpu/validate.py --repeats --setting "$setting" "$tmp/r63" "$tmp/r64" "$tmp/r66" "$tmp/r69" | sed "s#$tmp/##g"
    echo
  done
} >bench/results/accuracy-default-b128.txt
grep -A9 "^### Without the probe" bench/results/accuracy-default-b128.txt
