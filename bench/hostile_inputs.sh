#!/usr/bin/env bash
# usage: [BUILD=build] [ONLY=REGEX] bench/hostile_inputs.sh
# The "Hostile input" table of docs/reliability.md: each input is generated in a temporary folder (fixed
# seed; several GB of disk for the largest), the command run on it under GNU time, and one markdown row
# printed: case, command, exit status, wall time, peak resident memory and the first message. Needs
# python3 and about 4 GB of free memory. ONLY limits the run to the cases whose name matches.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ONLY=${ONLY:-.}
SYNCLINT=$(realpath "$BUILD/tools/synclint/synclint")
work=$(mktemp -d "${TMPDIR:-/tmp}/synclint-hostile.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

gen() {  # gen CASE: writes the input of CASE under $work/CASE
  python3 - "$1" <<'PY'
import json, os, random, sys
case = sys.argv[1]
random.seed(1)
os.makedirs(case, exist_ok=True)
os.chdir(case)
def train(path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        f.write("import torch\nx = torch.zeros(4).cuda()\nfor step in range(100):\n    print(x.sum().item())\n")
MB = 1_000_000
if case == "line50m":
    with open("line.py", "w") as f:
        f.write("x = [")
        f.write("1, " * (50 * MB // 3))
        f.write("]\n")
elif case == "lines50m":
    chunk = "".join("def f%d(x):\n    y = x + %d\n    return y\n" % (i, i) for i in range(2000))
    with open("lines.py", "w") as f:
        f.write("import torch\n")
        while f.tell() < 50 * MB:
            f.write(chunk)
elif case == "files100k":
    os.makedirs("many")
    for i in range(100_000):
        with open("many/f%06d.py" % i, "w") as f:
            f.write("import torch\n\ndef f%d(x):\n    return x.sum() + %d\n" % (i, i))
    train("many/train.py")
elif case == "symlinks":
    train("farm/train.py")
    os.makedirs("farm/a")
    os.symlink("/", "farm/root")
    os.symlink("/proc", "farm/proc")
    os.symlink("..", "farm/a/up")
    os.symlink("loop2", "farm/loop1")
    os.symlink("loop1", "farm/loop2")
    os.symlink("nowhere.py", "farm/dangling.py")
    with open("huge.bin", "wb") as f:
        f.truncate(10 << 30)  # sparse: 10 GiB that take no disk
    os.symlink(os.path.abspath("huge.bin"), "farm/huge.py")
    os.symlink("/dev/zero", "farm/zero.py")
elif case == "pyproject10m":
    train("train.py")
    with open("pyproject.toml", "w") as f:
        f.write('[tool.synclint]\nselect = ["SYNC"]\n[tool.other]\n')
        i = 0
        while f.tell() < 10 * MB:
            f.write('k%d = "%s"\n' % (i, "x" * random.randint(10, 80)))
            i += 1
elif case == "toml_deep":
    train("train.py")
    with open("pyproject.toml", "w") as f:
        f.write('[tool.synclint]\nselect = ["SYNC"]\n[tool.other]\n' + "a." * 100_000 + "a = 1\n")
elif case == "toml_deep_arrays":
    train("train.py")
    with open("pyproject.toml", "w") as f:
        f.write('[tool.synclint]\nselect = ' + "[" * 10_000 + "]" * 10_000 + "\n")
elif case == "pfi1m":
    with open(".synclint.toml", "w") as f:
        f.write("[per-file-ignores]\n")
        for i in range(1_000_000):
            f.write('"gen/f%d/*.py" = ["SYNC001"]\n' % i)
    with open("train.py", "w") as f:
        f.write("import torch\nx = torch.zeros(4).cuda()\nfor step in range(100):\n")
        f.write("    print(x.sum().item())\n" * 200)
elif case == "report10m":
    train("train.py")
    with open("report.json", "w") as f:
        f.write('{"schema":"synclint-probe-report","version":1,"run":{"wall_ms":1000},"sites":[\n')
        for start in range(0, 10_000_000, 100_000):
            f.write(",\n".join('{"path":"/w/m%d.py","line":%d,"api":"cudaStreamSynchronize","calls":3}' % (i % 1000, i)
                               for i in range(start, start + 100_000)))
            f.write(",\n" if start + 100_000 < 10_000_000 else "]}\n")
elif case == "report_deep":
    train("train.py")
    n = 100_000
    with open("report.json", "w") as f:
        f.write('{"schema":"synclint-probe-report","version":1,"sites":[{"path":' + "[" * n + "]" * n + "}]}")
    with open("stream.json", "w") as f:
        f.write('{"format":"synclint-probe-stream","version":1,"sites":[' + "[" * n + "]" * n + "]}")
elif case == "stream200m":
    # 2.6 M host calls (a sync after every three launches) and the 1.95 M kernels they queue: 200 MB.
    n = 2_600_000
    with open("stream.json", "w") as f:
        f.write('{"format":"synclint-probe-stream","version":1,"run_start_ns":1000,"run_end_ns":%d,\n' % (n * 10_000 + 11_000))
        f.write('"sites":[["/w/train.py",12,"train_step","python"],["/w/train.py",20,"log","python"]],\n"host":[')
        for start in range(0, n, 100_000):
            f.write(",".join('\n  [%d,%d,0,%d,%s]' % (1000 + i * 10_000, 4000 + i * 10_000, i + 1,
                             '"launch","cudaLaunchKernel",0' if i % 4 else '"stream_sync","cudaStreamSynchronize",1')
                             for i in range(start, start + 100_000)) + ("," if start + 100_000 < n else ""))
        f.write('\n],\n"gpu":[')
        kernels = [i for i in range(n) if i % 4]
        f.write(",".join('\n  [%d,%d,0,7,%d,"kernel","void gemm_kernel<float>(float*, int)"]' %
                         (5000 + i * 10_000, 10_000 + i * 10_000, i + 1) for i in kernels))
        f.write('\n]}\n')
elif case == "cdb100m":
    d = os.getcwd()
    with open("m.cpp", "w") as f:
        f.write("int main() { return 0; }\n")
    with open("compile_commands.json", "w") as f:
        f.write("[\n" + json.dumps({"directory": d, "file": d + "/m.cpp", "arguments": ["clang++", "-c", "m.cpp"]}))
        i = 0
        while f.tell() < 100 * MB:
            f.write(",\n" + json.dumps({"directory": d, "file": "%s/gen/f%d.cpp" % (d, i),
                                         "arguments": ["clang++", "-O2", "-DX=%d" % i, "-Iinclude", "-c", "gen/f%d.cpp" % i]}))
            i += 1
        f.write("\n]\n")
elif case == "cdb_deep":
    with open("m.cpp", "w") as f:
        f.write("int main() { return 0; }\n")
    with open("compile_commands.json", "w") as f:
        f.write("[" + "[" * 100_000 + "]" * 100_000 + "]")
elif case == "ignore50m":
    with open("garbage.py", "w") as f:
        f.write("x = 1  # synclint: ignore[" + "A" * (50 * MB) + "]\n")
elif case == "finding50m":
    with open("wide.py", "w") as f:
        f.write("import torch\nx = torch.zeros(4).cuda()\nfor step in range(100):\n")
        f.write("    print(x.sum().item())  # " + "#" * (50 * MB) + "\n")
elif case == "findings_line":
    with open("line.py", "w") as f:
        f.write("import torch\nx = torch.zeros(1).cuda()\nfor i in range(3):\n")
        f.write("    " + ";".join(["x.item()"] * 20000) + "\n")
elif case == "lsp50m":
    text = open("../lines50m/lines.py").read() if os.path.exists("../lines50m/lines.py") else "x = 1\n" * (50 * MB // 6)
    uri = "file://" + os.path.abspath("big.py")
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    with open("session.bin", "wb") as f:
        for m in msgs:
            body = json.dumps(m).encode()
            f.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    # The client: sends the messages before the shutdown, waits for the diagnostics, then ends the session.
    with open("client.py", "w") as f:
        f.write("""import subprocess, sys
msgs = open("session.bin", "rb").read().split(b"Content-Length: ")[1:]
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
for m in msgs[:3]:
    p.stdin.write(b"Content-Length: " + m)
p.stdin.flush()
while True:
    n = 0
    while True:
        line = p.stdout.readline()
        if not line:
            sys.exit(p.wait())
        if line.strip() == b"":
            break
        if line.lower().startswith(b"content-length:"):
            n = int(line.split(b":")[1])
    body = p.stdout.read(n)
    if b"publishDiagnostics" in body:
        sys.stderr.write(body[:300].decode(errors="replace") + "\\n")
        break
for m in msgs[3:]:
    p.stdin.write(b"Content-Length: " + m)
p.stdin.close()
sys.exit(p.wait())
""")
PY
}

echo "| case | command | exit | time | peak memory | first message |"
echo "|---|---|---|---|---|---|"
row() {  # row CASE DIR ARGS...: runs synclint ARGS in DIR (through $CLIENT when set)
  local name=$1 dir=$2
  shift 2
  [[ $name =~ $ONLY ]] || return 0
  local rc s kb msg
  rm -f "$work/t" "$work/err"
  (cd "$dir" && /usr/bin/time -f "%e %M" -o "$work/t" timeout 600 ${CLIENT:-} "$SYNCLINT" "$@" </dev/null >"$work/out" 2>"$work/err")
  rc=$?
  read -r s kb < <(tail -n 1 "$work/t") || { s=?; kb=0; }
  msg=$( (grep -v "^Command exited\|^Command terminated" "$work/err"; grep -h "error:\|warning:" "$work/out") 2>/dev/null |
    head -n 1 | cut -c1-110 | sed 's/|/\\|/g')
  echo "| $name | \`synclint $*\` | $rc | $s s | $((kb / 1024)) MB | $msg |"
}
want() { [[ $1 =~ $ONLY ]] && { [[ -d $1 ]] || gen "$1"; }; }

want line50m && row line50m line50m check --format json -j2 line.py
want lines50m && row lines50m lines50m check --format json -j2 lines.py
want lsp50m && CLIENT="python3 client.py" row lsp50m lsp50m lsp
rm -rf line50m lines50m lsp50m
want ignore50m && row ignore50m ignore50m check garbage.py
want finding50m && row finding50m finding50m check wide.py
want findings_line && row findings_line findings_line check line.py
want findings_line && row findings_line findings_line check --format sarif line.py
rm -rf ignore50m finding50m findings_line
want files100k && row files100k files100k check --format json -j2 many
rm -rf files100k
want symlinks && row symlinks symlinks check --format json -j2 farm
want pyproject10m && row pyproject10m pyproject10m check --format json -j2 train.py
want pyproject10m && row pyproject10m pyproject10m config train.py
want toml_deep && row toml_deep toml_deep check --format json train.py
want toml_deep_arrays && row toml_deep_arrays toml_deep_arrays check --format json train.py
want pfi1m && row pfi1m pfi1m check --format json train.py
want pfi1m && row pfi1m pfi1m config train.py
want report10m && row report10m report10m check --costs report.json train.py
want report10m && row report10m report10m probe merge -o merged.json report.json
want report10m && row report10m report10m probe report report.json
rm -rf report10m
want report_deep && row report_deep report_deep check --costs report.json train.py
want report_deep && row report_deep report_deep probe merge -o merged.json report.json
want report_deep && row report_deep report_deep probe analyze stream.json
want stream200m && row stream200m stream200m probe analyze stream.json
rm -rf stream200m
want cdb100m && row cdb100m cdb100m check m.cpp
want cdb_deep && row cdb_deep cdb_deep check m.cpp
echo
echo "measured $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
