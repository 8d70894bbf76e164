#!/usr/bin/env bash
# The bundled LibTorch example through the C++ front-end, with fixed flags (`--`) and with a compilation
# database (`-p`): libtorch_example_test.sh SYNCLINT SOURCE_DIR TORCH_FLAGS...
# Its findings must be exactly those of tests/cli/libtorch_example.expected.
set -uo pipefail
SYNCLINT=$1
SRC=$2
shift 2
flags=("$@")
work=$(mktemp -d "${TMPDIR:-/tmp}/synclint-libtorch.XXXXXX")
trap 'rm -rf "$work"' EXIT
expected="$SRC/tests/cli/libtorch_example.expected"

# check_run NAME ARGS...: runs synclint from SRC and compares its findings with the expected list.
check_run() {
  local name=$1
  shift
  (cd "$SRC" && "$SYNCLINT" check "$@") >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  if [[ $rc -ne 1 ]]; then
    echo "FAIL [$name]: exit status $rc, expected 1 (findings)" >&2
    cat "$work/$name.out" "$work/$name.err" >&2
    exit 1
  fi
  python3 - "$expected" "$work/$name.out" "$name" <<'PY' || exit 1
import re, sys
expected_path, out_path, name = sys.argv[1:4]
want = []
for line in open(expected_path):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    m = re.fullmatch(r'(\d+):(\d+) (\w+) (SYNC\d+)(?: "(.*)")?', line)
    if not m:
        sys.exit(f"FAIL [{name}]: bad line in {expected_path}: {line}")
    want.append((int(m[1]), int(m[2]), m[3], m[4], m[5] or ""))
got = []
for line in open(out_path):
    m = re.match(r'(\S+):(\d+):(\d+): (warning|note|error): (.*) \[(SYNC\d+) [^\]]+\]$', line.rstrip("\n"))
    if m:
        if not m[1].endswith("examples/libtorch/train.cpp"):
            sys.exit(f"FAIL [{name}]: finding outside the example: {line.strip()}")
        got.append((int(m[2]), int(m[3]), m[4], m[6], m[5]))
errors = []
for w in want:
    hits = [g for g in got if g[:4] == w[:4] and w[4] in g[4]]
    if not hits:
        errors.append(f"missing: {w[0]}:{w[1]} {w[2]} {w[3]} \"{w[4]}\"")
for g in got:
    if not any(g[:4] == w[:4] and w[4] in g[4] for w in want):
        errors.append(f"unexpected: {g[0]}:{g[1]} {g[2]} {g[3]} {g[4]}")
if errors:
    print(f"FAIL [{name}]:", *errors, "--- output:", open(out_path).read(), sep="\n", file=sys.stderr)
    sys.exit(1)
print(f"ok [{name}]: {len(got)} findings")
PY
}

check_run fixed examples/libtorch/train.cpp -- "${flags[@]}"

# The same through a compilation database in a build folder, as CMake writes it; with SYNCLINT_TORCH_PCH
# (a precompiled <torch/torch.h>, built without -O2, which Clang checks), its entry includes that instead,
# which analyses the unit in about a fifth of the time.
mkdir -p "$work/build"
opt=(-O2)
[[ -z "${SYNCLINT_TORCH_PCH:-}" ]] || { flags+=(-include-pch "$SYNCLINT_TORCH_PCH"); opt=(); }
python3 - "$SRC/examples/libtorch/train.cpp" "$work/build" "${flags[@]}" "${opt[@]}" <<'PY'
import json, sys
source, build, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
entry = {"directory": build, "arguments": ["/usr/bin/c++", *flags, "-c", source, "-o", "train.o"],
         "file": source}
json.dump([entry], open(f"{build}/compile_commands.json", "w"), indent=2)
PY
check_run database -p "$work/build" examples/libtorch/train.cpp
