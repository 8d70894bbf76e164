#!/usr/bin/env bash
# What a CUPTI subscriber's launch callbacks cost the host before, while and after they are on
# (bench/gpu/cupti_switch_cost.cu), in rounds whose scenario order rotates, and the launch cost over a
# process's first 3 s without the probe, with it injected, and with it injected without its launch
# callbacks. On a GPU machine, from the repository root:
#
#   OUT=/tmp/sw ROUNDS=6 TIME_BUDGET_S=150 bash bench/gpu/cupti_switch_cost.sh
#
# BIN: a built cupti_switch_cost (default: built here with nvcc into build-gpu-switch/). PROBE: the probe
# library for the injected timeline (default: build-gpu/runtime_probe/inject/libsynclint_probe.so, or
# build/...; none found: the timeline runs unprobed only). SCENARIOS (default: all of them but timeline),
# ROUNDS (6), TIME_BUDGET_S (no rounds started after it), PIN (taskset CPU list, default 2-5).
# TIMELINE_EXTRA="LABEL VAR=value..." adds a probed timeline with those settings (label timeline-LABEL),
# e.g. TIMELINE_EXTRA="probed-at-launch SYNCLINT_PROBE_SWITCH_AT_LAUNCH=1"; SCENARIOS=skip runs none of
# the scenarios (the timelines only).
# Output: $OUT/switch.tsv (round, label, then the program's columns) and $OUT/summary.txt
# (bench/gpu/cupti_switch_summary.py).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
OUT="${OUT:-$root/bench/results/local-cupti-switch}"
mkdir -p "$OUT"
deadline=$((SECONDS + ${TIME_BUDGET_S:-100000}))
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:/usr/local/cuda-13.0/targets/x86_64-linux/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

bin="${BIN:-}"
# a given binary that does not start (its usage exits 2) is built again here
if [[ -n $bin ]]; then "$bin" 2>/dev/null; [[ $? == 2 ]] || { echo "cupti_switch_cost: $bin does not start; building it" >&2; bin=; }; fi
if [[ -z $bin ]]; then
  bin=build-gpu-switch/cupti_switch_cost
  mkdir -p build-gpu-switch
  nvcc -O2 -std=c++20 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
    -I runtime_probe -I runtime_probe/inject -o "$bin" bench/gpu/cupti_switch_cost.cu \
    runtime_probe/inject/classify.cpp -lcupti || { echo "cupti_switch_cost: build FAILED" >&2; exit 1; }
fi
probe="${PROBE:-}"
for p in build-gpu/runtime_probe/inject/libsynclint_probe.so build/runtime_probe/inject/libsynclint_probe.so; do
  [[ -n $probe ]] || { [[ -f $p ]] && probe=$p; }
done
[[ -z $probe ]] || probe="$(realpath "$probe")"
scenarios=(${SCENARIOS:-none sync toggle toggle-runtime toggle-driver toggle-thread resubscribe keep})
[[ ${SCENARIOS:-} == skip ]] && scenarios=()
read -ra extra <<<"${TIMELINE_EXTRA:-}"
pin=(taskset -c "${PIN:-2-5}")
"${pin[@]}" true 2>/dev/null || pin=()
tsv="$OUT/switch.tsv"
: >"$tsv"

# run ROUND LABEL [VAR=value...] -- ARGS...: one process, its lines prefixed with the round and the label
run() {
  local round=$1 label=$2
  shift 2
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" timeout 60 "${pin[@]}" "$bin" "$@" 2>>"$OUT/stderr.txt" |
    sed "s/^/$round\t$label\t/" >>"$tsv"
  local rc=${PIPESTATUS[0]}
  ((rc == 0)) || echo "round $round $label: exit $rc" | tee -a "$OUT/stderr.txt" >&2
}

for ((r = 1; r <= ${ROUNDS:-6}; r++)); do
  ((SECONDS < deadline)) || { echo "time budget spent before round $r" >&2; break; }
  n=${#scenarios[@]}
  for ((j = 0; j < n; j++)); do  # (none with SCENARIOS=skip)
    s=${scenarios[$(((j + r) % n))]}
    run "$r" "$s" -- "$s"
  done
  # the launch cost over time, without the probe and with it injected (its defaults; reports to $OUT/probe)
  run "$r" timeline-unprobed -- timeline
  # and, as runs 54-55 set them side by side, the probe without its launch callbacks
  if [[ -n $probe ]]; then
    mkdir -p "$OUT/probe"
    run "$r" timeline-probed "CUDA_INJECTION64_PATH=$probe" "SYNCLINT_PROBE_DIR=$OUT/probe" SYNCLINT_PROBE_DEBUG=1 -- timeline
    run "$r" timeline-probed-no-launches "CUDA_INJECTION64_PATH=$probe" "SYNCLINT_PROBE_DIR=$OUT/probe" \
      SYNCLINT_PROBE_DEBUG=1 SYNCLINT_PROBE_LAUNCHES=0 -- timeline
    if ((${#extra[@]} > 0)); then
      run "$r" "timeline-${extra[0]}" "CUDA_INJECTION64_PATH=$probe" "SYNCLINT_PROBE_DIR=$OUT/probe" \
        SYNCLINT_PROBE_DEBUG=1 "${extra[@]:1}" -- timeline
    fi
  fi
done
python3 bench/gpu/cupti_switch_summary.py "$tsv" | tee "$OUT/summary.txt"
