#!/usr/bin/env bash
# ThreadSanitizer over synclint's threads (docs/reliability.md, "ThreadSanitizer"): builds synclint, the
# probe library and the stand-in CUPTI tests with clang-19 -fsanitize=thread in BUILD (default build-tsan),
# then runs `check -j2` and `check -j4` over fixtures/ and the torch corpus, the language server's tests,
# and the probe's injection tests that play worker threads (the fault-injection matrix, the window thread's
# switching, 64 launching threads). Every ThreadSanitizer report lands in BUILD/tsan-logs; the script
# prints how many there were and exits 1 if there was any.
#
#   tests/tsan/run.sh [BUILD]      (TORCH=DIR picks the corpus; NODE_MODULES=DIR the tree-sitter sources)
set -u
cd "$(dirname "$0")/../.."
build=${1:-build-tsan}
torch=${TORCH:-/usr/lib/python3/dist-packages/torch}
node_modules=${NODE_MODULES:-$PWD/node_modules}
[ -d "$node_modules" ] || node_modules=/work/main/node_modules
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
start=$(date +%s)
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-19 \
  -DCMAKE_CXX_COMPILER=clang++-19 -DSYNCLINT_TSAN=ON -DSYNCLINT_CXX=OFF -DSYNCLINT_TORCH_OPS=OFF \
  -DSYNCLINT_NODE_MODULES="$node_modules" "${launcher[@]}" >"$build-configure.log" 2>&1 \
  || { cat "$build-configure.log"; exit 2; }
rm -f "$build-configure.log"
cmake --build "$build" -j"${JOBS:-2}" --target synclint probe_fault_tests probe_inject_tests \
  || exit 2
built=$(date +%s)
logs=$PWD/$build/tsan-logs
rm -rf "$logs" && mkdir -p "$logs"
# handle_segv=0: a program that dies of SIGSEGV (a fault-injection case) dies as it would unsanitized.
export TSAN_OPTIONS="log_path=$logs/tsan second_deadlock_stack=1 exitcode=66 handle_segv=0 ${TSAN_OPTIONS:-}"
exe=$build/tools/synclint/synclint
failed=0
step() {  # name, command...: runs it, says how long it took and how it ended
  local name=$1 t0 rc
  shift
  t0=$(date +%s)
  "$@" >"$logs/$name.out" 2>&1
  rc=$?
  echo "$name: exit $rc, $(( $(date +%s) - t0 )) s"
}
for j in 2 4; do
  step "check-fixtures-j$j" "$exe" check -j$j --format json fixtures/
  [ -d "$torch" ] && step "check-torch-j$j" "$exe" check -j$j --format json "$torch"
done
for c in stdin_closes rapid_edits config_reload probe_reload transcript; do
  step "lsp-$c" python3 tests/lsp/stdio_test.py "$exe" $c
done
step probe-fault "$build/tests/probe_inject/probe_fault_tests"
# The injection tests that run the probe's own threads against played programs; the Python one loads the
# probe into an interpreter that has no ThreadSanitizer runtime, and the timing assertions of the others
# do not hold at ThreadSanitizer's pace.
step probe-inject "$build/tests/probe_inject/probe_inject_tests" \
  --gtest_filter='Injection.*:Recorder*:Sampling*:-*Python*'
reports=$(cat "$logs"/tsan.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer')
echo "build $(( built - start )) s, runs $(( $(date +%s) - built )) s; ThreadSanitizer reports: $reports (in $logs)"
[ "$reports" -eq 0 ] || failed=1
exit $failed
