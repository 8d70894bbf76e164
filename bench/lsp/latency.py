#!/usr/bin/env python3
"""Latency of `synclint lsp` (docs/performance.md, "Language server").

usage: bench/lsp/latency.py [SYNCLINT] [--pace-ms 100] [--edits 500] [--edits-300 500] [--at 0]
                            [--lines 0 | --type [--classes]]

didChange -> publishDiagnostics on a 5,000-line training file, 500 edits at a human pace and 500 in a
burst; the same on a file that is one of 300 in the workspace (cross-file context); start-up to first
diagnostics on the 300-file workspace. Not a test: it prints numbers.

By default each edit types `#` at the start of one line (--at: where, as a fraction of the file's lines)
or deletes it again, so that the texts come back (the server re-uses the parse and walks of a text that
comes back, as a typed character deleted again does).

With --lines N, the edits go over N lines from there instead: the first N type `#` at the start of each
line in turn (commenting it out), the next N delete those `#` in the same order, and so on, so that no edit
gives back a text the file had in its last N versions.

With --type, the edits are typing: after the first line at or below --at that is a statement of a loop
body, statements are typed one character at a time on new lines, each line started by Enter with the
indentation an editor gives (one edit), so that every edit gives a new text and many texts in between have
a syntax error (`stats.append(out.mean(` ...).

With --type --classes, the paced typing edits are also reported by what the line being typed looks like after
the edit: just begun by Enter, ending in `.`, with a bracket open, or complete.

With --probe-report, each workspace has a `synclint-probe.json` with a site on every line that reads a
value to the host, so that the server joins a cost onto every finding, as it does for a user who probed
the program.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "lsp"))
from lsp_client import Client  # noqa: E402

BLOCK = '''

def step_{i}(model, batch, optimizer, scaler, device):
    """One step of variant {i}."""
    x, y = batch
    x = x.to(device, non_blocking=True)
    y = y.to(device, non_blocking=True)
    with torch.autocast("cuda"):
        out = model(x)
        loss = F.cross_entropy(out, y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()


def train_{i}(model, loader, optimizer, scaler, device, log_every=50):
    total = torch.zeros((), device=device)
    for it, batch in enumerate(loader):
        loss = step_{i}(model, batch, optimizer, scaler, device)
        total += loss
        if loss.item() > 1e4:
            raise RuntimeError("diverged")
    return total
'''


def training_file(lines):
    text = "import torch\nimport torch.nn.functional as F\n"
    i = 0
    while text.count("\n") < lines:
        text += BLOCK.format(i=i)
        i += 1
    return "\n".join(text.split("\n")[:lines]) + "\n"


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def publishes_for(client, path, version, timeout=60):
    """Waits for the publication covering `version` of `path`; returns when it arrived."""
    from lsp_client import uri
    u = uri(path)
    client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == u
                and m["params"].get("version", 0) >= version, timeout)
    return time.perf_counter()


TYPED = ["stats.append(out.mean().item())", "running = running + loss.detach()", "print(it, float(loss))"]


def toggles(line, lines):
    """Edits (start, end, text) that type `#` at the start of line `line` and delete it again; with `lines`,
    over that many lines (see the usage)."""
    k = 0
    while True:
        at, typed = (line, k % 2 == 0) if not lines else (line + k % lines, (k // lines) % 2 == 0)
        yield ((at, 0), (at, 0), "#") if typed else ((at, 0), (at, 1), "")
        k += 1


def typing(line, length, indent):
    """Edits that type the statements of TYPED on new lines after line `line` (of `length` characters), one
    character at a time."""
    k = 0
    while True:
        yield (line, length), (line, length), "\n" + " " * indent
        line += 1
        for col, ch in enumerate(TYPED[k % len(TYPED)]):
            yield (line, indent + col), (line, indent + col), ch
        length = indent + len(TYPED[k % len(TYPED)])
        k += 1


def loop_statement(path, fraction):
    """The first line at or below `fraction` of the file that is a statement of a loop body (a line whose
    block opens with `for`), and its indentation."""
    with open(path) as f:
        lines = f.read().split("\n")

    def indent_of(l):
        return len(l) - len(l.lstrip(" "))
    start = line_at(path, fraction)
    for i in range(start, len(lines)):
        if not lines[i].strip() or lines[i].rstrip().endswith(":"):
            continue
        above = next((l for l in reversed(lines[:i]) if l.strip() and indent_of(l) < indent_of(lines[i])), "")
        if above.lstrip().startswith("for "):
            return i, indent_of(lines[i])
    raise SystemExit("latency: no loop body below line %d of %s" % (start + 1, path))


def changes_for(path, args):
    """The edits the options ask for on `path`, and where they are (for the report)."""
    if args.type:
        line, indent = loop_statement(path, args.at)
        with open(path) as f:
            length = len(f.read().split("\n")[line])
        return typing(line, length, indent), "typing after line %d" % (line + 1)
    line = line_at(path, args.at)
    return toggles(line, args.lines), where(line, args.lines)


def line_class(line):
    """What a line being typed looks like (--classes)."""
    if not line:
        return "Enter"
    if line.endswith("."):
        return "ends in `.`"
    return "bracket open" if line.count("(") > line.count(")") else "complete"


def edits(client, path, first_version, count, pace_s, changes, classes=None):
    """`count` edits from `changes` (toggles or typing); returns the latency of each edit to the publication
    that covers it, in ms. With `classes` (a dict), paced typing edits are also added to it by line_class."""
    latencies = []
    typed = ""
    version = first_version
    sent = {}
    for k in range(count):
        version += 1
        start, end, text = next(changes)
        typed = "" if text.startswith("\n") else typed + text
        client.change(path, version, start, end, text)
        sent[version] = time.perf_counter()
        if pace_s:
            done = publishes_for(client, path, version)
            latencies.append((done - sent[version]) * 1000)
            if classes is not None:
                classes.setdefault(line_class(typed), []).append(latencies[-1])
            time.sleep(max(0.0, pace_s - (done - sent[version])))
    if not pace_s:
        # A burst: each edit's latency is the time to the first publication at or after its version.
        from lsp_client import uri
        u = uri(path)
        pending = sorted(sent)
        while pending:
            m = client.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == u)
            now = time.perf_counter()
            v = m["params"].get("version", 0)
            while pending and pending[0] <= v:
                latencies.append((now - sent[pending.pop(0)]) * 1000)
    return latencies, version


def write_probe_report(folder):
    """A probe report at the workspace root (the server's default `synclint-probe.json`) with a site on
    every line of the folder's Python files that reads a value to the host, so that every finding has a
    cost to join."""
    import json
    sites = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(folder, name)
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if any(read in line for read in (".item()", ".cpu()", "float(", ".tolist()")):
                    sites.append({"path": path, "line": n, "function": "f", "language": "python",
                                  "api": "cudaStreamSynchronize", "rule_guess": "SYNC001", "calls": 100,
                                  "host_blocked_ms": 1.0, "gpu_idle_ms": 1.0, "predicted_saving_ms": 0.5,
                                  "share_of_run": 0.001})
    report = {"schema": "synclint-probe-report", "version": 1,
              "run": {"command": ["python3", "train.py"], "cwd": folder, "hostname": "gpu", "pid": 1, "rank": -1,
                      "gpu_name": "H200", "wall_ms": 100000.0, "status": "ok"},
              "runs": [], "totals": {"syncs": 100 * len(sites), "host_blocked_ms": 1.0 * len(sites),
                                     "gpu_idle_ms": 1.0 * len(sites), "dropped_activity_records": 0, "windows": 1},
              "sites": sites}
    with open(os.path.join(folder, "synclint-probe.json"), "w") as f:
        json.dump(report, f)


def line_at(path, fraction):
    """The line at `fraction` of the file's lines (0-based)."""
    with open(path) as f:
        count = f.read().count("\n")
    return min(max(0, count - 1), int(fraction * count))


def where(line, lines):
    return "line %d" % (line + 1) if not lines else "lines %d-%d" % (line + 1, line + lines)


def cpu_ms(pid):
    """User + system CPU time of a process so far, in ms (load on the machine does not inflate it)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def measured(client, fn, *args):
    before = cpu_ms(client.proc.pid)
    lat, v = fn(*args)
    return lat, v, (cpu_ms(client.proc.pid) - before) / max(1, len(lat))


def report(name, values, cpu):
    print("| %s | %d | %.1f | %.1f | %.1f | %.1f |" % (name, len(values), statistics.median(values),
                                                       percentile(values, 95), max(values), cpu))


def report_classes(name, classes):
    for c, values in sorted(classes.items()):
        print("| %s, %s | %d | %.1f | %.1f | %.1f | |" % (name, c, len(values), statistics.median(values),
                                                         percentile(values, 95), max(values)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("synclint", nargs="?", default="build/tools/synclint/synclint")
    ap.add_argument("--pace-ms", type=float, default=100)
    ap.add_argument("--edits", type=int, default=500)
    ap.add_argument("--edits-300", type=int, default=500, help="edits on the 300-file workspace")
    ap.add_argument("--at", type=float, default=0,
                    help="where the edits are, as a fraction of the file's lines (0: the first line)")
    ap.add_argument("--lines", type=int, default=0, help="edit this many lines in turn (see the usage)")
    ap.add_argument("--type", action="store_true", help="type statements on new lines (see the usage)")
    ap.add_argument("--classes", action="store_true", help="with --type: paced edits by the typed line's look")
    ap.add_argument("--probe-report", action="store_true",
                    help="with a probe report that gives every finding a cost (the server joins it on each edit)")
    args = ap.parse_args()
    synclint = os.path.abspath(args.synclint)
    print("| case | edits | p50 (ms) | p95 (ms) | max (ms) | server CPU per edit (ms) |\n|---|---:|---:|---:|---:|---:|")

    # 1. One 5,000-line file.
    d = tempfile.mkdtemp(prefix="synclint-bench-lsp-")
    big = os.path.join(d, "train.py")
    with open(big, "w") as f:
        f.write(training_file(5000))
    if args.probe_report:
        write_probe_report(d)
    c = Client(synclint, d, timeout=120)
    c.open(big)
    publishes_for(c, big, 1)
    changes, place = changes_for(big, args)
    classes = {} if args.type and args.classes else None
    lat, v, cpu = measured(c, edits, c, big, 1, args.edits, args.pace_ms / 1000, changes, classes)
    report("5,000-line file, %g ms pace (%s)" % (args.pace_ms, place), lat, cpu)
    if classes:
        report_classes("5,000-line file", classes)
    lat, v, cpu = measured(c, edits, c, big, v, args.edits, 0, changes)
    report("5,000-line file, burst", lat, cpu)
    c.close()

    # 2. A workspace of 300 files: a training script calling helpers in 299 modules.
    d = tempfile.mkdtemp(prefix="synclint-bench-lsp300-")
    for i in range(299):
        with open(os.path.join(d, "mod_%d.py" % i), "w") as f:
            f.write(training_file(150).replace("def step_0", "def helper_%d" % i))
    with open(os.path.join(d, "train.py"), "w") as f:
        f.write("import torch\n" + "".join("from mod_%d import helper_%d\n" % (i, i) for i in range(299)))
        f.write("\n\ndef train(model, loader, opt, scaler, device):\n    for batch in loader:\n")
        f.write("".join("        helper_%d(model, batch, opt, scaler, device).item()\n" % i for i in range(299)))
    train = os.path.join(d, "train.py")
    if args.probe_report:
        write_probe_report(d)
    start = time.perf_counter()
    c = Client(synclint, d, timeout=120)
    c.open(train)
    first = publishes_for(c, train, 1)
    startup_ms = (first - start) * 1000
    changes, place = changes_for(train, args)
    classes = {} if args.type and args.classes else None
    lat, v, cpu = measured(c, edits, c, train, 1, args.edits_300, args.pace_ms / 1000, changes, classes)
    report("train.py of a 300-file workspace, %g ms pace (%s)" % (args.pace_ms, place), lat, cpu)
    if classes:
        report_classes("train.py", classes)
    lat, v, cpu = measured(c, edits, c, train, v, args.edits_300, 0, changes)
    report("train.py of a 300-file workspace, burst", lat, cpu)
    c.close()
    print("\nstart-up to first diagnostics, 300-file workspace: %.0f ms" % startup_ms)


if __name__ == "__main__":
    main()
