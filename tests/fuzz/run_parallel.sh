#!/usr/bin/env bash
# Runs several fuzz targets at once, each in one or more copies sharing its corpus, on a machine with cores
# to spare: tests/fuzz/run_parallel.sh BUILD_DIR SECONDS TARGET:COPIES...
# e.g. run_parallel.sh build-asan 900 python_file:4 lsp:3 suppressions:1
# Each copy is one run.sh run (FUZZ_JOB=1..COPIES), so BUILD_DIR/fuzz/stats.txt gets one line per copy.
# Exits non-zero if any copy found a problem.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:?usage: run_parallel.sh BUILD_DIR SECONDS TARGET:COPIES...}"
seconds="${2:?usage: run_parallel.sh BUILD_DIR SECONDS TARGET:COPIES...}"
shift 2
(($# > 0)) || { echo "run_parallel.sh: no TARGET:COPIES given" >&2; exit 2; }
pids=()
for spec in "$@"; do
  target="${spec%%:*}"
  copies="${spec#*:}"
  [[ "$spec" == *:* && "$copies" =~ ^[1-9][0-9]*$ ]] || { echo "run_parallel.sh: '$spec' is not TARGET:COPIES" >&2; exit 2; }
  for ((job = 1; job <= copies; job++)); do
    FUZZ_JOB="$job" "$here/run.sh" "$target" "$seconds" "$build" & pids+=($!)
  done
done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
exit "$failed"
