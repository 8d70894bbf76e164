#!/usr/bin/env bash
# GPU validation of the runtime probe, end to end, on a machine with an NVIDIA GPU, PyTorch (with its
# LibTorch), the CUDA toolkit (CUPTI), CMake and Ninja. Run from the repository root:
#
#   bench/gpu/prepare_carry.sh            # on a machine that has the header packages and node_modules
#   bench/gpu/run_validation.sh [--baseline-only]
#
# Steps:
#   build   synclint + libsynclint_probe.so (build-gpu/) and train_cpp (build-gpu-train/), in parallel;
#           header-only packages and tree-sitter sources come from .carry/ when the system lacks them
#   (a)     unprobed step times, all modes and batches, one process per language (cnn_bench.py, train_cpp)
#   (b)     each (mode, batch) as its own process under `synclint probe -o ...`, Python and C++
#   (c)     the probe's overhead: mode none again without the probe, one process per (language, batch),
#           to set beside (b)'s probed mode none
#   (d)     optional, if time is left: mode none at batch 128 probed with full tracing (SYNCLINT_PROBE_SAMPLE=1)
# Everything (JSON, logs, environment) goes to a work folder, archived as $OUT/gpu-validation.tar.gz after
# each step (so a run cut short still returns what it had); $OUT/summary.txt holds validate.py's tables.
# --baseline-only does the train_cpp build and step (a) only.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

baseline_only=0
[[ "${1:-}" == "--baseline-only" ]] && baseline_only=1
OUT="${OUT:-$root/bench/results/local-run}"
W="${VALIDATION_WORKDIR:-/tmp/synclint-gpu-validation}"
STEPS="${STEPS:-300}" REPS="${REPS:-3}" WARMUP="${WARMUP:-50}"
BATCHES=(16 128)
MODES=(none loss norms batched)
RUN_TIMEOUT="${RUN_TIMEOUT:-150}"
# Runs are skipped once TIME_BUDGET_S seconds have passed (a device call has a hard limit; what ran is kept).
deadline=$((SECONDS + ${TIME_BUDGET_S:-100000}))
JOBS="$(nproc)"
mkdir -p "$OUT" "$W"
rm -rf "${W:?}"/*

log() { echo "[$(date +%T)] $*" | tee -a "$W/run.log"; }
archive() {  # traces apart: they can be large, and the rest must come back whatever their size
  tar -czf "$OUT/gpu-validation.tar.gz" --exclude='trace-*' -C "$W" . 2>/dev/null
  if compgen -G "$W/trace-*" >/dev/null; then tar -czf "$OUT/gpu-validation-traces.tar.gz" -C "$W" $(cd "$W" && ls trace-*); fi
}
time_left() {  # seconds a run may take: RUN_TIMEOUT, or less near the deadline; 0 when none is left
  local left=$((deadline - SECONDS - 10))
  ((left < 0)) && left=0
  echo $((left < RUN_TIMEOUT ? left : RUN_TIMEOUT))
}
bench_args=(--steps "$STEPS" --reps "$REPS" --warmup "$WARMUP")

# ---- environment
{
  date -u; uname -a; nproc
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv
  python3 -c 'import torch,sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)'
  nvcc --version | tail -2; cmake --version | head -1; g++ --version | head -1
  git -C "$root" log --oneline -1 2>/dev/null
} >"$W/env.txt" 2>&1
log "environment: $(tr '\n' ' ' <"$W/env.txt" | cut -c1-300)"

# ---- builds
torch_prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
(
  cmake -S bench/gpu/cpp -B build-gpu-train -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_PREFIX_PATH="$torch_prefix" && ninja -C build-gpu-train -j "$JOBS" train_cpp
) >"$W/build-train_cpp.log" 2>&1 &
pid_train=$!
pid_synclint=""
if ((!baseline_only)); then
  deps=()
  [[ -d .carry/include ]] && deps+=(-DSYNCLINT_HEADER_DEPS_DIR="$root/.carry/include")
  [[ -d .carry/node_modules ]] && deps+=(-DSYNCLINT_NODE_MODULES="$root/.carry/node_modules")
  (
    cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSYNCLINT_BUILD_TESTS=OFF "${deps[@]}" &&
      ninja -C build-gpu -j "$JOBS" synclint synclint_probe
  ) >"$W/build-synclint.log" 2>&1 &
  pid_synclint=$!
fi
wait "$pid_train" && log "train_cpp built" || log "train_cpp build FAILED (see build-train_cpp.log)"
train_cpp="$root/build-gpu-train/train_cpp"
synclint=""
if [[ -n "$pid_synclint" ]]; then
  if wait "$pid_synclint"; then
    synclint="$root/build-gpu/tools/synclint/synclint"
    log "synclint and the probe built"
  else
    log "synclint build FAILED (see build-synclint.log)"
    tail -30 "$W/build-synclint.log"
  fi
fi
archive

# ---- (a) unprobed step times
log "(a) unprobed, python"
timeout 300 python3 bench/gpu/cnn_bench.py --mode all --batch "${BATCHES[@]}" "${bench_args[@]}" \
  --json "$W/py-unprobed.json" >/dev/null 2>"$W/py-unprobed.log" || log "python unprobed run FAILED"
if [[ -x "$train_cpp" ]]; then
  log "(a) unprobed, C++"
  batches_csv="$(IFS=,; echo "${BATCHES[*]}")"
  timeout 300 "$train_cpp" --mode all --batch "$batches_csv" "${bench_args[@]}" \
    --json "$W/cpp-unprobed.json" >/dev/null 2>"$W/cpp-unprobed.log" || log "C++ unprobed run FAILED"
fi
archive

# ---- (b) each configuration under the probe
# Mode none runs with REPS repetitions (it is the overhead measurement); the others with PROBED_REPS
# (default 1: the probe's estimate is per call, and the measured savings come from step (a)).
PROBED_REPS="${PROBED_REPS:-1}"
run_probed() {  # lang mode batch [VAR=VALUE for the probe's environment]
  local lang=$1 mode=$2 batch=$3 tag="$1-$2-$3" cmd reps=$PROBED_REPS env_extra=()
  [[ -n "${4:-}" ]] && { env_extra=("$4"); tag="$tag-${5:?}"; }
  if [[ $lang == py ]]; then cmd=(python3 bench/gpu/cnn_bench.py); else cmd=("$train_cpp"); fi
  [[ $mode == none ]] && reps=$REPS
  local t0=$SECONDS limit
  limit=$(time_left)
  ((limit > 0)) || { log "skipped probed $tag (time budget spent)"; return; }
  cmd+=(--mode "$mode" --batch "$batch" --steps "$STEPS" --reps "$reps" --warmup "$WARMUP"
        --json "$W/${tag/#$lang/$lang-probed}.json")
  # The command goes to `synclint probe` as it is, options and all, after `--`.
  env "${env_extra[@]}" timeout "$limit" "$synclint" probe -o "$W/probe-$tag.json" -- "${cmd[@]}" \
    >"$W/probe-$tag.log" 2>&1 || log "probed $tag FAILED (rc=$?)"
  echo "$((SECONDS - t0)) s wall" >"$W/time-probed-$tag.txt"
}
run_solo() {  # lang mode batch: one configuration as its own process, no probe
  local lang=$1 mode=$2 batch=$3 cmd limit
  limit=$(time_left)
  ((limit > 0)) || { log "skipped unprobed $lang $mode $batch (time budget spent)"; return; }
  if [[ $lang == py ]]; then cmd=(python3 bench/gpu/cnn_bench.py); else cmd=("$train_cpp"); fi
  timeout "$limit" "${cmd[@]}" --mode "$mode" --batch "$batch" "${bench_args[@]}" \
    --json "$W/$lang-solo-$mode-$batch.json" >/dev/null 2>"$W/$lang-solo-$mode-$batch.log" ||
    log "unprobed $lang $mode $batch FAILED"
}
langs=(py)
[[ -x "$train_cpp" ]] && langs+=(cpp)
if [[ -n "$synclint" ]]; then
  # (b) Python, then C++, every (mode, batch): the required runs come first.
  for lang in "${langs[@]}"; do
    for batch in "${BATCHES[@]}"; do
      for mode in "${MODES[@]}"; do
        log "(b) probed $lang $mode $batch"
        run_probed "$lang" "$mode" "$batch"
        archive
      done
    done
  done
  # The ranked tables as `synclint probe` printed them (verbatim, from (b)'s logs).
  for tag in py-norms-16 cpp-norms-16 py-loss-128 cpp-loss-128; do
    [[ -f "$W/probe-$tag.log" ]] && cp "$W/probe-$tag.log" "$W/table-$tag.txt"
  done
  # ---- (c) overhead: mode none, unprobed, one process each (beside (b)'s probed mode none)
  for lang in "${langs[@]}"; do
    for batch in "${BATCHES[@]}"; do
      log "(c) unprobed $lang none $batch"
      run_solo "$lang" none "$batch"
      archive
    done
  done
  # ---- (d) optional: mode none traced in full (SYNCLINT_PROBE_SAMPLE=1), the overhead without sampling
  for lang in "${langs[@]}"; do
    log "(d) probed $lang none 128, full tracing"
    run_probed "$lang" none 128 SYNCLINT_PROBE_SAMPLE=1 full
    archive
  done
  # the probed reports' libraries and binaries, for the record
  ls -la build-gpu/runtime_probe/inject/ >"$W/probe-lib.txt" 2>&1
fi
archive

python3 bench/gpu/validate.py "$W" >"$W/summary.txt" 2>&1 || log "validate.py FAILED"
cp "$W/summary.txt" "$OUT/summary.txt"
archive
cat "$W/summary.txt"
log "done"
