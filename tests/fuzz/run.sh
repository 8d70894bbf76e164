#!/usr/bin/env bash
# Runs one fuzz target on its committed corpus: tests/fuzz/run.sh TARGET SECONDS [BUILD_DIR]
# BUILD_DIR (default build-asan, `cmake --preset asan`) is a tree configured with -DSYNCLINT_FUZZ=ON and clang-19.
# The committed corpus (and, for python_file, fixtures/python, read as it is) is only read: new inputs go
# to BUILD_DIR/fuzz/TARGET/corpus, findings to
# BUILD_DIR/fuzz/TARGET/findings/ (crash-*, leak-*, timeout-*, oom-*). Prints the run's executions and exec/s
# and exits non-zero on any finding. Copies of one target may run at once on the same BUILD_DIR (they share
# its corpus) when each has its own FUZZ_JOB, which names its log.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="${1:?usage: run.sh TARGET SECONDS [BUILD_DIR]}"
seconds="${2:?usage: run.sh TARGET SECONDS [BUILD_DIR]}"
build="$(cd "${3:-$here/../../build-asan}" && pwd)"
exe="$build/tests/fuzz/${target}_fuzzer"
[[ -x "$exe" ]] || { echo "run.sh: $exe not built (cmake --build $build --target ${target}_fuzzer)" >&2; exit 2; }
work="$build/fuzz/$target"
mkdir -p "$work/corpus" "$work/findings"
seeds=("$here/corpus/$target")
[[ "$target" != python_file ]] || seeds+=("$here/../../fixtures/python")
dict=()
case "$target" in
  python_file | python_project) dict=(-dict="$here/python.dict") ;;
  config) dict=(-dict="$here/toml.dict") ;;
  probe_report | probe_stream | compile_db | lsp) dict=(-dict="$here/json.dict") ;;
esac
# Debian's LLVM/Clang libraries (compile_db reads through clang's JSON database) are not instrumented:
# their containers' annotations cannot be checked, so ASan's container-overflow check is off (see
# docs/reliability.md). Everything else is at ASan/UBSan defaults with leak detection on.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_container_overflow=0:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
log="$work/last${FUZZ_JOB:+-$FUZZ_JOB}.log"
set +e
# Inputs are capped at 4 KB: a Python input's cost grows with its length, and larger seeds are read cut to
# that length.
"$exe" "$work/corpus" "${seeds[@]}" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -max_len=4096 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/findings/" >"$log" 2>&1
rc=$?
set -e
units=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
echo "$target: ${units:-0} executions in ${seconds} s (${speed:-0} exec/s), exit $rc"
echo "$(date -u +%FT%TZ) $target seconds=$seconds executions=${units:-0} exec_per_s=${speed:-0} rc=$rc" >>"$build/fuzz/stats.txt"
if ((rc != 0)); then
  grep -E "ERROR: |runtime error|SUMMARY|Test unit written" "$log" | head -20 >&2
  echo "run.sh: $target found a problem; full log: $log" >&2
fi
exit "$rc"
