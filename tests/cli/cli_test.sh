#!/usr/bin/env bash
# One end-to-end case of the synclint command line: cli_test.sh CASE SYNCLINT SOURCE_DIR.
# Each case works in its own scratch folder and fails with a message saying what differed.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

case_name=$1
SYNCLINT=$2
SRC=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/synclint-cli.XXXXXX")
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1

source "$here/case_lib.sh"
# Bad input must give a status, never a signal (crash) or a timeout.
expect_no_crash() { [[ $rc -le 2 ]] || fail "exit status $rc: crashed or killed"; }
expect_json() { node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$1" || fail "$1 is not JSON"; }

write_train() {
  cat >"$1" <<'PY'
import torch

model = torch.nn.Linear(4, 2).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(100):
    x = torch.randn(8, 4, device="cuda")
    loss = model(x).sum()
    loss.backward()
    opt.step()
    print(loss.item())
PY
}
write_clean() { printf 'import torch\n\n\ndef add(a, b):\n    return a + b\n' >"$1"; }

case "$case_name" in
  version)
    run --version; expect_rc 0; expect_out "synclint "
    ;;
  help_lists_commands)
    run --help; expect_rc 0
    for c in check rules explain config; do expect_out "$c"; done
    run check --help; expect_rc 0; expect_out "--min-severity"; expect_out "--format"
    ;;
  clean_exit_zero)
    write_clean ok.py; run check ok.py; expect_rc 0; expect_no_out "warning:"
    ;;
  findings_exit_one)
    write_train train.py; run check train.py; expect_rc 1
    expect_out "train.py:10:"; expect_out "warning:"; expect_out "SYNC001"
    ;;
  exit_zero)
    write_train train.py; run check --exit-zero train.py; expect_rc 0; expect_out "SYNC001"
    ;;
  min_severity)
    write_train train.py
    run check --min-severity error train.py; expect_rc 0; expect_no_out "warning:"
    run check --min-severity warning train.py; expect_rc 1; expect_out "SYNC001"
    # The example's batched logging style is a periodic note (SYNC002); the other styles are warnings.
    run check --min-severity note "$SRC/examples/cnn_logging/train.py"; expect_rc 1; expect_out "note: \`stats.tolist()\`"
    run check --min-severity warning "$SRC/examples/cnn_logging/train.py"; expect_rc 1; expect_no_out "SYNC002"
    ;;
  statistics)
    write_train train.py; run check --statistics train.py; expect_rc 1
    expect_out "SYNC001"; expect_out "tensor-item"; expect_no_out "train.py:10:"
    ;;
  format_text)
    write_train train.py; run check --format text --color never train.py; expect_rc 1
    expect_out "train.py:10:"; expect_out "^"   # the caret line under the source
    ;;
  format_json)
    write_train train.py; run check --format json train.py; expect_rc 1; expect_json out
    expect_out '"SYNC001"'
    ;;
  format_sarif)
    write_train train.py; run check --format sarif train.py; expect_rc 1; expect_json out
    expect_out '"2.1.0"'; expect_out '"ruleId"'
    ;;
  format_github)
    write_train train.py; run check --format github train.py; expect_rc 1; expect_out "::warning file=train.py,line=10"
    ;;
  format_junit)
    write_train train.py; run check --format junit train.py; expect_rc 1; expect_out "<?xml"; expect_out "<testsuites"
    ;;
  output_file)
    write_train train.py
    run check --format json -o report.json train.py; expect_rc 1
    [[ ! -s out ]] || fail "stdout should be empty with -o"
    expect_json report.json
    grep -qF '"SYNC001"' report.json || fail "report.json lacks the finding"
    [[ $(ls -A | grep -c '^\.report\.json\.') -eq 0 ]] || fail "a temporary file was left behind"
    # -o replaces an existing file.
    write_clean train.py; run check --format json -o report.json train.py; expect_rc 0
    ! grep -qF '"SYNC001"' report.json || fail "report.json was not replaced"
    ;;
  output_special)
    # Only a regular file is replaced (atomically, keeping its mode, through a symbolic link); a device, a
    # FIFO or a pipe is written in place.
    write_train train.py
    echo old >private.json; chmod 600 private.json
    run check --format json -o private.json train.py; expect_rc 1
    [[ $(stat -c %a private.json) == 600 ]] || fail "-o changed the mode of a 0600 file"
    echo old >target.json; ln -s target.json link.json
    run check --format json -o link.json train.py; expect_rc 1
    [[ -L link.json ]] || fail "-o replaced the symbolic link"; grep -qF '"SYNC001"' target.json || fail "the link's target was not written"
    ln -s /dev/null devnull
    run check --format json -o devnull train.py; expect_rc 1; [[ -c /dev/null ]] || fail "/dev/null is no longer a device"
    "$SYNCLINT" check --format json -o /dev/stdout train.py >piped.json 2>err; expect_json piped.json
    echo '# kept' >appended.txt; "$SYNCLINT" check --format json -o /dev/stdout train.py >>appended.txt 2>err
    [[ $(head -n 1 appended.txt) == "# kept" ]] || fail "-o /dev/stdout with >> replaced the file"
    grep -qF '"SYNC001"' appended.txt || fail "-o /dev/stdout with >> wrote nothing"
    mkfifo fifo.json; (cat fifo.json >from_fifo.json) & reader=$!
    run check --format json -o fifo.json train.py; expect_rc 1; wait $reader
    [[ -p fifo.json ]] || fail "the FIFO was replaced"; grep -qF '"SYNC001"' from_fifo.json || fail "nothing came through the FIFO"
    "$SYNCLINT" check --format json -o >(cat >substituted.json) train.py 2>err; sleep 0.5
    grep -qF '"SYNC001"' substituted.json || fail "-o >(cmd) did not write to the process"
    for s in "$SRC"/runtime_probe/testdata/python-smoke.stream.json; do
      run probe analyze -o /dev/null "$s"; expect_rc 0; [[ -c /dev/null ]] || fail "probe analyze -o replaced /dev/null"
      echo old >report.json; chmod 640 report.json; run probe analyze -o report.json "$s"; expect_rc 0
      [[ $(stat -c %a report.json) == 640 ]] || fail "probe analyze -o changed the mode"; expect_json report.json
    done
    ;;
  output_unwritable)
    write_train train.py; run check -o missing-dir/report.txt train.py; expect_rc 2
    expect_err "synclint: error: cannot write missing-dir/report.txt"
    ;;
  color)
    write_train train.py
    run check --color always train.py; expect_rc 1; grep -q $'\033\\[' out || fail "no ANSI colour with --color always"
    NO_COLOR=1 run check --color auto train.py; ! grep -q $'\033\\[' out || fail "colour although stdout is not a TTY"
    run check --color sometimes train.py; expect_rc 2; expect_err "--color"
    ;;
  bad_format)
    write_clean ok.py; run check --format jsn ok.py; expect_rc 2
    expect_err "synclint: error: unknown output format 'jsn' (did you mean 'json'?)"
    ;;
  bad_option)
    run check --frobnicate; expect_rc 2; expect_err "synclint: error:"; expect_err "frobnicate"
    run; expect_rc 2; expect_err "synclint: error:"
    ;;
  bad_severity)
    write_clean ok.py; run check --min-severity warn ok.py; expect_rc 2
    expect_err "unknown severity 'warn' (did you mean"
    ;;
  missing_path)
    write_train train.py; run check --format json train.py no/such/file.py; expect_rc 2
    expect_err "no/such/file.py"; expect_err "no such file or directory"
    expect_out '"SYNC001"'   # the rest is still checked
    ;;
  bad_config)
    write_clean ok.py; printf 'selct = ["SYNC001"]\n' >bad.toml
    run check --config bad.toml ok.py; expect_rc 2
    expect_err "synclint: error:"; expect_err "selct"; expect_err "did you mean 'select'"
    run check --config none.toml ok.py; expect_rc 2; expect_err "none.toml"
    ;;
  config_robust)
    # A vendored pyproject.toml that is not TOML and has no synclint table is passed over (listed by
    # `synclint config`); one that mentions synclint stops the run; `select = []` and an unclosed '[' in
    # a glob are errors.
    mkdir -p vendored/lib; write_train vendored/lib/train.py; printf '[project\nname = "x"\n' >vendored/pyproject.toml
    run check --format json .; expect_rc 1; expect_out '"SYNC001"'
    run config vendored/lib; expect_rc 0; expect_out "vendored/pyproject.toml: skipped, not valid TOML"
    printf '[tool.synclint\nselect = ["SYNC001"]\n' >vendored/pyproject.toml
    run check .; expect_rc 2; expect_err "pyproject.toml"
    rm vendored/pyproject.toml; write_clean ok.py
    printf 'select = []\n' >empty.toml; run check --config empty.toml ok.py; expect_rc 2; expect_err "'select': is empty"
    printf 'exclude = ["[abc"]\n' >glob.toml; run check --config glob.toml ok.py; expect_rc 2
    expect_err "invalid glob '[abc'"
    printf '[per-file-ignores]\n"src/[ab.py" = ["SYNC001"]\n' >pfi.toml; run check --config pfi.toml ok.py; expect_rc 2
    expect_err "invalid glob 'src/[ab.py'"
    printf 'exclude = ["[ab]c", "[]x]", "[!a]"]\n' >good.toml; run check --config good.toml ok.py; expect_rc 0
    ;;
  select_override)
    write_train train.py; printf 'ignore = ["SYNC001"]\n' >.synclint.toml
    run check train.py; expect_no_out "SYNC001"
    run check --select SYNC001 train.py; expect_rc 1; expect_out "SYNC001"
    run check --ignore SYNC0 train.py; expect_rc 0
    ;;
  unknown_select)
    write_clean ok.py; run check --select SYNC999 ok.py; expect_rc 2; expect_err "unknown rule 'SYNC999'"
    ;;
  explain_unknown)
    run explain SYNC001; expect_rc 0; expect_out "SYNC001"
    run explain SYNC999; expect_rc 2; expect_err "SYNC999"
    ;;
  syntax_error_rest_checked)
    write_train train.py; printf 'def broken(:\n    pass\n' >broken.py
    run check --color never .; expect_rc 2
    expect_out "broken.py"; expect_out "train.py:10:"   # the other file is still checked
    ;;
  binary_file)
    write_train train.py; printf 'x = 1\0\0\0\n' >blob.py; printf '\0\1\2' >data.bin
    run check --format json .; expect_rc 2; expect_err "blob.py"; expect_err "binary"; expect_out '"SYNC001"'
    run check data.bin; expect_rc 2; expect_out "data.bin"; expect_out "binary"
    ;;
  invalid_utf8)
    printf "name = 'caf\xe9'\n" >latin1.py; run check --format json latin1.py; expect_rc 2; expect_err "invalid UTF-8"
    ;;
  big_file)
    # About 20 MB of ordinary code, generated here rather than committed.
    { echo "import torch"; for i in $(seq 1 2000); do echo "def f$i(x):"; echo "    y = x + $i"; echo "    return y"; done; } >chunk.txt
    : >big.py; while [[ $(stat -c %s big.py) -lt 20000000 ]]; do cat chunk.txt >>big.py; done
    run check --format json big.py; expect_no_crash
    [[ $rc -ne 2 ]] || fail "a 20 MB file is not an error (limit 64 MB)"
    ;;
  deep_nesting)
    { printf 'x = '; printf '(%.0s' $(seq 1 5000); printf '1'; printf ')%.0s' $(seq 1 5000); echo; } >deep.py
    { printf 'y = '; printf '[%.0s' $(seq 1 5000); printf ']%.0s' $(seq 1 5000); echo; } >deep_list.py
    { printf 'z = '; printf 'f(%.0s' $(seq 1 5000); printf '1'; printf ')%.0s' $(seq 1 5000); echo; } >deep_call.py
    { printf 'w = 1'; printf ' + 1%.0s' $(seq 1 50000); echo; } >long_sum.py
    # 5,000 nested blocks, one space of indentation each.
    { echo 'import torch'; echo 'for i in range(3):'
      for d in $(seq 1 5000); do printf '%*sif i:\n' "$d" ''; done; printf '%*sprint(i)\n' 5001 ''; } >deep_blocks.py
    write_train train.py
    run check --format json .; expect_no_crash; expect_out '"SYNC001"'
    ;;
  deep_indent_after_string)
    # An unterminated string, then 511 to 600 nested blocks: tree-sitter-python's scanner state outgrows its
    # 1024-byte buffer. No crash, and the other files are still checked.
    for n in 480 511 520 600; do
      { echo 'x = "open'; for ((i = 0; i < n; i++)); do printf '%*sif x:\n' "$i" ''; done; printf '%*spass\n' "$n" ''; } >deep$n.py
    done
    write_train train.py
    run check --format json .; expect_no_crash; expect_out '"SYNC001"'
    ;;
  parser_budget)
    # Nested f-strings 60 deep are checked at once; 20,000 broken `for` headers on one line (quadratic in
    # tree-sitter's error recovery) end with a per-file error within its budget.
    python3 - <<'PY'
e = "x"
for _ in range(60):
    e = 'f"{' + e + '}"'
open("fstrings.py", "w").write("y = " + e + "\n")
open("recovery.py", "w").write("x = (" + "for i in y: " * 20000 + "\n")
PY
    write_train train.py
    start=$(date +%s); run check --format json .; expect_rc 2; expect_out '"SYNC001"'
    expect_err "recovery.py: the parser gave up after"; ! grep -q "fstrings.py" err || fail "fstrings.py is valid"
    (($(date +%s) - start < 40)) || fail "the run took more than 40 s"
    ;;
  python_syntax_edges)
    # CR-only line endings; unpacking stars tree-sitter-python rejects; errors at the broken token, once,
    # with invisible characters named; UTF-16 named as such.
    printf 'import torch\rx = torch.zeros(1).cuda()\rfor i in range(3):\r    print(x.item())\r' >cr.py
    run check --format json cr.py; expect_rc 1; expect_out '"line": 4'
    printf 'x = a, *[b]\ny = a, *()\nz = *[], a\nhost, *rest = z, *[]\nw = a *[b]\n' >stars.py
    run check stars.py; expect_rc 0
    printf 'def f():\n    x = (for i in y: for i in y)\n    return 1\n' >paren.py
    run check paren.py; expect_rc 2; expect_out "paren.py:2:10: error: syntax error: unexpected 'for'"
    # A bracket left open and a dot that ends its line: errors at their place, and the rest is checked.
    printf 'import torch\ndef f(x):\n    y = g(x\n    s = x.\n    for i in range(3):\n        x.cuda().item()\n' >open.py
    run check open.py; expect_rc 2; expect_out "open.py:3:10: error: syntax error: '(' was never closed"
    expect_out "open.py:4:10: error: syntax error: expected a name after '.'"; expect_out "open.py:6:9: warning"

    printf 'if x\n    pass\n' >colon.py; run check colon.py; expect_rc 2; expect_out "colon.py:1:5: error: syntax error: expected ':'"
    printf 'x = 1\xc2\xa0+ 2\n' >nbsp.py; run check nbsp.py; expect_rc 2
    expect_out "nbsp.py:1:6: error: syntax error: invalid character U+00A0"
    [[ $(grep -c "nbsp.py:1:6" out) -eq 1 ]] || fail "the error is reported more than once"
    printf '\xff\xfex\0 \0=\0 \x001\0\n\0' >utf16.py; printf 'x\0 \0=\0 \x001\0\n\0' >utf16_no_bom.py
    run check utf16.py utf16_no_bom.py; expect_rc 2; expect_out "utf16.py: error: the file is UTF-16 (little-endian)"
    expect_out "utf16_no_bom.py: error: the file is UTF-16 (little-endian)"; expect_no_out "binary"
    ;;
  depth_limit_note)
    # A read nested 200 calls deep is past the walk's depth limit: a per-file note says so; 50 deep is checked.
    for d in 50 200; do
      { echo 'import torch'; echo 'x = torch.zeros(1).cuda()'; echo 'for i in range(9):'
        printf '    y = '; printf 'f(%.0s' $(seq 1 $d); printf 'x.item()'; printf ')%.0s' $(seq 1 $d); echo; } >nest$d.py
    done
    run check --format json nest50.py; expect_rc 1; expect_out '"SYNC001"'; expect_no_out "nested more than"
    run check --format json nest200.py; expect_no_crash; expect_err "nest200.py:4:1: expressions here are nested more than 180 levels"
    ;;
  fifo_path)
    # Tests run as root, and root reads mode-000 files; a FIFO is a path that really cannot be checked
    # (and that would block a naive reader forever).
    mkfifo pipe.py; run check pipe.py; expect_rc 2; expect_out "not a regular file"
    ;;
  symlink_loop)
    write_train train.py; mkdir -p a/b; ln -s .. a/b/up; ln -s self.py self.py
    run check --format json .; expect_no_crash; expect_rc 1; expect_err "symbolic link loop"
    ;;
  dangling_symlink)
    write_clean ok.py; ln -s nowhere.py gone.py
    run check --format json .; expect_rc 0; expect_err "gone.py"; expect_err "dangling"
    run check gone.py; expect_rc 2
    ;;
  folder_named_py)
    mkdir pkg.py; write_train pkg.py/inner.py; run check pkg.py; expect_rc 1; expect_out "pkg.py/inner.py:10:"
    ;;
  no_files)
    mkdir empty; run check empty; expect_rc 0
    ;;
  *)
    echo "unknown case $case_name" >&2; exit 1
    ;;
esac
echo "ok [$case_name]"
