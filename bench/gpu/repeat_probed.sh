#!/usr/bin/env bash
# Repeated probed all-modes processes of the CNN benchmark, each with an unprobed twin: the accuracy protocol
# of docs/validation.md (the estimates against the savings measured without the probe, process by process),
# and whether a setting fails now and then. On a GPU machine, from the repository root (after
# bench/gpu/prepare_carry.sh here):
#
#   usage: [PLAN="cpp:128 py:128"] [UNPROBED=1] [STEPS=300] [REPS=3] [TIME_BUDGET_S=480] [PROBE_ENVS="|VAR=value"]
#          bench/gpu/repeat_probed.sh
#
# Cycles through PLAN (LANG:BATCH ...) up to CYCLES times or until TIME_BUDGET_S is spent; STEPS, REPS and
# WARMUP go to the benchmark (many short repetitions, e.g. STEPS=100 REPS=15, pair the modes closer in time).
# With UNPROBED=1 each probed process has an unprobed twin (LANG-unprobed-all-BATCH, run first in odd cycles
# and second in even ones): the savings measured without the probe, which the estimates are compared with.
# Each probed process runs `synclint probe -o ...` (C++: with --torch-ops when the LibTorch shim was built,
# unless TORCH_OPS=0) with SYNCLINT_PROBE_DEBUG=1, so each switch of sampled tracing and the stack of a
# thread that faults go to its log. PROBE_ENVS, user settings separated by '|' (an empty one: the defaults;
# docs/probe.md, "Settings"), runs one probed process per setting for each unprobed twin, in an order that
# rotates by one each cycle; each rep-K/ folder's setting.txt holds its setting.
# Output (OUT, default bench/out/repeats, git-ignored): repeats.tar.gz (rep-K/ in validate.py's layout, with
# rc.txt, tag.txt and the log; archived after every process) and summary.txt (validate.py --repeats, with
# --setting for each setting when there are several).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
OUT="${OUT:-$root/bench/out/repeats}"
W="${REPEATS_WORKDIR:-/tmp/synclint-gpu-repeats}"
PLAN="${PLAN:-cpp:128 cpp:16 py:128 py:16}" CYCLES="${CYCLES:-100}"
STEPS="${STEPS:-300}" REPS="${REPS:-3}" WARMUP="${WARMUP:-50}"
deadline=$((SECONDS + ${TIME_BUDGET_S:-100000}))
mkdir -p "$OUT" "$W"
rm -rf "${W:?}"/*
log() { echo "[$(date +%T)] $*" | tee -a "$W/run.log"; }
archive() { tar -czf "$OUT/repeats.tar.gz" -C "$W" . 2>/dev/null; }

{
  date -u; nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 -c 'import torch,sys; print("python", sys.version.split()[0], "torch", torch.__version__)'
  git -C "$root" log --oneline -1 2>/dev/null; echo "PLAN=$PLAN PROBE_ENVS=${PROBE_ENVS:-${PROBE_ENV:-}}"
} >"$W/env.txt" 2>&1

# ---- builds, in parallel: synclint with the probe library, and train_cpp against the torch package's LibTorch
source bench/gpu/build_gpu.sh
build_gpu "$W" || { log "synclint build FAILED"; tail -20 "$W/build-synclint.log"; archive; exit 1; }
[[ -n $train_cpp ]] || log "train_cpp build FAILED (see build-train_cpp.log)"
[[ ${TORCH_OPS:-1} == 0 || -n $torch_ops ]] || log "torch_ops shim build FAILED (see build-train_cpp.log): C++ reads untimed"
log "built"

# run_unprobed LANG BATCH: the same benchmark command (bench_cmd) without the probe, in a rep-K/ of its own;
# fails when the time budget is spent
run_unprobed() {
  local left=$((deadline - SECONDS)) d tag rc t0
  ((left > 60)) || return 1
  n=$((n + 1))
  d="$W/rep-$n" tag="$1-unprobed-all-$2"
  mkdir -p "$d"
  echo "$tag" >"$d/tag.txt"
  t0=$SECONDS
  timeout $((left < 150 ? left - 5 : 150)) "${bench_cmd[@]}" --json "$d/$tag.json" >"$d/$tag.log" 2>&1
  rc=$?
  echo "$rc" >"$d/rc.txt"
  log "rep $n: $tag exit $rc, $((SECONDS - t0)) s"
  archive
}

# run_probed LANG BATCH SETTING: the benchmark command (bench_cmd) under the probe with SETTING's variables,
# in a rep-K/ of its own; fails when the time budget is spent
run_probed() {
  local lang=$1 batch=$2 setting=$3 left=$((deadline - SECONDS)) d tag rc t0 probe_env cmd
  ((left > 60)) || return 1
  read -ra probe_env <<<"$setting"
  n=$((n + 1))
  d="$W/rep-$n" tag="$lang-probed-all-$batch"
  mkdir -p "$d"
  echo "$tag" >"$d/tag.txt"
  echo "$setting" >"$d/setting.txt"
  cmd=("${bench_cmd[@]}" --json "$d/$tag.json")
  t0=$SECONDS
  torch_ops_args "$lang"  # C++: the LibTorch shim times each read's host work (TORCH_OPS=0: not)
  env "${probe_env[@]}" SYNCLINT_PROBE_DEBUG=1 timeout $((left < 150 ? left - 5 : 150)) \
    "$synclint" probe -o "$d/probe-$tag.json" "${shim[@]}" -- "${cmd[@]}" >"$d/probe-$tag.log" 2>&1
  rc=$?
  echo "$rc" >"$d/rc.txt"
  log "rep $n: $tag${setting:+ [$setting]} exit $rc, $((SECONDS - t0)) s, $(grep -c 'tracing on' "$d/probe-$tag.log") switches on"
  ((rc == 0)) || grep -A40 'synclint probe: signal' "$d/probe-$tag.log" | head -60
  archive
}

probe_settings
n=0
for ((c = 1; c <= CYCLES; c++)); do
  for item in $PLAN; do
    lang=${item%%:*} batch=${item#*:}
    left=$((deadline - SECONDS))
    ((left > 60)) || break 2
    if [[ $lang == py ]]; then
      bench_cmd=(python3 bench/gpu/cnn_bench.py --mode all)
    else
      [[ -n $train_cpp ]] || continue
      bench_cmd=("$train_cpp" --mode all)
    fi
    bench_cmd+=(--batch "$batch" --steps "$STEPS" --reps "$REPS" --warmup "$WARMUP")
    ((${UNPROBED:-0} == 1 && c % 2 == 1)) && { run_unprobed "$lang" "$batch" || break 2; }
    for ((j = 0; j < ${#settings[@]}; j++)); do
      run_probed "$lang" "$batch" "${settings[$(((j + c) % ${#settings[@]}))]}" || break 3
    done
    ((${UNPROBED:-0} == 1 && c % 2 == 0)) && { run_unprobed "$lang" "$batch" || break 2; }
  done
done

if ((${#settings[@]} == 1)); then
  python3 bench/gpu/validate.py --repeats "$W" >"$W/summary.txt" 2>&1 || log "validate.py --repeats FAILED"
else
  for setting in "${settings[@]}"; do
    echo "## Setting: ${setting:-(the defaults)}"
    echo
    python3 bench/gpu/validate.py --repeats --setting "$setting" "$W" 2>&1 || log "validate.py --repeats --setting '$setting' FAILED"
    echo
  done >"$W/summary.txt"
fi
cp "$W/summary.txt" "$OUT/summary.txt"
archive
cat "$W/summary.txt"
log "done: $n processes"
