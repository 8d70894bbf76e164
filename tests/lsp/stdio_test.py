#!/usr/bin/env python3
"""`synclint lsp` over real pipes: the client disappearing, 10,000 rapid edits with steady memory, paced edits
that fault no freed memory in again, typing through loose ends, a 10 MB document, configuration and
probe-report reloads, transcript mode. Usage: stdio_test.py SYNCLINT CASE"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_client import Client, frame, read_frames, uri  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SYNCLINT = os.path.abspath(sys.argv[1])


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what)


def project():
    d = tempfile.mkdtemp(prefix="synclint-lsp-")
    for name in ("train.py", "utils.py"):
        shutil.copy(os.path.join(HERE, "project", name), d)
    return d


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def case_stdin_closes():
    d = project()
    c = Client(SYNCLINT, d)
    c.open(os.path.join(d, "train.py"))
    c.diagnostics(os.path.join(d, "train.py"))
    c.proc.stdin.close()
    check(c.proc.wait(timeout=10) == 1, "stdin closing ends the server with exit code 1")


def case_exit_code():
    d = project()
    c = Client(SYNCLINT, d)
    check(c.close() == 0, "shutdown then exit gives 0")
    c = Client(SYNCLINT, d)
    c.notify("exit", None)
    check(c.proc.wait(timeout=10) == 1, "exit without shutdown gives 1")


def case_rapid_edits():
    d = project()
    train = os.path.join(d, "train.py")
    c = Client(SYNCLINT, d, timeout=120)
    c.open(train)
    c.diagnostics(train)
    version = 1

    def burst(n):
        nonlocal version
        for _ in range(n):
            version += 1
            # Type a character into the docstring and take it out again: the text's size stays steady.
            if version % 2 == 0:
                c.change(train, version, (0, 3), (0, 3), "x")
            else:
                c.change(train, version, (0, 3), (0, 4), "")
        # A request answered after all the edits: the server has caught up.
        c.request("textDocument/hover", {"textDocument": {"uri": uri(train)}, "position": {"line": 0, "character": 0}})

    burst(1000)
    after_1000 = rss_kb(c.proc.pid)
    for _ in range(9):
        burst(1000)
        c.kept.clear()
    after_10000 = rss_kb(c.proc.pid)
    print("RSS after 1,000 edits: %d kB, after 10,000: %d kB" % (after_1000, after_10000))
    if os.environ.get("SYNCLINT_TEST_SANITIZED"):
        print("memory check left out: a sanitized build keeps freed memory in quarantine")
    else:
        check(after_10000 <= after_1000 * 1.10, "RSS after edit 10,000 within 10% of RSS after edit 1,000")
    # The last edit's diagnostics are published (the text is back to the original).
    c.change(train, version + 1, (9, 0), (10, 0), "")
    diags = c.diagnostics(train, pred=lambda ds: not any(x["code"] == "SYNC001" for x in ds))
    check(diags == [], "diagnostics follow the last edit of a burst")
    check(c.close() == 0, "clean exit after 10,000 edits")


HELPER = """import torch


def helper_{i}(model, batch, optimizer, scaler, device):
    inputs, labels = (t.to(device, non_blocking=True) for t in batch)
    logits = model(inputs)
    loss = torch.nn.functional.cross_entropy(logits, labels)
    optimizer.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    return loss.detach()


class Meter_{i}:
    def __init__(self):
        self.total = None

    def add(self, value):
        self.total = value if self.total is None else self.total + value
"""


def minor_faults(pid):
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[7])


def faults_per_typed_edit(d, env):
    """Minor page faults of the server per edit while a statement is typed into the loop of train.py, a
    character every tenth of a second, after 20 edits of warm-up."""
    train = os.path.join(d, "train.py")
    c = Client(SYNCLINT, d, timeout=120, env=env)
    c.open(train)
    c.diagnostics(train)
    with open(train) as f:
        line = f.read().count("\n") - 1
    version, typed, faults = 1, "stats.append(out.mean().item())", None
    for k in range(80):
        if k == 20:
            faults = minor_faults(c.proc.pid)
        col = k % (len(typed) + 1)
        if col == 0:
            edit = ((line, 0), (line, 0), "\n        ")  # Enter, and the loop body's indentation
            line += 1
        else:
            edit = ((line, 7 + col), (line, 7 + col), typed[col - 1])
        version += 1
        c.change(train, version, *edit)
        c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri(train)
               and m["params"].get("version", 0) >= version)
        time.sleep(0.1)
    per_edit = (minor_faults(c.proc.pid) - faults) / 60
    check(c.close() == 0, "clean exit")
    return per_edit


def case_paced_edits_keep_memory():
    """Between edits typed at a human pace, the server keeps the memory an analysis freed for the next one
    (engine::keep_freed_memory) instead of faulting it in again page by page: against the same server whose
    allocator settings are made to do nothing (SYNCLINT_TEST_NO_KEEP names a library that does that), on a
    workspace of 300 files whose train.py calls a helper from each of the others in its loop."""
    d = tempfile.mkdtemp(prefix="synclint-lsp-")
    for i in range(299):
        with open(os.path.join(d, "mod_%d.py" % i), "w") as f:
            f.write(HELPER.format(i=i))
    with open(os.path.join(d, "train.py"), "w") as f:
        f.write("import torch\n" + "".join("from mod_%d import helper_%d\n" % (i, i) for i in range(299)))
        f.write("\n\ndef train(model, loader, opt, scaler, device):\n    for batch in loader:\n")
        f.write("".join("        helper_%d(model, batch, opt, scaler, device).item()\n" % i for i in range(299)))
    kept = faults_per_typed_edit(d, {})
    control = faults_per_typed_edit(d, {"LD_PRELOAD": os.environ["SYNCLINT_TEST_NO_KEEP"]})
    print("page faults per typed edit: %.0f, %.0f with the allocator's settings undone" % (kept, control))
    check(control > 4 * kept, "the freed memory is kept between paced edits (4x fewer page faults at least)")


def case_loose_ends():
    """Typing a call into the loop leaves a dot at the end of the line (`stats.`) and then its bracket open
    for many keystrokes: the statements after it keep their diagnostics, and so does the helper in utils.py
    that one of them calls, instead of coming and going with each keystroke; the bracket is a syntax error at
    its place."""
    d = project()
    train, utils = os.path.join(d, "train.py"), os.path.join(d, "utils.py")
    c = Client(SYNCLINT, d)
    c.open(train)
    c.open(utils)
    sync001 = lambda ds: [x["range"]["start"]["line"] for x in ds if x.get("code") == "SYNC001"]
    check(sync001(c.diagnostics(train)) == [9], "train.py: the read in the loop")
    check(sync001(c.diagnostics(utils)) == [1], "utils.py: the helper the loop calls")
    typed = "stats.append(loss.mean("
    c.change(train, 2, (7, 53), (7, 53), "\n        ")
    c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri(train)
           and m["params"].get("version") == 2)
    for k, ch in enumerate(typed):
        version = 3 + k
        c.change(train, version, (8, 8 + k), (8, 8 + k), ch)
        m = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                   and m["params"]["uri"] == uri(train) and m["params"].get("version") == version)
        diags = m["params"]["diagnostics"]
        check(sync001(diags) == [10], "train.py after %r: the read after the typed line" % typed[:k + 1])
    errors = [x for x in diags if x.get("severity") == 1 and "code" not in x]
    check([(x["range"]["start"], x["message"]) for x in errors] ==
          [({"line": 8, "character": 20}, "syntax error: '(' was never closed")],
          "the first bracket left open on the line is the syntax error")
    # Nothing was published for utils.py while typing: its diagnostic never went away.
    c.request("textDocument/hover", {"textDocument": {"uri": uri(train)}, "position": {"line": 0, "character": 0}})
    published = [m for m in c.kept if m.get("method") == "textDocument/publishDiagnostics"
                 and m["params"]["uri"] == uri(utils)]
    check(all(sync001(m["params"]["diagnostics"]) == [1] for m in published), "utils.py kept its diagnostic")
    check(c.close() == 0, "clean exit")


def case_big_document():
    d = tempfile.mkdtemp(prefix="synclint-lsp-")
    body = open(os.path.join(HERE, "project", "train.py")).read().replace("def train", "def train_%d")
    parts, size, i = [], 0, 0
    while size < 10 * 1024 * 1024:
        chunk = body.replace("%d", str(i))
        parts.append(chunk)
        size += len(chunk)
        i += 1
    text = "".join(parts)
    big = os.path.join(d, "big.py")
    c = Client(SYNCLINT, d, timeout=300)
    t = time.monotonic()
    c.open(big, text)
    diags = c.diagnostics(big)
    print("10 MB document (%d functions): first diagnostics after %.2f s" % (i, time.monotonic() - t))
    check(len(diags) == i, "one diagnostic per loop in the 10 MB document")
    c.change(big, 2, (0, 0), (0, 0), "#")
    c.diagnostics(big, pred=lambda ds: True)
    check(c.close() == 0, "clean exit after a 10 MB document")


def case_config_reload():
    d = project()
    train = os.path.join(d, "train.py")
    c = Client(SYNCLINT, d)
    c.open(train)
    check([x["code"] for x in c.diagnostics(train)] == ["SYNC001"], "SYNC001 before any configuration")
    with open(os.path.join(d, ".synclint.toml"), "w") as f:
        f.write('ignore = ["SYNC001"]\n')
    c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri(os.path.join(d, ".synclint.toml")), "type": 1}]})
    check(c.diagnostics(train) == [], "a new .synclint.toml is applied")
    with open(os.path.join(d, ".synclint.toml"), "w") as f:
        f.write('ignroe = ["SYNC001"]\n')
    c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri(os.path.join(d, ".synclint.toml")), "type": 2}]})
    cfg = c.diagnostics(os.path.join(d, ".synclint.toml"))
    check(len(cfg) == 1 and "ignroe" in cfg[0]["message"] and cfg[0]["range"]["start"]["line"] == 0,
          "a configuration error is a diagnostic on the file: " + cfg[0]["message"])
    os.remove(os.path.join(d, ".synclint.toml"))
    c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri(os.path.join(d, ".synclint.toml")), "type": 3}]})
    check(c.diagnostics(os.path.join(d, ".synclint.toml")) == [], "the configuration error goes when the file goes")
    check(c.close() == 0, "clean exit")


def case_probe_reload():
    d = project()
    train = os.path.join(d, "train.py")
    c = Client(SYNCLINT, d)
    c.open(train)
    c.diagnostics(train)
    hover = {"textDocument": {"uri": uri(train)}, "position": {"line": 9, "character": 20}}
    check("Measured by the probe" not in c.request("textDocument/hover", hover)["contents"]["value"], "no costs without a report")
    report = {"schema": "synclint-probe-report", "version": 1,
              "run": {"command": ["python3", "train.py"], "cwd": d, "hostname": "gpu", "pid": 1, "rank": -1,
                      "gpu_name": "H200", "wall_ms": 2000.0, "status": "ok"},
              "runs": [], "totals": {"syncs": 500, "host_blocked_ms": 40.0, "gpu_idle_ms": 30.0,
                                     "dropped_activity_records": 0, "windows": 1},
              "sites": [{"path": train, "line": 10, "function": "train", "language": "python",
                         "api": "cudaStreamSynchronize", "rule_guess": "SYNC001", "calls": 500,
                         "host_blocked_ms": 40.0, "gpu_idle_ms": 30.0, "predicted_saving_ms": 25.0,
                         "share_of_run": 0.0125}]}
    with open(os.path.join(d, "synclint-probe.json"), "w") as f:
        json.dump(report, f)
    c.notify("workspace/didChangeWatchedFiles", {"changes": [{"uri": uri(os.path.join(d, "synclint-probe.json")), "type": 1}]})
    md = c.request("textDocument/hover", hover)["contents"]["value"]
    check("| 500 | 40.0 ms | 30.0 ms | 25.0 ms | 1.2% |" in md, "hover shows the probe's costs once the report appears")
    check(c.close() == 0, "clean exit")


def case_transcript():
    d = project()
    train = os.path.join(d, "train.py")
    text = open(train).read()
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"rootUri": uri(d), "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen",
         "params": {"textDocument": {"uri": uri(train), "languageId": "python", "version": 1, "text": text}}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    path = os.path.join(d, "in.lsp")
    with open(path, "wb") as f:
        f.write(b"".join(frame(m) for m in msgs))
    out = os.path.join(d, "out.lsp")
    rc = subprocess.run([SYNCLINT, "lsp", "--transcript", path, "--output", out], timeout=60).returncode
    check(rc == 0, "transcript mode exits 0 after shutdown and exit")
    with open(out, "rb") as f:
        replies = list(read_frames(f))
    kinds = [m.get("method", m.get("id")) for m in replies]
    check(kinds == [1, "textDocument/publishDiagnostics", 2], "transcript replies in order: %s" % kinds)


def case_transcript_errors():
    """tests/lsp/transcripts/errors.lsp: requests before initialize, malformed JSON, a missing and an invalid
    Content-Length, an unknown method, didChange of a document never opened, a non-object message, a second
    initialize, a request after shutdown; the replies must be those of errors.expected.jsonl."""
    base = os.path.join(HERE, "transcripts", "errors")
    run = subprocess.run([SYNCLINT, "lsp", "--transcript", base + ".lsp"], capture_output=True, timeout=60)
    check(run.returncode == 0, "the transcript ends with shutdown and exit: exit code 0")
    import io
    got = []
    for m in read_frames(io.BytesIO(run.stdout)):
        if isinstance(m.get("result"), dict) and "serverInfo" in m["result"]:
            m["result"]["serverInfo"]["version"] = "VERSION"
        got.append(m)
    with open(base + ".expected.jsonl") as f:
        expected = [json.loads(line) for line in f]
    for g, e in zip(got, expected):
        check(g == e, "reply %s" % json.dumps(e)[:100])
    check(len(got) == len(expected), "%d replies, %d expected" % (len(got), len(expected)))


CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}

if __name__ == "__main__":
    CASES[sys.argv[2]]()
