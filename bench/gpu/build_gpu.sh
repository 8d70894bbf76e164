# usage: source bench/gpu/build_gpu.sh; build_gpu LOG_DIR [train-only]
# Sourced by the GPU scripts (bash): builds synclint with the probe library (build-gpu/) and train_cpp
# against the torch package's LibTorch (build-gpu-train/), in parallel, from the repository root; the
# header-only packages and tree-sitter sources come from .carry/ when the machine lacks them
# (bench/gpu/prepare_carry.sh). Sets `synclint`, `train_cpp` and `torch_ops` (the probe's LibTorch shim, for
# SYNCLINT_PROBE_TORCH_OPS) (each empty when its build failed).
#
#   build_gpu LOG_DIR [train-only]   # logs: LOG_DIR/build-synclint.log, LOG_DIR/build-train_cpp.log
# Returns success when synclint was built (with train-only: when train_cpp was).
#
#   probe_settings        # sets `settings`: PROBE_ENVS split at '|' (else PROBE_ENV), at least one ("")
#
#   torch_ops_args LANG   # sets `shim`: `synclint probe`'s --torch-ops for a C++ process when the shim was
#                         # built, unless TORCH_OPS=0 (empty otherwise)
build_gpu() {
  local logs=$1 train_only=${2:-} deps=() torch_prefix
  [[ -d .carry/include ]] && deps+=(-DSYNCLINT_HEADER_DEPS_DIR="$PWD/.carry/include")
  [[ -d .carry/node_modules ]] && deps+=(-DSYNCLINT_NODE_MODULES="$PWD/.carry/node_modules")
  torch_prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)' 2>/dev/null)"
  (cmake -S bench/gpu/cpp -B build-gpu-train -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$torch_prefix" &&
    ninja -C build-gpu-train train_cpp && { ninja -C build-gpu-train synclint_torch_ops || true; }) >"$logs/build-train_cpp.log" 2>&1 &
  local train_pid=$!
  synclint="" train_cpp="" torch_ops=""
  if [[ $train_only != train-only ]]; then
    (cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSYNCLINT_BUILD_TESTS=OFF "${deps[@]}" &&
      ninja -C build-gpu synclint synclint_probe) >"$logs/build-synclint.log" 2>&1 && synclint="$PWD/build-gpu/tools/synclint/synclint"
  fi
  wait "$train_pid" && train_cpp="$PWD/build-gpu-train/train_cpp"
  [[ -f build-gpu-train/torch_ops/libsynclint_torch_ops.so ]] && torch_ops="$PWD/build-gpu-train/torch_ops/libsynclint_torch_ops.so"
  if [[ $train_only == train-only ]]; then [[ -n $train_cpp ]]; else [[ -n $synclint ]]; fi
}

torch_ops_args() {
  shim=()
  [[ $1 == cpp && ${TORCH_OPS:-1} != 0 && -n ${torch_ops:-} ]] && shim=(--torch-ops "$torch_ops")
  return 0
}

probe_settings() {
  IFS='|' read -ra settings <<<"${PROBE_ENVS:-${PROBE_ENV:-}}"
  ((${#settings[@]} > 0)) || settings=("")
}
