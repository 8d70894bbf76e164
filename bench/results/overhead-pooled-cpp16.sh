#!/usr/bin/env bash
# The pooled C++ batch-16 overhead table of docs/probe.md ("The model as the default", runs 37-39; "No
# records at all on the GPU", runs 40-42; "The issue's protocol, both settings", runs 43-45): every overhead
# run of 100 steps x 40 with logs kept, records in every stretch against the GPU model (records in the
# first stretch only, the default since run 37) and against no records at all. From the repository root; writes bench/results/overhead-pooled-cpp16.txt.
set -euo pipefail
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
# pick RUN FILE: the run's FILE, at the top of its folder or under ov/
pick() { local d=bench/results/gpu-run$1-raw; if [[ -e $d/$2 ]]; then echo "$d/$2"; else echo "$d/ov/$2"; fi; }
for r in 22 23 24 27 36 38 39 40 42 44; do
  mkdir -p "$w/$r" && tar xzf "$(pick $r runs.tar.gz)" -C "$w/$r"
done
t() { pick "$1" overhead.tsv; }
D=SYNCLINT_PROBE_DEBUG=1 M=SYNCLINT_PROBE_DEBUG=1+SYNCLINT_PROBE_GPU_RECORDS=first
F=SYNCLINT_PROBE_DEBUG=1+SYNCLINT_PROBE_GPU_RECORDS=model
python3 bench/gpu/overhead_phases.py \
  --pool "records=$D@$(t 22):$w/22/runs" --pool "records=$D@$(t 23):$w/23/runs" --pool "records=$D@$(t 24):$w/24/runs" \
  --pool "records=$D (cpp 16)@$(t 27):$w/27/runs" --pool "model=$M (cpp 16)@$(t 27):$w/27/runs" \
  --pool "model=$M+SYNCLINT_PROBE_SWITCH_AT_SYNC=1 (cpp 16)@$(t 36):$w/36/runs" \
  --pool "model=$M (cpp 16)@$(t 38):$w/38/runs" --pool "model=$M@$(t 39):$w/39/runs" \
  --pool "model=$D@$(t 40):$w/40/runs" --pool "model=$D@$(t 42):$w/42/runs" --pool "model=$D@$(t 44):$w/44/runs" \
  --pool "no records=$F@$(t 40):$w/40/runs" --pool "no records=$F@$(t 42):$w/42/runs" \
  --pool "no records=$F@$(t 44):$w/44/runs" >bench/results/overhead-pooled-cpp16.txt
cat bench/results/overhead-pooled-cpp16.txt
