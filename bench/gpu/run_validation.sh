#!/usr/bin/env bash
# GPU validation of the runtime probe, end to end, on a machine with an NVIDIA GPU, PyTorch (with its
# LibTorch), the CUDA toolkit (CUPTI), CMake and Ninja. Run from the repository root:
#
#   usage: bench/gpu/prepare_carry.sh     # on a machine that has the header packages and node_modules
#          [OUT=DIR] [STEPS=300] [REPS=3] [OVERHEAD_ROUNDS=2] [PROBE_ENV=VAR=value] bench/gpu/run_validation.sh [--baseline-only]
#
# Steps:
#   build   synclint + libsynclint_probe.so (build-gpu/) and train_cpp (build-gpu-train/), in parallel;
#           header-only packages and tree-sitter sources come from .carry/ when the system lacks them
#   (a)     unprobed step times, all modes and batches, one process per language (cnn_bench.py, train_cpp)
#   (b)     every mode of one batch size in one process under `synclint probe -o ...` (the probe's
#           defaults), Python and C++: the estimates and the step times they are compared with come from
#           the same process
#   (c)     the probe's overhead: mode none alone, unprobed and probed alternately, OVERHEAD_ROUNDS (2) times
#           per (language, batch)
#   (d)     optional, if time is left: mode none at batch 128 probed with full tracing (SYNCLINT_PROBE_SAMPLE=1)
# Everything (JSON, logs, environment) goes to a work folder, archived as $OUT/gpu-validation.tar.gz after
# each step (so a run cut short still returns what it had); $OUT/summary.txt holds validate.py's tables.
# OUT defaults to bench/out/validation (git-ignored).
# C++ programs are probed with the LibTorch shim (synclint probe --torch-ops) when it was built, unless
# TORCH_OPS=0. --baseline-only does the train_cpp build and step (a) only. PROBE_ENV=VAR=value adds one variable to the
# environment of the probed all-modes processes of (b) (a probe setting: docs/probe.md, "Settings").
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

baseline_only=0
[[ "${1:-}" == "--baseline-only" ]] && baseline_only=1
OUT="${OUT:-$root/bench/out/validation}"
W="${VALIDATION_WORKDIR:-/tmp/synclint-gpu-validation}"
STEPS="${STEPS:-300}" REPS="${REPS:-3}" WARMUP="${WARMUP:-50}"
BATCHES=(16 128)
RUN_TIMEOUT="${RUN_TIMEOUT:-150}"
# Runs are skipped once TIME_BUDGET_S seconds have passed (a device call has a hard limit; what ran is kept).
deadline=$((SECONDS + ${TIME_BUDGET_S:-100000}))
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

# ---- builds (bench/gpu/build_gpu.sh; train_cpp alone with --baseline-only)
source bench/gpu/build_gpu.sh
if ((baseline_only)); then build_gpu "$W" train-only; else build_gpu "$W"; fi
[[ -n $train_cpp ]] && log "train_cpp built" || log "train_cpp build FAILED (see build-train_cpp.log)"
if ((!baseline_only)); then
  if [[ -n $synclint ]]; then
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
if [[ -n "$train_cpp" ]]; then
  log "(a) unprobed, C++"
  batches_csv="$(IFS=,; echo "${BATCHES[*]}")"
  timeout 300 "$train_cpp" --mode all --batch "$batches_csv" "${bench_args[@]}" \
    --json "$W/cpp-unprobed.json" >/dev/null 2>"$W/cpp-unprobed.log" || log "C++ unprobed run FAILED"
fi
archive

# ---- (b) every mode of one batch size in one process under the probe (the probe's defaults): the probe's
# estimate per logging site and the step times it is compared with come from the same process, so the
# machine's drift between processes does not enter the comparison.
OVERHEAD_ROUNDS="${OVERHEAD_ROUNDS:-2}"
run_bench() {  # probe|plain lang modes batch reps tag [VAR=VALUE]: one process; JSON $W/TAG.json
  local how=$1 lang=$2 modes=$3 batch=$4 reps=$5 tag=$6 limit cmd env_extra=()
  [[ -n "${7:-}" ]] && env_extra=("$7")
  limit=$(time_left)
  ((limit > 0)) || { log "skipped $tag (time budget spent)"; return; }
  if [[ $lang == py ]]; then cmd=(python3 bench/gpu/cnn_bench.py --mode ${modes//,/ }); else cmd=("$train_cpp" --mode "$modes"); fi
  cmd+=(--batch "$batch" --steps "$STEPS" --reps "$reps" --warmup "$WARMUP" --json "$W/$tag.json")
  local t0=$SECONDS shim
  torch_ops_args "$lang"  # C++: each read's host work timed by the LibTorch shim (TORCH_OPS=0: without it)
  if [[ $how == probe ]]; then
    # The command goes to `synclint probe` as it is, options and all, after `--`.
    env "${env_extra[@]}" timeout "$limit" "$synclint" probe -o "$W/probe-$tag.json" "${shim[@]}" -- "${cmd[@]}" \
      >"$W/probe-$tag.log" 2>&1 || log "$tag FAILED (rc=$?)"
  else
    timeout "$limit" "${cmd[@]}" >/dev/null 2>"$W/$tag.log" || log "$tag FAILED (rc=$?)"
  fi
  echo "$((SECONDS - t0)) s wall" >"$W/time-$tag.txt"
}
langs=(py)
[[ -n "$train_cpp" ]] && langs+=(cpp)
if [[ -n "$synclint" ]]; then
  for lang in "${langs[@]}"; do
    for batch in "${BATCHES[@]}"; do
      log "(b) probed $lang, all modes, batch $batch"
      run_bench probe "$lang" all "$batch" "$REPS" "$lang-probed-all-$batch" ${PROBE_ENV:+"$PROBE_ENV"}
      archive
    done
  done
  # The ranked tables as `synclint probe` printed them (verbatim).
  for tag in py-probed-all-16 cpp-probed-all-16 py-probed-all-128 cpp-probed-all-128; do
    [[ -f "$W/probe-$tag.log" ]] && cp "$W/probe-$tag.log" "$W/table-$tag.txt"
  done
  # ---- (c) overhead: mode none alone, unprobed and probed alternately, OVERHEAD_ROUNDS times
  for ((r = 1; r <= OVERHEAD_ROUNDS; r++)); do
    for lang in "${langs[@]}"; do
      for batch in "${BATCHES[@]}"; do
        log "(c) round $r: $lang none $batch, unprobed then probed"
        run_bench plain "$lang" none "$batch" "$REPS" "$lang-solo-none-$batch-r$r"
        run_bench probe "$lang" none "$batch" "$REPS" "$lang-probed-none-$batch-r$r"
        archive
      done
    done
  done
  # ---- (d) optional: mode none traced in full (SYNCLINT_PROBE_SAMPLE=1), the overhead without sampling
  for lang in "${langs[@]}"; do
    log "(d) probed $lang none 128, full tracing"
    run_bench probe "$lang" none 128 "$REPS" "$lang-probed-none-128-full" SYNCLINT_PROBE_SAMPLE=1
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
