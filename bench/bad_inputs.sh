#!/usr/bin/env bash
# usage: [BUILD=build] [BEFORE=path/to/older/synclint] bench/bad_inputs.sh
# The bad-input table of docs/reliability.md: each hostile input is generated here, checked with
# `synclint check --format json -j2`, and its wall time, peak memory (GNU time) and exit status printed as
# a markdown row (with BEFORE, the same for an older binary too). Exit 2 is a per-file error; above 2, a crash.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
BEFORE=${BEFORE:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/synclint-bad.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 - "$work" <<'PY'
import os, sys
w = sys.argv[1]
def put(name, text, mode="w"):
    os.makedirs(os.path.join(w, name), exist_ok=True)
    with open(os.path.join(w, name, "input.py"), mode, newline="" if mode == "w" else None) as f:
        f.write(text)
put("indent511", 'x = "open\n' + "".join(" " * i + "if x:\n" for i in range(511)) + " " * 511 + "pass\n")
e = "x"
for _ in range(40):
    e = 'f"{' + e + '}"'
put("fstring40", "y = " + e + "\n")
put("recovery20000", "x = (" + "for i in y: " * 20000 + "\n")
put("parens5000", "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
put("calls200", "import torch\nx = torch.zeros(1).cuda()\nfor i in range(9):\n    y = " + "f(" * 200 + "x.item()" + ")" * 200 + "\n")
put("cr_only", "import torch\rx = torch.zeros(1).cuda()\rfor i in range(3):\r    print(x.item())\r")
put("star_tuple", "x = a, *[b]\ny = a, *()\nz = *[], a\n")
put("utf16", "x = 1\n".encode("utf-16"), "wb")
put("long_line", "x = [" + "1, " * 300_000 + "]\n")
PY
mkdir -p "$work/vendored/lib" && printf '[project\n' >"$work/vendored/pyproject.toml" && cp "$work/cr_only/input.py" "$work/vendored/lib/"
python3 bench/damaged_gen.py /usr/lib/python3/dist-packages/torch "$work/damaged1000" 1000 1 2>/dev/null ||
  python3 bench/damaged_gen.py fixtures "$work/damaged1000" 1000 1
measure() {  # BINARY DIR -> "time s, MB, exit N"
  /usr/bin/time -f "%e %M" -o "$work/t" timeout 300 "$1" check --format json -j2 "$2" >/dev/null 2>&1
  local rc=$? s kb; read -r s kb < <(tail -n 1 "$work/t") || { s=?; kb=0; }
  echo "$s s, $((kb / 1024)) MB, exit $rc"
}
echo "| input | after | before |"
echo "|---|---|---|"
for c in indent511 fstring40 recovery20000 parens5000 calls200 cr_only star_tuple utf16 long_line vendored damaged1000; do
  echo "| $c | $(measure "$BUILD/tools/synclint/synclint" "$work/$c") | $([[ -n $BEFORE ]] && measure "$BEFORE" "$work/$c") |"
done
