#!/usr/bin/env bash
# Many probed LibTorch processes at once, for a failure too rare to catch one process at a time: on the
# H200, C++ all-modes processes under SYNCLINT_PROBE_GPU_RECORDS=first (the GPU model learned from the
# first stretch's records, the default from 2026-12-02 00:00 to 05:00) recorded no sync at all after some
# traced stretch (2 of 17 one at a time; 4 of 33 with this script, runs 32-33: docs/probe.md, "The fixed
# model on the H200"; runs 34-35 compared fixes side by side with PROBE_ENVS, below: "Switching at the
# program's sync"). Timings under PARALLEL processes sharing the GPU mean nothing here;
# only whether each process's report holds every read it made. On a GPU machine, from the repository root
# (after bench/gpu/prepare_carry.sh here):
#
#   PARALLEL=4 PLAN="cpp:16 cpp:128" TIME_BUDGET_S=180 PROBE_ENV="SYNCLINT_PROBE_GPU_RECORDS=first" \
#     bash bench/gpu/stress_model.sh
#
# Each process runs `synclint probe -o ... [--torch-ops SHIM] -- train_cpp --mode all --batch B --steps
# STEPS --reps REPS --warmup WARMUP` with PROBE_ENV and SYNCLINT_PROBE_DEBUG=1; each of the PARALLEL slots
# cycles through PLAN until TIME_BUDGET_S is spent. To compare settings under the same load, PROBE_ENVS
# lists several, separated by '|': slot S runs the ((S-1) mod N)-th, e.g.
#
#   PARALLEL=6 PLAN="cpp:128" PROBE_ENVS="A=1|A=1 B=1|A=1 C=1" bash bench/gpu/stress_model.sh
#
# Output: $OUT/stress.tar.gz (each process's log and report) and $OUT/stress-summary.txt: per process, its
# setting, the norms reads its report counted against the 22 x (WARMUP + STEPS x REPS) it made, and the
# probe's debug lines on its sync-path callbacks; then per setting, how many processes ended normally with
# fewer reads in the report than made.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
OUT="${OUT:-$root/bench/results/local-stress}"
W="${STRESS_WORKDIR:-/tmp/synclint-gpu-stress}"
PLAN="${PLAN:-cpp:16 cpp:128}" PARALLEL="${PARALLEL:-4}"
STEPS="${STEPS:-100}" REPS="${REPS:-6}" WARMUP="${WARMUP:-50}"
deadline=$((SECONDS + ${TIME_BUDGET_S:-180}))
mkdir -p "$OUT" "$W"
rm -rf "${W:?}"/*

source bench/gpu/build_gpu.sh
build_gpu "$W" || { echo "synclint build FAILED"; tail -20 "$W/build-synclint.log"; exit 1; }
[[ -n $train_cpp ]] || { echo "train_cpp build FAILED"; tail -20 "$W/build-train_cpp.log"; exit 1; }
torch_ops_args cpp
probe_settings

slot() {
  local s=$1 k=0 item batch d left e=$((($1 - 1) % ${#settings[@]})) probe_env
  read -ra probe_env <<<"${settings[$e]}"
  while :; do
    for item in $PLAN; do
      left=$((deadline - SECONDS))
      ((left > 30)) || return 0
      batch=${item#*:} k=$((k + 1))
      d="$W/s$s-$k-b$batch"
      mkdir -p "$d"
      echo "${settings[$e]}" >"$d/setting.txt"
      env "${probe_env[@]}" SYNCLINT_PROBE_DEBUG=1 timeout $((left - 5)) "$synclint" probe -o "$d/report.json" "${shim[@]}" -- \
        "$train_cpp" --mode all --batch "$batch" --steps "$STEPS" --reps "$REPS" --warmup "$WARMUP" \
        --json "$d/bench.json" >"$d/log.txt" 2>&1
      echo "$?" >"$d/rc.txt"
    done
  done
}

for ((s = 1; s <= PARALLEL; s++)); do slot "$s" & done
wait

python3 bench/gpu/stress_summary.py "$W" "$((22 * (WARMUP + STEPS * REPS)))" >"$W/stress-summary.txt"
tar -czf "$OUT/stress.tar.gz" -C "$W" . 2>/dev/null
cp "$W/stress-summary.txt" "$OUT/"
tail -"$((${#settings[@]} + 1))" "$W/stress-summary.txt"
