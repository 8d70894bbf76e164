#!/usr/bin/env bash
# One end-to-end case of the C++ front-end: cxx_cli_test.sh CASE SYNCLINT CXX (CXX builds the plugin).
# The sources declare the CUDA runtime calls themselves, so no CUDA or LibTorch headers are needed.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

case_name=$1
SYNCLINT=$2
CXX=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/synclint-cxx-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

source "$here/../cli/case_lib.sh"

# write_train FILE: a loop with one explicit device synchronize on line 5.
write_train() {
  mkdir -p "$(dirname "$1")"
  cat >"$1" <<'CPP'
#include "sync_api.h"
int main() {
  int steps = STEPS;
  for (int i = 0; i < steps; ++i) {
    cudaDeviceSynchronize();
  }
}
CPP
  printf 'extern "C" int cudaDeviceSynchronize();\n' >"$(dirname "$1")/sync_api.h"
}
# write_db DIR FILE ARGS...: compile_commands.json in DIR with one entry for FILE.
write_db() {
  local dir=$1 file=$2; shift 2
  local args='"/usr/bin/c++"'
  for a in "$@"; do args+=", \"$a\""; done
  mkdir -p "$dir"
  printf '[{"directory": "%s", "file": "%s", "arguments": [%s, "-c", "%s", "-o", "x.o"]}]\n' \
    "$work" "$file" "$args" "$file" >"$dir/compile_commands.json"
}

case "$case_name" in
  p_flag)
    write_train src/train.cpp
    write_db out_dir src/train.cpp -DSTEPS=3
    run check -p out_dir src/train.cpp; expect_rc 1; expect_out "src/train.cpp:5:5"; expect_out "SYNC007"
    run check -p nowhere src/train.cpp; expect_rc 2; expect_err "nowhere/compile_commands.json: no such file"
    ;;
  auto_detect)
    write_train proj/src/train.cpp
    write_db proj proj/src/train.cpp -DSTEPS=3
    run check proj/src/train.cpp; expect_rc 1; expect_out "proj/src/train.cpp:5:5"
    ;;
  build_subfolder)
    write_train proj/train.cpp
    write_db proj/build proj/train.cpp -DSTEPS=3
    run check proj/train.cpp; expect_rc 1; expect_out "proj/train.cpp:5:5"
    ;;
  fixed_flags)
    write_train train.cpp
    run check train.cpp -- -DSTEPS=3; expect_rc 1; expect_out "train.cpp:5:5"
    # Without the macro the unit has an error; the rest is still analysed and the run is not failed for it.
    run check train.cpp --; expect_rc 1; expect_out "train.cpp:3:15: error: use of undeclared identifier 'STEPS'"
    expect_no_out "warning: compiler error"
    expect_out "train.cpp:5:5"
    ;;
  extra_args)
    write_train train.cpp
    run check train.cpp --extra-arg=-DSTEPS=3 --; expect_rc 1; expect_no_out "undeclared identifier"
    run check train.cpp --extra-arg-before=-DSTEPS=3 --; expect_rc 1; expect_no_out "undeclared identifier"
    ;;
  missing_header)
    printf '#include "nowhere.h"\nint main() { return 0; }\n' >bad.cpp
    write_train good.cpp
    run check bad.cpp good.cpp -- -DSTEPS=1; expect_rc 1
    expect_out "bad.cpp:1:10: error: 'nowhere.h' file not found"; expect_out "good.cpp:5:5"
    ;;
  plugin_not_loaded)
    # A real plugin: loading it would create the marker file.
    cat >plugin.cpp <<CPP
#include <cstdio>
__attribute__((constructor)) static void loaded() { if (FILE* f = std::fopen("$work/LOADED", "w")) std::fclose(f); }
CPP
    "$CXX" -shared -fPIC -o plugin.so plugin.cpp || fail "cannot build the test plugin"
    write_train train.cpp
    write_db build train.cpp -DSTEPS=3 "-fplugin=$work/plugin.so" -Xclang -load -Xclang "$work/plugin.so" \
      "-fpass-plugin=$work/plugin.so" -Xclang -add-plugin -Xclang x
    run check train.cpp; expect_rc 1
    [[ ! -e LOADED ]] || fail "the plugin named in the database was loaded"
    expect_out "dropped '-fplugin=$work/plugin.so'"; expect_out "dropped '-Xclang -load -Xclang $work/plugin.so'"
    expect_out "dropped '-fpass-plugin=$work/plugin.so'"; expect_out "dropped '-Xclang -add-plugin -Xclang x'"
    run check train.cpp --extra-arg="-fplugin=$work/plugin.so" -- -DSTEPS=3; expect_rc 1
    [[ ! -e LOADED ]] || fail "the plugin named by --extra-arg was loaded"
    ;;
  outside_database)
    write_train proj/listed.cpp
    write_train proj/other.cpp
    write_db proj proj/listed.cpp -DSTEPS=3
    run check proj/other.cpp; expect_rc 1; expect_out "proj/other.cpp:5:5"
    expect_out "not listed in proj/compile_commands.json"
    ;;
  empty_database)
    write_train train.cpp
    : >compile_commands.json
    run check train.cpp; expect_rc 2; expect_out "compile_commands.json: empty compilation database"
    echo '[]' >compile_commands.json
    run check train.cpp; expect_rc 2; expect_out "compile_commands.json: the compilation database lists no files"
    run check -p . train.cpp; expect_rc 2; expect_err "lists no files"
    ;;
  malformed_database)
    write_train train.cpp
    echo '[{"directory": "/x", "file": "train.cpp"' >compile_commands.json
    run check train.cpp; expect_rc 2; expect_out "compile_commands.json: malformed compilation database"
    echo '[{"directory": "/x", "file": "train.cpp"}]' >compile_commands.json
    run check train.cpp; expect_rc 2; expect_out "malformed compilation database"
    ;;
  no_database)
    write_train train.cpp
    run check train.cpp; expect_rc 2; expect_out "no compilation database found"
    ;;
  walk_listed_only)
    write_train proj/listed.cpp
    write_train proj/unlisted.cpp
    write_db proj/build proj/listed.cpp -DSTEPS=3
    run check proj; expect_rc 1; expect_out "proj/listed.cpp:5:5"; expect_no_out "unlisted.cpp"
    expect_out "in 1 file"
    ;;
  frontend_module)
    # The C++ front-end is a module loaded only when a C++ unit is to be analysed (LD_DEBUG lists loads).
    mkdir -p proj/include
    printf 'import torch\nx = torch.zeros(3, device="cuda")\nfor i in range(9):\n    print(x.sum().item())\n' >proj/train.py
    write_train proj/unlisted.cpp
    printf 'inline int f() { return 1; }\n' >proj/include/api.h
    LD_DEBUG=files "$SYNCLINT" check proj >out 2>err; rc=$?
    expect_rc 1; expect_out "proj/train.py:4"
    ! grep -q "synclint_cxx_frontend\|libclang-cpp" err || fail "a Python project loaded the C++ front-end"
    write_db proj/build proj/unlisted.cpp -DSTEPS=3
    LD_DEBUG=files "$SYNCLINT" check proj >out 2>err; rc=$?
    expect_rc 1; expect_out "proj/unlisted.cpp:5:5"
    grep -q "synclint_cxx_frontend" err || fail "a listed C++ source did not load the C++ front-end"
    # A copy of the program without the module beside it: Python as before, C++ a clear error.
    rm proj/build/compile_commands.json
    mkdir bin && cp "$SYNCLINT" bin/synclint
    module=$(dirname "$SYNCLINT")/libsynclint_cxx_frontend.so
    SYNCLINT=bin/synclint
    run check proj; expect_rc 1; expect_out "proj/train.py:4"
    run check proj/unlisted.cpp -- -DSTEPS=3; expect_rc 2
    expect_err "C++ files need the C++ front-end, libsynclint_cxx_frontend.so, which is missing"
    expect_err "bin/libsynclint_cxx_frontend.so"; expect_err "lib/synclint/libsynclint_cxx_frontend.so"
    SYNCLINT_CXX_FRONTEND=$module run check proj/unlisted.cpp -- -DSTEPS=3; expect_rc 1
    expect_out "proj/unlisted.cpp:5:5"
    ;;
  nolint_forms)
    cat >s.cpp <<'CPP'
extern "C" int cudaDeviceSynchronize();
void f() { for (int i = 0; i < 9; ++i) {
  cudaDeviceSynchronize();  // NOLINT(synclint-SYNC007)
  cudaDeviceSynchronize();  // synclint: ignore[SYNC007]
  // NOLINTNEXTLINE(SYNC007)
  cudaDeviceSynchronize();
  // NOLINTBEGIN(synclint-SYNC007)
  cudaDeviceSynchronize();
  cudaDeviceSynchronize();
  // NOLINTEND(synclint-SYNC007)
  cudaDeviceSynchronize();
  const char* s = "// NOLINT(SYNC007)"; cudaDeviceSynchronize();
  int x = 0;  // NOLINT(SYNC001)
} }
CPP
    run check s.cpp --; expect_rc 1
    expect_out "s.cpp:11:3"; expect_out "s.cpp:12:41"; expect_out "s.cpp:13:15: warning: unused suppression for SYNC001"
    for l in 3 4 6 8 9; do expect_no_out "s.cpp:$l:"; done
    ;;
  quiet)
    write_train train.cpp
    printf 'int unused_fn(int a) { int b; return a; }\n' >>train.cpp
    run check train.cpp -- -DSTEPS=1 -Wunused-variable; expect_rc 1; expect_out "compiler warning: unused variable 'b'"
    run check --quiet train.cpp -- -DSTEPS=1 -Wunused-variable; expect_rc 1; expect_no_out "compiler warning"
    ;;
  formats)
    # Every output format carries the C++ finding: its rule, file and line.
    write_train train.cpp
    run check --format json train.cpp -- -DSTEPS=3; expect_rc 1; expect_out '"rule_id": "SYNC007"'; expect_out '"line": 5'
    run check --format sarif train.cpp -- -DSTEPS=3; expect_rc 1; expect_out '"ruleId": "SYNC007"'; expect_out '"startLine": 5'
    run check --format github train.cpp -- -DSTEPS=3; expect_rc 1; expect_out "::warning file=train.cpp,line=5"
    run check --format junit train.cpp -- -DSTEPS=3; expect_rc 1; expect_out "SYNC007"; expect_out "train.cpp:5"
    run check --statistics train.cpp -- -DSTEPS=3; expect_rc 1; expect_out "SYNC007"
    ;;
  cuda_unit)
    # A .cu unit with the CUDA runtime's own header parses cleanly (host side) where a toolkit is installed,
    # even one newer than Clang 19 knows; without a toolkit the case has nothing to check.
    if [[ ! -e /usr/local/cuda/include/cuda_runtime.h ]]; then echo "skipped: no CUDA toolkit in /usr/local/cuda"; exit 77; fi
    cat >k.cu <<'CPP'
#include <cuda_runtime.h>
__global__ void scale(float* x) { x[threadIdx.x] *= 2; }
int main() {
  float* p = nullptr;
  cudaMalloc(&p, 64);
  for (int i = 0; i < 3; ++i) {
    scale<<<1, 16>>>(p);
    cudaDeviceSynchronize();
  }
}
CPP
    run check k.cu -- -std=c++17; expect_rc 1; expect_out "k.cu:8:5"; expect_out "SYNC007"
    expect_no_out "error:"; expect_no_out "texture_fetch_functions"
    ;;
  *) fail "unknown case" ;;
esac
exit 0
