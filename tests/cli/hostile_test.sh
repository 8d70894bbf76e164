#!/usr/bin/env bash
# One end-to-end case of hostile input (docs/reliability.md, "Hostile input"): hostile_test.sh CASE
# SYNCLINT SOURCE_DIR. Inputs are generated here, scaled down to where the behaviour already shows; each
# case bounds the processor time of the runs it makes, so a hang or an exponential path fails it.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

case_name=$1
SYNCLINT=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/synclint-hostile.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

source "$here/case_lib.sh"
expect_no_crash() { [[ $rc -le 2 ]] || fail "exit status $rc: crashed or killed"; }
# run_cpu SECONDS ARGS...: run, with at most SECONDS of processor time (load on the machine does not count),
# times SYNCLINT_TEST_CPU_SCALE in a sanitized build.
run_cpu() {
  local limit=$(($1 * ${SYNCLINT_TEST_CPU_SCALE:-1}))
  shift
  (ulimit -t "$limit"; exec "$SYNCLINT" "$@") >out 2>err
  rc=$?
}
write_train() {
  printf 'import torch\n\nx = torch.zeros(4).cuda()\nfor step in range(100):\n    print(x.sum().item())\n' >"$1"
}
# repeat TEXT N: TEXT N times (TEXT holds no '%' or '\\').
repeat() { printf "$1%.0s" $(seq 1 "$2"); }

case "$case_name" in
  toml_nesting)
    # toml++ recursed once per dotted-key part or bracket: 60,000 crashed it (SIGSEGV).
    # Without our table, a vendored file is passed over (it does not mention us).
    mkdir vendored && write_train vendored/train.py
    { echo "[tool.other]"; repeat a. 60000; echo "a = 1"; } >vendored/pyproject.toml
    run_cpu 10 check vendored/train.py; expect_no_crash; expect_rc 1; expect_out "SYNC001"
    write_train train.py
    { echo "[tool.synclint]"; echo "select = [\"SYNC\"]"; echo "[tool.other]"; repeat a. 60000; echo "a = 1"; } >pyproject.toml
    run_cpu 10 check --format json train.py; expect_no_crash; expect_rc 2; expect_err "pyproject.toml:4: invalid TOML"
    expect_err "nest more than 128 levels deep"
    { echo "[tool.synclint]"; echo "select = [\"SYNC\"]"; printf 'x = '; repeat '{a=' 60000; printf 1; repeat '}' 60000; echo; } >pyproject.toml
    run_cpu 10 check train.py; expect_no_crash; expect_rc 2; expect_err "nest more than 128"
    # Ordinary nesting and strings holding brackets and dots are still read.
    printf '[tool.synclint]\n# [[[ { a.b.c.d\nselect = ["SYNC001"]  # ]]]\nhot-functions = ["a.b.c", "x[[[["]\n' >pyproject.toml
    run_cpu 10 check train.py; expect_rc 1; expect_out "SYNC001"
    ;;
  gitignore_stars)
    # Every "**" tried every split of the path again: 20 of them against 40 folders did not end in 60 s.
    git init -q . 2>/dev/null || true
    { repeat '**/' 24; echo zz; } >.gitignore
    deep=$(printf 'd%d/' $(seq 1 40)); mkdir -p "$deep"; write_train "$deep/train.py"
    run_cpu 10 check .; expect_no_crash; expect_rc 1; expect_out "SYNC001"
    ;;
  symlink_escape)
    # A link to "/" or into /proc walked the whole machine (every process's working folder among it).
    write_train train.py; ln -s / root; ln -s /proc proc; mkdir a; ln -s .. a/up; ln -s "$work" a/self
    run_cpu 20 check --format json .; expect_no_crash; expect_rc 1
    expect_err "root: symbolic link loop (points to a folder above it)"
    expect_err "proc: symbolic link into /proc, /sys or another kernel file system"
    [[ $(grep -c '"rule_id"' out) -eq 1 ]] || fail "only train.py's finding is expected"
    ;;
  per_file_ignores_many)
    # Each finding matched every per-file-ignores glob: 100,000 globs x 2,000 findings took 30 s of CPU.
    { echo "[per-file-ignores]"; printf '"gen/f%d/*.py" = ["SYNC001"]\n' $(seq 1 100000); } >.synclint.toml
    { printf 'import torch\nx = torch.zeros(4).cuda()\nfor step in range(100):\n'; repeat '    print(x.sum().item())
' 2000; } >train.py
    run_cpu 10 check --format json train.py; expect_no_crash; expect_rc 1
    [[ $(grep -c '"rule_id"' out) -eq 2000 ]] || fail "2,000 findings expected"
    ;;
  json_nesting)
    # nlohmann's dump recurses once per level: a deep value in a report field crashed its error message.
    write_train train.py
    deep="$(repeat '[' 100000)$(repeat ']' 100000)"
    printf '{"schema":"synclint-probe-report","version":1,"sites":[{"path":%s}]}' "$deep" >report.json
    printf '{"format":"synclint-probe-stream","version":1,"sites":[%s]}' "$deep" >stream.json
    run_cpu 10 check --costs report.json train.py; expect_no_crash; expect_rc 2; expect_err "nest more than 128 levels deep"
    run_cpu 10 probe report report.json; expect_no_crash; expect_rc 2; expect_err "nest more than 128 levels deep"
    run_cpu 10 probe merge -o merged.json report.json report.json; expect_no_crash; expect_rc 2
    run_cpu 10 probe analyze stream.json; expect_no_crash; expect_rc 2; expect_err "nest more than 128 levels deep"
    # A compilation database (its reader dumped the whole document again before clang read it).
    printf 'int main() { return 0; }\n' >m.cpp; printf '[%s]' "$deep" >compile_commands.json
    run_cpu 10 check m.cpp; expect_no_crash
    if ! grep -q "no cpp front-end" err; then expect_rc 2; expect_out "nest more than 128 levels deep"; fi
    ;;
  lsp_deep_message)
    # The language server echoes and logs parts of a message: one nested 100,000 deep crashed it.
    deep="$(repeat '[' 100000)$(repeat ']' 100000)"
    body="{\"jsonrpc\":\"2.0\",\"id\":$deep,\"method\":\"initialize\",\"params\":{}}"
    printf 'Content-Length: %d\r\n\r\n%s' "${#body}" "$body" >session.bin
    "$SYNCLINT" lsp <session.bin >out 2>err; rc=$?
    expect_no_crash; expect_out "the message body is not valid JSON"
    ;;
  report_many_sites)
    # A report is read site by site and refused past 1,000,000 sites (each read site takes ~300 bytes).
    write_train train.py
    { printf '{"schema":"synclint-probe-report","version":1,"sites":['; yes '{"path":"/a.py","line":1},' | head -n 1000000 | tr -d '\n'
      printf '{"path":"/b.py","line":2}]}'; } >report.json
    run_cpu 20 check --costs report.json train.py; expect_no_crash; expect_rc 2; expect_err "more than 1000000 sites"
    ;;
  parse_memory)
    # tree-sitter takes ~250 bytes per byte of a long line of list items: a file's parse has a memory limit.
    write_train train.py
    { printf 'x = ['; repeat '1, ' 330000; echo ']'; } >long_line.py
    export SYNCLINT_PARSE_MEMORY_MB=32
    run_cpu 20 check --format json long_line.py train.py; expect_no_crash; expect_rc 2
    expect_err "long_line.py: the parser gave up when its syntax tree passed 32 MB"; expect_out "SYNC001"
    SYNCLINT_PARSE_MEMORY_MB=512 run_cpu 20 check long_line.py; expect_rc 0
    ;;
  suppression_long_id)
    # A suppression comment naming a 20 MB "rule": the unknown id is not compared letter by letter with
    # every rule id and name for a "did you mean", and the message quotes its start and length.
    { printf 'x = 1  # synclint: ignore['; head -c 20000000 /dev/zero | tr '\0' A; echo ']'; } >garbage.py
    run_cpu 10 check garbage.py; expect_no_crash; expect_rc 1
    expect_out "suppression names unknown rule 'AAAA"; expect_out "...' (20000000 bytes)"
    (($(wc -c <out) < 100000)) || fail "$(wc -c <out) bytes of output for one finding"
    ;;
  *)
    echo "unknown case: $case_name" >&2
    exit 2
    ;;
esac
exit 0
