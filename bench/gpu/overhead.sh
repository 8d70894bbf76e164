#!/usr/bin/env bash
# Where the runtime probe's own overhead comes from, on a GPU machine. Builds only the probe library
# (SYNCLINT_PROBE_ONLY, header-only deps from .carry/ when missing), then runs the CNN benchmark's mode
# `none` (no syncs of its own) in separate processes: unprobed, and probed with parts of the probe
# switched off one at a time. The variants are interleaved ROUNDS times so that drift of the machine
# affects all of them alike. Each process reports ms/step (medians of REPS x STEPS) and its CPU time.
#
#   bench/gpu/overhead.sh                      # Python, batch 128 (where the overhead shows)
#   BATCHES="16 128" VARIANTS="unprobed full" bench/gpu/overhead.sh
#   LANGS="py cpp" bench/gpu/overhead.sh       # also train_cpp (built against the torch package's LibTorch)
#   BENCH=launch bench/gpu/overhead.sh         # launch_cost.py: us per kernel launch (host-bound, low noise)
#   VARIANTS="unprobed default unprobed+CUDA_MODULE_LOADING=EAGER CUDA_MODULE_LOADING=EAGER" bench/gpu/overhead.sh
#                                               # VAR=value+...: probed with that environment; unprobed+...: not probed
#   LANGS=cpp VARIANTS="unprobed default torchops" bench/gpu/overhead.sh   # torchops: C++ reads timed by the
#                                               # LibTorch shim (SYNCLINT_PROBE_TORCH_OPS), built beside train_cpp;
#                                               # torchops-debug: the same with SYNCLINT_PROBE_DEBUG=1 (switch logs)
#   PIN=2-5 bench/gpu/overhead.sh               # every process on the same CPUs (taskset -c): a launch-bound
#                                               # loop then does not move between cores of unequal speed
#   ORDER=fixed bench/gpu/overhead.sh           # the variants in the order given in every round; by default
#                                               # (rotate) round r starts with the r-th variant, so that no
#                                               # variant always runs right after the same other one
#
# Output: $OUT/overhead.tsv (variant, lang, batch, round, ms/step of each rep, user s, sys s; read by
# overhead_phases.py for the cost over the course of each run) and the
# per-run JSON / stderr in $OUT/runs/.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
OUT="${OUT:-$root/bench/results/local-overhead}"
ROUNDS="${ROUNDS:-2}" STEPS="${STEPS:-300}" REPS="${REPS:-3}" WARMUP="${WARMUP:-50}"
BATCHES="${BATCHES:-128}" LANGS="${LANGS:-py}" BENCH="${BENCH:-cnn}"
VARIANTS="${VARIANTS:-unprobed default full nodriver nolaunch nogpu syncsonly rtrecords}"
ORDER="${ORDER:-rotate}"
[[ $ORDER == rotate || $ORDER == fixed ]] || { echo "overhead: ORDER=$ORDER is not rotate or fixed" >&2; exit 2; }
read -ra variants <<<"$VARIANTS"
deadline=$((SECONDS + ${TIME_BUDGET_S:-100000}))
mkdir -p "$OUT/runs"

deps=()
[[ -d .carry/include ]] && deps+=(-DSYNCLINT_HEADER_DEPS_DIR="$root/.carry/include")
cmake -S . -B build-gpu-probe -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSYNCLINT_PROBE_ONLY=ON "${deps[@]}" \
  >"$OUT/build.log" 2>&1 && ninja -C build-gpu-probe synclint_probe >>"$OUT/build.log" 2>&1 ||
  { echo "overhead: probe build failed" >&2; tail -20 "$OUT/build.log" >&2; exit 1; }
lib="$root/build-gpu-probe/runtime_probe/inject/libsynclint_probe.so"
train_cpp=""
if [[ " $LANGS " == *" cpp "* ]]; then
  prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
  cmake -S bench/gpu/cpp -B build-gpu-train -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$prefix" \
    >>"$OUT/build.log" 2>&1 && ninja -C build-gpu-train train_cpp >>"$OUT/build.log" 2>&1 &&
    train_cpp="$root/build-gpu-train/train_cpp" || echo "overhead: train_cpp build failed" >&2
  ninja -C build-gpu-train synclint_torch_ops >>"$OUT/build.log" 2>&1 || echo "overhead: torch_ops shim build failed" >&2
fi

# variant NAME: the environment of that variant, one VAR=value per line
variant_env() {
  local probe="CUDA_INJECTION64_PATH=$lib"
  local full=("$probe" SYNCLINT_PROBE_SAMPLE=1)  # every launch and GPU record traced
  case $1 in
    unprobed) ;;
    default) echo "$probe" ;;  # the probe's defaults (sampled)
    full) printf '%s\n' "${full[@]}" ;;
    nodriver) printf '%s\n' "${full[@]}" SYNCLINT_PROBE_DRIVER=0 ;;
    nolaunch) printf '%s\n' "${full[@]}" SYNCLINT_PROBE_LAUNCHES=0 ;;
    nogpu) printf '%s\n' "${full[@]}" SYNCLINT_PROBE_GPU_RECORDS=0 ;;
    syncsonly) printf '%s\n' "${full[@]}" SYNCLINT_PROBE_DRIVER=0 SYNCLINT_PROBE_LAUNCHES=0 SYNCLINT_PROBE_GPU_RECORDS=0 ;;
    rtrecords) printf '%s\n' "${full[@]}" SYNCLINT_PROBE_DRIVER=0 SYNCLINT_PROBE_LAUNCHES=0 SYNCLINT_PROBE_RUNTIME_RECORDS=1 ;;
    debug) printf '%s\n' "$probe" SYNCLINT_PROBE_DEBUG=1 ;;
    torchops) printf '%s\n' "$probe" SYNCLINT_PROBE_TORCH_OPS="$root/build-gpu-train/torch_ops/libsynclint_torch_ops.so" ;;
    torchops-debug) printf '%s\n' "$probe" SYNCLINT_PROBE_DEBUG=1 SYNCLINT_PROBE_TORCH_OPS="$root/build-gpu-train/torch_ops/libsynclint_torch_ops.so" ;;
    latency) printf '%s\n' "${full[@]}" SYNCLINT_PROBE_LATENCY=1 ;;
    nolaunch-latency) printf '%s\n' "${full[@]}" SYNCLINT_PROBE_DRIVER=0 SYNCLINT_PROBE_LAUNCHES=0 SYNCLINT_PROBE_LATENCY=1 ;;
    unprobed+*) printf '%s\n' ${1#unprobed+} | tr '+' '\n' ;;  # unprobed+VAR=value+...: no probe
    *) printf '%s\n' "$probe" ${1//+/ } ;;  # VAR=value+VAR=value
  esac
}

printf 'variant\tlang\tbatch\tround\tms_per_step_or_us_per_launch\tuser_s\tsys_s\n' >"$OUT/overhead.tsv"
for ((r = 1; r <= ROUNDS; r++)); do
  shift_by=0
  [[ $ORDER == rotate ]] && shift_by=$(((r - 1) % ${#variants[@]}))
  round_variants=("${variants[@]:shift_by}" "${variants[@]:0:shift_by}")
  for b in $BATCHES; do
    for lang in $LANGS; do
      for v in "${round_variants[@]}"; do
        ((SECONDS < deadline)) || { echo "overhead: time budget spent, skipping the rest" >&2; break 4; }
        name="$lang-$v-$b-r$r"
        if [[ $BENCH == launch ]]; then
          [[ $lang == py ]] || continue
          cmd=(python3 bench/gpu/launch_cost.py --reps "$REPS")
        elif [[ $lang == py ]]; then
          cmd=(python3 bench/gpu/cnn_bench.py --mode none --batch "$b" --steps "$STEPS" --reps "$REPS" --warmup "$WARMUP")
        else
          [[ -n $train_cpp ]] || continue
          cmd=("$train_cpp" --mode none --batch "$b" --steps "$STEPS" --reps "$REPS" --warmup "$WARMUP")
        fi
        [[ -n ${PIN:-} ]] && cmd=(taskset -c "$PIN" "${cmd[@]}")
        mapfile -t envs < <(variant_env "$v")
        mkdir -p "$OUT/runs/$name"
        start=$(date +%s.%N)
        env "${envs[@]}" SYNCLINT_PROBE_DIR="$OUT/runs/$name" timeout 200 \
          bash -c 'TIMEFORMAT="%U %S"; time "$@"' _ "${cmd[@]}" --json "$OUT/runs/$name/bench.json" \
          >"$OUT/runs/$name/stdout.txt" 2>"$OUT/runs/$name/stderr.txt"
        rc=$?
        cpu=$(tail -1 "$OUT/runs/$name/stderr.txt")
        ms=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join("%.4f" % x.get("ms_per_step", x.get("us_per_launch", 0)) for x in d["results"]))' \
          "$OUT/runs/$name/bench.json" 2>/dev/null || echo "rc=$rc")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "$lang" "$b" "$r" "$ms" ${cpu:-? ?} | tee -a "$OUT/overhead.tsv"
        echo "  $name: $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $start}") s" >&2
      done
    done
  done
done
# The per-process folders keep each run's stderr (with SYNCLINT_PROBE_DEBUG=1, its tracing switches): one
# archive, since variant names (VAR=value) are not plain file names everywhere the results travel.
tar -czf "$OUT/runs.tar.gz" -C "$OUT" runs 2>/dev/null || echo "overhead: could not archive $OUT/runs" >&2
