# Helpers of the end-to-end shell cases (sourced after `cd` into the case's scratch folder, with
# $case_name and $SYNCLINT set): run synclint, then check its status and output.
fail() { echo "FAIL [$case_name]: $*" >&2; echo "--- stdout:" >&2; cat out >&2 2>/dev/null; echo "--- stderr:" >&2; cat err >&2 2>/dev/null; exit 1; }

# run ARGS...: runs synclint with stdout in ./out, stderr in ./err, status in $rc.
run() { "$SYNCLINT" "$@" >out 2>err; rc=$?; }
expect_rc() { [[ $rc -eq $1 ]] || fail "exit status $rc, expected $1"; }
expect_out() { grep -qF -- "$1" out || fail "stdout lacks: $1"; }
expect_err() { grep -qF -- "$1" err || fail "stderr lacks: $1"; }
expect_no_out() { ! grep -qF -- "$1" out || fail "stdout should not contain: $1"; }
