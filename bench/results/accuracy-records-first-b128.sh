#!/usr/bin/env bash
# The estimates at batch 128 (C++ and Python, all modes) against the unprobed twins, runs 63 and 64 pooled
# (one VM, kept warm between them): without any GPU records (`model`, the default until 2026-12-04) and with
# records in the first stretch, switched off on the program's thread (SYNCLINT_PROBE_GPU_RECORDS=first
# SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH=1, the default since). From the repository root; writes
# bench/results/accuracy-records-first-b128.txt.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in 63 64; do
  mkdir -p "$tmp/r$r"
  tar xzf "bench/results/gpu-run$r-raw/rp/repeats.tar.gz" -C "$tmp/r$r"
done
{
  for setting in "" "SYNCLINT_PROBE_GPU_RECORDS=first SYNCLINT_PROBE_RECORDS_OFF_AT_SWITCH=1"; do
    echo "# runs 63 and 64 pooled, setting: '${setting}'"
    python3 bench/gpu/validate.py --repeats --setting "$setting" "$tmp/r63" "$tmp/r64" | sed "s#$tmp/##g"
    echo
  done
} >bench/results/accuracy-records-first-b128.txt
grep -A9 "^### Without the probe" bench/results/accuracy-records-first-b128.txt
