#!/usr/bin/env bash
# `check --costs` on C++ sources: the report of a recorded LibTorch run (runtime_probe/testdata/
# cpp-smoke.stream.json, through `probe analyze`) joined onto the C++ front-end's findings in its source.
#   cxx_costs_test.sh SYNCLINT SOURCE_DIR LIBTORCH_FLAGS...
set -uo pipefail
SYNCLINT=$1
cd "$2" || exit 1
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/synclint-cxx-costs.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$work/out" >&2 2>/dev/null; exit 1; }

"$SYNCLINT" probe analyze -o "$work/report.json" runtime_probe/testdata/cpp-smoke.stream.json >"$work/out" 2>&1 ||
  fail "probe analyze failed"
src=tests/probe_inject/gpu/cpp/smoke.cpp
"$SYNCLINT" check --format json --costs "$work/report.json" "$src" -- "$@" >"$work/out" 2>"$work/err"
rc=$?
[[ $rc -eq 1 ]] || fail "exit status $rc, expected 1 (findings)"
python3 - "$work/out" <<'PY' || fail "the costs were not joined as expected"
import json, sys
report = json.load(open(sys.argv[1]))
by_line = {f["line"]: f for f in report["findings"]}
norms = by_line.get(14)  # grad_norms: 28 recorded reads
assert norms and norms["rule_id"] == "SYNC001", by_line.keys()
assert norms["cost"]["calls"] == 28, norms.get("cost")
assert norms["cost"]["predicted_saving_ms"] > 0, norms["cost"]
sync = by_line.get(33)  # torch::cuda::synchronize every 10 steps: 4 recorded
assert sync and sync["rule_id"] == "SYNC007" and sync["cost"]["calls"] == 4, sync
never = by_line.get(38)  # a loop the recorded run never reached
assert never and never.get("cost") is None, never
PY
"$SYNCLINT" check --costs "$work/report.json" "$src" -- "$@" >"$work/out" 2>&1
grep -qF "cost: 28 calls" "$work/out" || fail "text output lacks the measured cost"
grep -qF "cost: never ran under the probe" "$work/out" || fail "text output lacks 'never ran'"
echo "ok"
