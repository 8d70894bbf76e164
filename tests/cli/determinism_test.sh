#!/usr/bin/env bash
# determinism_test.sh SYNCLINT: a file's findings do not depend on which other files are checked with it
# nor on -j. A training script whose device facts take four rounds to reach it (train.py -> a.py -> b.py ->
# c.py) is checked (1) with its imports only, (2) with 3 MB of unrelated files whose own rounds have many
# files to walk again (the budget that ends a group's rounds early), each with -j1 and -j2; the findings in
# train.py must be the same JSON every time, and must include the read that needs all four rounds.
set -uo pipefail
SYNCLINT=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/synclint-determinism.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail() { echo "FAIL [determinism]: $*" >&2; exit 1; }

python3 - <<'PY'
import os
os.makedirs("proj/bulk", exist_ok=True)
w = lambda path, text: open(path, "w").write(text)
w("proj/c.py", "import torch\n\ndef make():\n    return torch.zeros(4).cuda()\n")
w("proj/b.py", "import c\n\ndef build():\n    return c.make()\n")
w("proj/a.py", "import b\n\ndef stats():\n    return b.build().sum()\n")
w("proj/train.py", "import a\n\nfor step in range(100):\n    s = a.stats()\n    print(s.item())\n")
# Unrelated: 30 files of 100 KB that read a two-step chain, all walked again in the second round.
w("proj/bulk/base.py", "import torch\n\ndef g():\n    return torch.ones(2).cuda()\n")
w("proj/bulk/mid.py", "import base\n\ndef h():\n    return base.g()\n")
filler = "".join(f"def pad{i}(x):\n    y = x + {i}\n    return y\n\n" for i in range(2600))
for k in range(30):
    w(f"proj/bulk/user{k}.py", "import mid\n\n" + filler + "for i in range(10):\n    print(mid.h().item())\n")
PY

# The findings of train.py, paths made relative to proj/.
findings() { node -e '
  const r = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const f = r.findings.filter(x => x.path.endsWith("train.py")).map(x => { x.path = "train.py"; return x; });
  process.stdout.write(JSON.stringify(f, null, 1));'; }
ref=""
for j in 1 2; do
  for inputs in "proj/train.py proj/a.py proj/b.py proj/c.py" "proj"; do
    # shellcheck disable=SC2086
    "$SYNCLINT" check --format json -j$j $inputs >out.json 2>err; rc=$?
    [[ $rc -le 1 ]] || { cat err >&2; fail "exit status $rc for -j$j $inputs"; }
    got=$(findings <out.json) || fail "the report is not JSON"
    if [[ -z $ref ]]; then
      ref=$got
      grep -q '"SYNC001"' <<<"$ref" || fail "train.py's s.item() was not found: $ref"
    elif [[ $got != "$ref" ]]; then
      diff <(echo "$ref") <(echo "$got") >&2
      fail "train.py's findings differ with -j$j $inputs"
    fi
  done
done
echo "ok [determinism]"
