#!/usr/bin/env python3
"""C++ in `synclint lsp` (docs/performance.md, "Language server"): on examples/libtorch/train.cpp (includes
<torch/torch.h>), a cold `synclint check` of the unit, the time from didOpen to the first diagnostics (a
parse without a preamble), the preamble's build that follows in the background, the time from didSave to
publishDiagnostics after a change in the main file's body (the preamble is reused) and after a change of
the #includes (parsed without the stale preamble), in wall and CPU seconds. Not a test: it prints numbers.

usage: bench/lsp/cxx_latency.py SYNCLINT BUILD_DIR [--rounds 5]
  BUILD_DIR: a configured synclint build (where the LibTorch headers are, as for the C++ fixtures).
"""
import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, "tests", "lsp"))
from lsp_client import Client, uri  # noqa: E402

ANCHOR = "    optimizer.step();\n"
PROBE = "    float probe = loss.item<float>();\n"


def torch_flags(build):
    """The LibTorch flags the build's C++ fixtures use (cmake/ClangFrontend.cmake)."""
    api = None
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(r"SYNCLINT_TORCH_API_INCLUDE:\w+=(.*)", line)
            if m:
                api = m.group(1).strip()
    if not api or not os.path.exists(os.path.join(api, "torch", "torch.h")):
        sys.exit("no LibTorch headers in %s/CMakeCache.txt (SYNCLINT_TORCH_API_INCLUDE)" % build)
    flags = ["-std=c++17"]
    root = os.path.normpath(os.path.join(api, "..", "..", "..", ".."))
    if root != "/usr/include":
        flags += ["-isystem", root]
    flags += ["-isystem", api, "-isystem", os.path.abspath(os.path.join(build, "generated", "libtorch"))]
    if os.path.exists("/usr/local/cuda/include/cuda_runtime.h"):
        flags += ["-isystem", "/usr/local/cuda/include"]
    return flags


def cpu_of(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("synclint")
    ap.add_argument("build")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    synclint = os.path.abspath(a.synclint)
    d = tempfile.mkdtemp(prefix="synclint-cxx-lsp-")
    train = os.path.join(d, "train.cpp")
    shutil.copy(os.path.join(SOURCE, "examples", "libtorch", "train.cpp"), train)
    os.mkdir(os.path.join(d, "build"))
    with open(os.path.join(d, "build", "compile_commands.json"), "w") as f:
        json.dump([{"directory": d, "file": "train.cpp",
                    "arguments": ["clang++", *torch_flags(a.build), "-c", "train.cpp"]}], f)
    with open(train) as f:
        base = f.read()
    assert ANCHOR in base

    cold_wall, cold_cpu = [], []
    for _ in range(a.rounds):
        c0, t0 = children_cpu(), time.monotonic()
        p = subprocess.run([synclint, "check", "-j1", train], cwd=d, capture_output=True, text=True)
        cold_wall.append(time.monotonic() - t0)
        cold_cpu.append(children_cpu() - c0)
        assert p.returncode == 1, p.stderr
    print("cold check:        wall median %.2f s, CPU median %.2f s" % (statistics.median(cold_wall),
                                                                        statistics.median(cold_cpu)))

    c = Client(synclint, d, timeout=600)
    cpu0, t0 = cpu_of(c.proc.pid), time.monotonic()
    c.open(train, text=base)
    first = c.diagnostics(train, pred=lambda ds: len(ds) > 0)
    open_wall, open_cpu = time.monotonic() - t0, cpu_of(c.proc.pid) - cpu0
    print("didOpen -> diags:  wall %.2f s, CPU %.2f s (%d diagnostics; no preamble)" %
          (open_wall, open_cpu, len(first)))
    built = "synclint: preamble of " + train + " built in "
    c.wait(lambda m: m.get("method") == "window/logMessage" and m["params"]["message"].startswith(built))
    print("preamble built:    wall %.2f s, CPU %.2f s after didOpen (in the background)" %
          (time.monotonic() - t0, cpu_of(c.proc.pid) - cpu0))

    body_wall, body_cpu = [], []
    version = 1
    for k in range(a.rounds):
        text = base.replace(ANCHOR, ANCHOR + PROBE) if k % 2 == 0 else base
        want = len(first) + (1 if k % 2 == 0 else 0)
        with open(train, "w") as f:
            f.write(text)
        version += 1
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri(train), "version": version},
                                            "contentChanges": [{"text": text}]})
        # The edit's own (unchanged) diagnostics, before the save.
        c.request("textDocument/hover", {"textDocument": {"uri": uri(train)}, "position": {"line": 0, "character": 0}})
        c.kept.clear()
        cpu0, t0 = cpu_of(c.proc.pid), time.monotonic()
        c.notify("textDocument/didSave", {"textDocument": {"uri": uri(train)}})
        c.diagnostics(train, pred=lambda ds: len(ds) == want)
        body_wall.append(time.monotonic() - t0)
        body_cpu.append(cpu_of(c.proc.pid) - cpu0)
    print("didSave -> diags:  wall median %.2f s, CPU median %.2f s (body changed, %d saves)" %
          (statistics.median(body_wall), statistics.median(body_cpu), a.rounds))

    # One more #include at the top: the preamble is stale, every finding moves one line down.
    text = "#include <cstddef>\n" + base
    want = sorted(d_["range"]["start"]["line"] + 1 for d_ in first)
    with open(train, "w") as f:
        f.write(text)
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri(train), "version": version + 1},
                                        "contentChanges": [{"text": text}]})
    c.request("textDocument/hover", {"textDocument": {"uri": uri(train)}, "position": {"line": 0, "character": 0}})
    c.kept.clear()
    cpu0, t0 = cpu_of(c.proc.pid), time.monotonic()
    c.notify("textDocument/didSave", {"textDocument": {"uri": uri(train)}})
    c.diagnostics(train, pred=lambda ds: sorted(d_["range"]["start"]["line"] for d_ in ds) == want)
    include_wall, include_cpu = time.monotonic() - t0, cpu_of(c.proc.pid) - cpu0
    print("didSave -> diags:  wall %.2f s, CPU %.2f s (#includes changed; no preamble)" % (include_wall, include_cpu))
    c.close()
    cw, cc = statistics.median(cold_wall), statistics.median(cold_cpu)
    print("ratios to the cold check: open %.2fx wall / %.2fx CPU; body save %.2fx wall / %.2fx CPU; "
          "#include save %.2fx wall / %.2fx CPU" %
          (open_wall / cw, open_cpu / cc, statistics.median(body_wall) / cw, statistics.median(body_cpu) / cc,
           include_wall / cw, include_cpu / cc))
    shutil.rmtree(d)


if __name__ == "__main__":
    main()
