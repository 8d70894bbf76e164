#!/usr/bin/env bash
# Regenerates bench/results/model-check/records-free.txt: bench/model_check on run 29's recordings
# (gpu-run29-raw/recordings.tar.xz) and on those of runtime_probe/testdata, with every GPU record dropped
# ("0": as SYNCLINT_PROBE_GPU_RECORDS=model, the default, runs) beside the records ending where the probe's
# first stretch would have ended ("settle": SYNCLINT_PROBE_GPU_RECORDS=first), then run 29's three with the
# probe's 2 s windows; then run 8's Python batch-128 norms recording (gpu-run8-raw/recorded/stream-1964.json,
# 14 steps) without records, and where the GPU idles between its reads, recorded and modelled
# (bench/gpu/interval_idle.py), and the same for run 29's C++ 128 loss reads; then run 54's batch-128
# recordings (gpu-run54-raw/rec/recordings.tar.xz, 2026-12-02, with each launch's grid), and where the GPU
# idles between the Python loss reads, and both sampled in 1 s stretches and modelled stretch by stretch
# (build/bench/sampling_check --model). From the repository root, after building (build/bench/model_check,
# build/bench/sampling_check).
set -euo pipefail
out=bench/results/model-check/records-free.txt
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
tar xJf bench/results/gpu-run29-raw/recordings.tar.xz -C "$w"
run29=(cpp-16/stream-1041.json cpp-128/stream-1058.json py-16/stream-1079.json)
{
  echo "# build/bench/model_check STREAM 0 settle ($(date -u +%F), bench/results/model-check/records-free.sh): each recording's GPU records dropped from its first host call on (\"0%\": no records at all, every duration fitted to the syncs alone, as SYNCLINT_PROBE_GPU_RECORDS=model, the default, runs), beside the records ending where the probe's first stretch would have ended (\"settle\", as SYNCLINT_PROBE_GPU_RECORDS=first runs); run 29's recordings from bench/results/gpu-run29-raw/recordings.tar.xz, the others from runtime_probe/testdata"
  for f in "${run29[@]}"; do
    echo "== gpu-run29-raw recordings.tar.xz: $f"
    build/bench/model_check "$w/$(find "$w" -path "*/$f" -printf '%P\n' | head -1)" 0 settle
  done
  for f in runtime_probe/testdata/*.stream.json; do
    echo "== $f"
    build/bench/model_check "$f" 0
  done
  for f in "${run29[@]}"; do
    echo "== --window-ms 2000: ${f%%/*}"
    build/bench/model_check --window-ms 2000 "$w/$(find "$w" -path "*/$f" -printf '%P\n' | head -1)" 0
  done
  py128=bench/results/gpu-run8-raw/recorded/stream-1964.json
  echo "== $py128 (Python 128, norms)"
  build/bench/model_check --dump "$w/py128-modelled.json" "$py128" 0
  python3 bench/gpu/interval_idle.py "$py128" "$w/py128-modelled.json" --site cnn_bench.py:82
  cpp128="$w/$(find "$w" -path "*/${run29[1]}" -printf '%P\n' | head -1)"
  echo "== gpu-run29-raw recordings.tar.xz: ${run29[1]}, between the loss reads"
  build/bench/model_check --dump "$w/cpp128-modelled.json" "$cpp128" 0 >/dev/null
  python3 bench/gpu/interval_idle.py "$cpp128" "$w/cpp128-modelled.json" --site train_cpp.cpp:125
  mkdir -p "$w/run54"
  tar xJf bench/results/gpu-run54-raw/rec/recordings.tar.xz -C "$w/run54"
  for l in cpp-128 py-128; do
    echo "== gpu-run54-raw rec/recordings.tar.xz: $l"
    build/bench/model_check "$(ls "$w/run54/$l"/stream-*.json)" 0 settle
  done
  py54="$(ls "$w/run54/py-128"/stream-*.json)"
  echo "== gpu-run54-raw rec/recordings.tar.xz: py-128, between the loss reads"
  build/bench/model_check --dump "$w/py54-modelled.json" "$py54" 0 >/dev/null
  python3 bench/gpu/interval_idle.py "$py54" "$w/py54-modelled.json" --site cnn_bench.py:87
  # the same two, sampled as the probe samples them (1 s stretches: alone, and a first one with a later
  # one) and modelled stretch by stretch, against the whole recording's estimates
  echo "== gpu-run54-raw rec/recordings.tar.xz: cpp-128, sampled and modelled (sampling_check --model)"
  build/bench/sampling_check --model "$(ls "$w/run54/cpp-128"/stream-*.json)" 1000 0 1000 2000 0+2000
  echo "== gpu-run54-raw rec/recordings.tar.xz: py-128 (its steps from 6.5 s on), sampled and modelled"
  build/bench/sampling_check --model "$py54" 1000 6000 7000 8000 6000+8000
} >"$out"
cat "$out"
