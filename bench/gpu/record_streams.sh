#!/usr/bin/env bash
# Fully traced recordings of the all-modes CNN benchmark (SYNCLINT_PROBE_RECORD=1: every launch and GPU
# record, with the launch keys and stream handles the GPU model reads), for bench/model_check here: how
# well the model, learning from the first stretch only, stands in for the GPU records of a real process.
# On a GPU machine, from the repository root (after bench/gpu/prepare_carry.sh here):
#
#   usage: [PLAN="cpp:16 cpp:128 py:16"] [STEPS=30] [REPS=2] [MAX=150000] bench/gpu/record_streams.sh
#
# Short processes (STEPS=30 REPS=2 WARMUP=20 by default); MAX caps each recording's host calls (150000).
# C++ reads are timed by the LibTorch shim unless TORCH_OPS=0. Output: $OUT/recordings.tar.gz (LANG-BATCH/:
# stream-PID.json, report-PID.json, the benchmark's JSON and the probe's log); OUT defaults to
# bench/out/recordings (git-ignored).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
OUT="${OUT:-$root/bench/out/recordings}"
W="${RECORD_WORKDIR:-/tmp/synclint-gpu-recordings}"
PLAN="${PLAN:-cpp:16 cpp:128 py:16}" STEPS="${STEPS:-30}" REPS="${REPS:-2}" WARMUP="${WARMUP:-20}" MAX="${MAX:-150000}"
mkdir -p "$OUT" "$W"
rm -rf "${W:?}"/*

source bench/gpu/build_gpu.sh
build_gpu "$W" || { echo "record_streams: synclint build failed" >&2; tail -20 "$W/build-synclint.log" >&2; exit 1; }
lib="$root/build-gpu/runtime_probe/inject/libsynclint_probe.so"
for item in $PLAN; do
  lang=${item%%:*} batch=${item#*:}
  d="$W/$lang-$batch"
  mkdir -p "$d"
  envs=(CUDA_INJECTION64_PATH="$lib" SYNCLINT_PROBE_RECORD=1 SYNCLINT_PROBE_RECORD_MAX="$MAX" SYNCLINT_PROBE_DIR="$d"
        SYNCLINT_PROBE_DEBUG=1)
  if [[ $lang == py ]]; then
    cmd=(python3 bench/gpu/cnn_bench.py)
  else
    [[ -n $train_cpp ]] || { echo "record_streams: no train_cpp" >&2; continue; }
    cmd=("$train_cpp")
    [[ ${TORCH_OPS:-1} != 0 && -n $torch_ops ]] && envs+=(SYNCLINT_PROBE_TORCH_OPS="$torch_ops")
  fi
  t0=$SECONDS
  env "${envs[@]}" timeout 200 "${cmd[@]}" --mode all --batch "$batch" --steps "$STEPS" --reps "$REPS" \
    --warmup "$WARMUP" --json "$d/bench.json" >"$d/log.txt" 2>&1
  echo "record_streams: $lang-$batch exit $?, $((SECONDS - t0)) s, $(du -sh "$d" | cut -f1)" >&2
done
tar -czf "$OUT/recordings.tar.gz" -C "$W" .
ls -la "$OUT" >&2
