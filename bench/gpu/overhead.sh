#!/usr/bin/env bash
# The runtime probe's overhead, on a GPU machine (the documented protocol: docs/validation.md, "Overhead").
#
#   usage: [LANGS=cpp] [BATCHES=16] [ROUNDS=30] [PIN=2-5] [VARIANTS="unprobed debug"] bench/gpu/overhead.sh
#
# Builds the probe library (SYNCLINT_PROBE_ONLY; header-only deps from .carry/ when missing) and, for C++,
# train_cpp against the torch package's LibTorch, then runs the CNN benchmark's mode `none` (no syncs of its
# own) in separate processes, one per variant, the variants interleaved ROUNDS times so that the machine's
# drift affects all of them alike. Each process reports ms/step (medians of REPS x STEPS) and its CPU time.
# Variants:
#   unprobed            no probe
#   default             the probe's defaults (sampled tracing, GPU records in the first stretch)
#   debug               the defaults with SYNCLINT_PROBE_DEBUG=1 (each tracing switch in the process's stderr)
#   full                everything traced (SYNCLINT_PROBE_SAMPLE=1)
#   torchops            C++: the defaults with the LibTorch shim (synclint probe --torch-ops)
#   VAR=value+...       the probe with these settings (docs/probe.md, "Settings")
#   unprobed+VAR=value  no probe, with this environment
# PIN=CPUS runs every process on the same CPUs (taskset -c): a launch-bound loop then does not move between
# cores of unequal speed. By default round r starts with the r-th variant (ORDER=fixed: the order given).
# TIME_BUDGET_S stops before the next process once spent.
#
# Output (OUT, default bench/out/overhead, git-ignored): overhead.tsv (variant, lang, batch, round, ms/step of
# each rep, user s, sys s), runs.tar.gz (each process's JSON and stderr) and summary.txt
# (bench/gpu/overhead_rounds.py: per variant, the median over rounds of probed / unprobed of the same round,
# with a bootstrap interval).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
OUT="${OUT:-$root/bench/out/overhead}"
ROUNDS="${ROUNDS:-30}" STEPS="${STEPS:-300}" REPS="${REPS:-3}" WARMUP="${WARMUP:-50}"
BATCHES="${BATCHES:-16}" LANGS="${LANGS:-cpp}"
VARIANTS="${VARIANTS:-unprobed debug}"
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
    debug) printf '%s\n' "$probe" SYNCLINT_PROBE_DEBUG=1 ;;
    torchops) printf '%s\n' "$probe" SYNCLINT_PROBE_TORCH_OPS="$root/build-gpu-train/torch_ops/libsynclint_torch_ops.so" ;;
    unprobed+*) printf '%s\n' ${1#unprobed+} | tr '+' '\n' ;;  # unprobed+VAR=value+...: no probe
    *) printf '%s\n' "$probe" ${1//+/ } ;;  # VAR=value+VAR=value
  esac
}

printf 'variant\tlang\tbatch\tround\tms_per_step\tuser_s\tsys_s\n' >"$OUT/overhead.tsv"
for ((r = 1; r <= ROUNDS; r++)); do
  shift_by=0
  [[ $ORDER == rotate ]] && shift_by=$(((r - 1) % ${#variants[@]}))
  round_variants=("${variants[@]:shift_by}" "${variants[@]:0:shift_by}")
  for b in $BATCHES; do
    for lang in $LANGS; do
      for v in "${round_variants[@]}"; do
        ((SECONDS < deadline)) || { echo "overhead: time budget spent, skipping the rest" >&2; break 4; }
        name="$lang-$v-$b-r$r"
        if [[ $lang == py ]]; then
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
        ms=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join("%.4f" % x["ms_per_step"] for x in d["results"]))' \
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
python3 bench/gpu/overhead_rounds.py "$OUT/overhead.tsv" | tee "$OUT/summary.txt"
