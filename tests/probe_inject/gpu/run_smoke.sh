#!/usr/bin/env bash
# GPU smoke test of the injection library: build it (probe-only configure) and the LibTorch smoke program,
# then run smoke.py / smoke_cpp under CUDA_INJECTION64_PATH in the exit paths that must write a report.
# Run from the repository root on a GPU machine; nlohmann/json.hpp comes from the system or from
# .carry/include (SYNCLINT_HEADER_DEPS_DIR). Results: $OUT/smoke-log.txt and $OUT/probe-smoke.tar.gz.
set -uo pipefail
root="$(pwd)"
OUT="${OUT:-/tmp/probe-smoke-out}"
W=/tmp/probe-smoke
rm -rf "$W"; mkdir -p "$W" "$OUT"
exec > >(tee "$OUT/smoke-log.txt") 2>&1
G=tests/probe_inject/gpu
echo "== tools"; for t in addr2line llvm-symbolizer nm readelf objdump; do printf '%s: %s\n' "$t" "$(command -v $t || echo MISSING)"; done
cuda_root=/usr/local/cuda; [[ -d /usr/local/cuda-13.0 ]] && cuda_root=/usr/local/cuda-13.0
grep -h "define CUPTI_API_VERSION" "$cuda_root"/targets/x86_64-linux/include/cupti_version.h "$cuda_root"/include/cupti_version.h 2>/dev/null | head -1
echo "== build"
deps=(); [[ -f .carry/include/nlohmann/json.hpp ]] && deps=(-DSYNCLINT_HEADER_DEPS_DIR="$root/.carry/include")
torch_prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
( cmake -S . -B /tmp/bp -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSYNCLINT_PROBE_ONLY=ON -DSYNCLINT_BUILD_TESTS=OFF \
    -DSYNCLINT_CUDA_ROOT="$cuda_root" "${deps[@]}" && ninja -C /tmp/bp synclint_probe ) > "$W/build-probe.log" 2>&1 &
p1=$!
( cmake -S $G/cpp -B /tmp/bc -G Ninja -DCMAKE_PREFIX_PATH="$torch_prefix" && ninja -C /tmp/bc smoke_cpp ) > "$W/build-cpp.log" 2>&1 &
p2=$!
wait $p1 && echo "probe built" || { echo "probe build FAILED"; tail -40 "$W/build-probe.log"; }
wait $p2 && echo "smoke_cpp built" || { echo "smoke_cpp build FAILED"; tail -40 "$W/build-cpp.log"; }
LIB=/tmp/bp/runtime_probe/inject/libsynclint_probe.so
export PYTHONUNBUFFERED=1
probe() {  # probe <name> <env...> -- <command...>
  local name=$1; shift; local envs=(); while [[ $1 != -- ]]; do envs+=("$1"); shift; done; shift
  mkdir -p "$W/$name"
  echo "== $name: ${envs[*]} $*"
  local t0=$(date +%s%N)
  env CUDA_INJECTION64_PATH=$LIB SYNCLINT_PROBE_DIR="$W/$name" SYNCLINT_PROBE_DEBUG=1 "${envs[@]}" timeout 120 "$@"
  echo "exit=$? wall=$(( ($(date +%s%N) - t0) / 1000000 ))ms files: $(ls "$W/$name" | tr '\n' ' ')"
  for r in "$W/$name"/report-*.json; do [[ -f $r ]] && python3 $G/show_report.py "$r" $(ls "$W/$name"/stream-*.json 2>/dev/null | head -1); done
}
# SMOKE_SET=core skips the exit-path and robustness runs (raise, signals, workers, no CUPTI, profiler);
# SMOKE_SET=cpp runs only the LibTorch program.
set_=${SMOKE_SET:-full}
REC=(SYNCLINT_PROBE_RECORD=1 SYNCLINT_PROBE_RECORD_MAX=${RECORD_MAX:-1000})
if [[ $set_ != cpp ]]; then
echo "== unprobed"; timeout 120 python3 $G/smoke.py
probe py "${REC[@]}" SYNCLINT_PROBE_TRACE=1 -- python3 $G/smoke.py
if [[ $set_ == full ]]; then
  probe py-raise -- python3 $G/smoke.py --steps 5 --reads 100 --end raise
  probe py-sigterm -- python3 $G/smoke.py --steps 5 --reads 100 --end sigterm
  probe py-sigint -- python3 $G/smoke.py --steps 5 --reads 100 --end sigint
  probe py-workers -- python3 $G/smoke.py --steps 5 --reads 100 --workers 2
  probe py-nodriver SYNCLINT_PROBE_DRIVER=0 -- python3 $G/smoke.py
  probe py-nocupti SYNCLINT_CUPTI_PATH=/nonexistent/libcupti.so -- python3 $G/smoke.py --steps 5 --reads 100
  probe py-profiler -- python3 -c "import torch; x=torch.ones(4,device='cuda'); p=torch.profiler.profile(); p.__enter__(); (x*2).sum().item(); p.__exit__(None,None,None); print('profiler run done')"
else
  echo "== unprobed again"; timeout 120 python3 $G/smoke.py --steps 5
  probe py-again -- python3 $G/smoke.py --steps 5
fi
fi
echo "== unprobed cpp"; timeout 60 /tmp/bc/smoke_cpp; timeout 60 /tmp/bc/smoke_cpp
probe cpp "${REC[@]}" -- /tmp/bc/smoke_cpp
probe cpp-again -- /tmp/bc/smoke_cpp
[[ $set_ == full ]] && probe cpp-dladdr SYNCLINT_PROBE_SYMBOLIZER=none -- /tmp/bc/smoke_cpp
[[ $set_ != cpp && -f bench/gpu/cnn_bench.py ]] && probe cnn-norms "${REC[@]}" -- \
  python3 bench/gpu/cnn_bench.py --mode norms --batch 16 --steps 30 --warmup 5 --reps 1
tar -czf "$OUT/probe-smoke.tar.gz" -C "$W" .
