#!/usr/bin/env python3
"""C++ in `synclint lsp`: a translation unit with a compilation database is diagnosed on open and on save,
with exactly the findings `synclint check` gives for it; the first diagnostics come from a parse without a
preamble, which is built afterwards; a save that changes only the body reuses the preamble (the findings in a
project header it includes follow); a save that changes the #includes parses without a preamble again; code
actions use `// NOLINT(synclint-SYNCnnn)`; a unit without a database is logged, not fatal.
Usage: cxx_test.py SYNCLINT CASE (the mock LibTorch header of tests/unit/cxx keeps it quick)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lsp_client import Client, uri  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
SYNCLINT = os.path.abspath(sys.argv[1])

TRAIN = """#include "torch.h"
// The training loop of a small model.
float helper(const at::Tensor& t) { return t.sum().item<float>(); }

int main() {
  torch::Device device(torch::kCUDA);
  at::Tensor x = torch::randn(4, at::TensorOptions(device));
  float total = 0;
  for (int step = 0; step < 100; ++step) {
    at::Tensor y = x * 2.0;
    total += helper(y);
    if (y.is_nonzero()) break;
  }
  return total > 0;
}
"""
# The body only: a new read in the loop (same #includes).
EDITED = TRAIN.replace("    if (y.is_nonzero()) break;\n",
                       "    if (y.is_nonzero()) break;\n    std::cout << y;\n    total += y.max().item<float>();\n")


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print("ok:", what)


def project(with_database=True):
    d = tempfile.mkdtemp(prefix="synclint-lsp-cxx-")
    shutil.copy(os.path.join(SOURCE, "tests", "unit", "cxx", "mock_torch.h"), os.path.join(d, "torch.h"))
    with open(os.path.join(d, "train.cpp"), "w") as f:
        f.write(TRAIN)
    if with_database:
        os.mkdir(os.path.join(d, "build"))
        with open(os.path.join(d, "build", "compile_commands.json"), "w") as f:
            json.dump([{"directory": d, "file": "train.cpp",
                        "arguments": ["clang++", "-std=c++17", "-nostdinc++", "-I.", "-c", "train.cpp"]}], f)
    return d


def check_findings(d, path):
    """(code, line, column) of `synclint check` for the file, as LSP positions (0-based)."""
    p = subprocess.run([SYNCLINT, "check", "--format", "json", path], cwd=d, capture_output=True, text=True)
    check(p.returncode in (0, 1), "synclint check runs (rc %d: %s)" % (p.returncode, p.stderr.strip()))
    report = json.loads(p.stdout)
    return sorted((f["rule_id"], f["line"] - 1, f["column"] - 1) for f in report["findings"])


def lsp_findings(diagnostics):
    return sorted((d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"]) for d in diagnostics)


def logs(c):
    return [m["params"]["message"] for m in c.kept if m.get("method") == "window/logMessage"]


def save(c, path, text, version):
    """The editor's buffer becomes `text`, written to disk and saved."""
    with open(path, "w") as f:
        f.write(text)
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri(path), "version": version},
                                        "contentChanges": [{"text": text}]})
    c.notify("textDocument/didSave", {"textDocument": {"uri": uri(path)}})


def wait_for_preamble(c, path):
    c.wait(lambda m: m.get("method") == "window/logMessage" and
           m["params"]["message"].startswith("synclint: preamble of " + path + " built in "))


def case_open_and_save():
    d = project()
    train = os.path.join(d, "train.cpp")
    expected = check_findings(d, train)
    check(len(expected) >= 2, "check reports the loop's syncs: %s" % expected)
    c = Client(SYNCLINT, d, timeout=120)
    c.open(train)
    got = lsp_findings(c.diagnostics(train, pred=lambda ds: len(ds) > 0))
    check(got == expected, "didOpen: the diagnostics are check's findings (%s)" % got)
    wait_for_preamble(c, train)
    opened = [m for m in logs(c) if "analysed " + train in m]
    check(len(opened) == 1 and opened[0].endswith("(without a preamble; building it next)"),
          "the first diagnostics come from a parse without a preamble: %s" % opened)

    save(c, train, EDITED, 2)
    expected = check_findings(d, train)
    got = lsp_findings(c.diagnostics(train, pred=lambda ds: len(ds) == len(expected)))
    check(got == expected, "didSave: the diagnostics are check's findings for the saved file (%s)" % got)
    c.request("textDocument/hover", {"textDocument": {"uri": uri(train)}, "position": {"line": 0, "character": 0}})
    saved = [m for m in logs(c) if "analysed " + train in m]
    check(saved[-1].endswith("(preamble reused)"), "the save re-parsed the body only: %s" % saved)

    item = [x for x in expected if x[0] == "SYNC001"][-1]
    line = item[1]
    actions = c.request("textDocument/codeAction", {
        "textDocument": {"uri": uri(train)},
        "range": {"start": {"line": line, "character": item[2]}, "end": {"line": line, "character": item[2]}},
        "context": {"diagnostics": []}})
    texts = [e["newText"] for a in actions for e in a["edit"]["changes"][uri(train)]]
    check("  // NOLINT(synclint-SYNC001)" in texts, "code action: // NOLINT(synclint-SYNC001) (%s)" % texts)
    check(not any("#" in t for t in texts), "no Python comment in a C++ file")

    # Another #include: the preamble is stale, so the unit is parsed whole (findings at once) and rebuilt.
    included = "#include <stddef.h>\n" + EDITED
    save(c, train, included, 3)
    expected_included = check_findings(d, train)
    check(expected_included == [(r, l + 1, col) for r, l, col in expected], "check: the findings moved one line down")
    got = lsp_findings(c.diagnostics(train, pred=lambda ds: lsp_findings(ds) == expected_included))
    check(got == expected_included, "didSave with a new #include: check's findings")
    wait_for_preamble(c, train)
    saved = [m for m in logs(c) if "analysed " + train in m]
    check(saved[-1].endswith("(without a preamble; building it next)"),
          "a save with other #includes parses without the stale preamble: %s" % saved[-1])

    # A header changed on disk: the preamble is stale too; the same text saved again is parsed whole.
    with open(os.path.join(d, "torch.h"), "a") as f:
        f.write("\n// changed\n")
    c.notify("textDocument/didSave", {"textDocument": {"uri": uri(train)}})
    wait_for_preamble(c, train)
    saved = [m for m in logs(c) if "analysed " + train in m]
    check(len(saved) == 4 and saved[-1].endswith("(without a preamble; building it next)"),
          "a save after a header changed parses without the stale preamble: %s" % saved[-1])
    check(c.close() == 0, "shutdown and exit")


MODEL_H = """#pragma once
#include "torch.h"
// The project's own helpers: inline, so their syncs are reported here.
inline float loss_value(const at::Tensor& t) { return t.item<float>(); }
// A look-alike: item<T>() of a type that is not a tensor does not sync.
struct Meter {
  template <class T> T item() const { return T(); }
};
inline float meter_value(const Meter& m) { return m.item<float>(); }
"""
LOOP = """#include "torch.h"
#include "model.h"
int main() {
  at::Tensor x = torch::randn(4, at::TensorOptions(torch::kCUDA));
  Meter meter;
  float total = 0;
  for (int step = 0; step < 100; ++step) {
    at::Tensor y = x * 2.0;
    total += loss_value(y);
    total += meter_value(meter);
  }
  return total > 0;
}
"""


def header_findings(d, path, header):
    """(code, line, column, message) of `synclint check` of `path` in `header`, as LSP positions."""
    p = subprocess.run([SYNCLINT, "check", "--format", "json", path], cwd=d, capture_output=True, text=True)
    check(p.returncode in (0, 1), "synclint check runs (rc %d: %s)" % (p.returncode, p.stderr.strip()))
    return sorted((f["rule_id"], f["line"] - 1, f["column"] - 1, f["message"])
                  for f in json.loads(p.stdout)["findings"] if f["path"] == header)


def case_user_header():
    """A sync in an inline function of a project header included by the main file (so in its preamble) is
    reported on open and after body-only saves that reuse the preamble, as check reports it; the look-alike
    next to it never is."""
    d = project()
    with open(os.path.join(d, "model.h"), "w") as f:
        f.write(MODEL_H)
    train, model = os.path.join(d, "train.cpp"), os.path.join(d, "model.h")
    with open(train, "w") as f:
        f.write(LOOP)
    sync_line = MODEL_H.splitlines().index(next(x for x in MODEL_H.splitlines() if "loss_value(" in x))

    def published(pred):
        return sorted((x["code"], x["range"]["start"]["line"], x["range"]["start"]["character"], x["message"])
                      for x in c.diagnostics(model, pred=lambda ds: pred(ds)))

    expected = header_findings(d, train, "model.h")
    check([(r, l) for r, l, _, _ in expected] == [("SYNC001", sync_line)],
          "check reports the header's sync, not the look-alike: %s" % expected)
    c = Client(SYNCLINT, d, timeout=120)
    c.open(train)
    c.open(model)  # a header's diagnostics are published while it is open
    check(published(lambda ds: len(ds) > 0) == expected, "didOpen: the header's diagnostics are check's")
    wait_for_preamble(c, train)

    # A body-only save: the call moves one line down, so the header's finding names the new call site.
    moved = LOOP.replace("    total += loss_value(y);\n", "    y = y * 2.0;\n    total += loss_value(y);\n")
    c.kept.clear()  # what was published before the save
    save(c, train, moved, 2)
    expected = header_findings(d, train, "model.h")
    check(len(expected) == 1 and "train.cpp:10 " in expected[0][3], "check: called from the new line (%s)" % expected)
    got = published(lambda ds: any("train.cpp:10 " in x["message"] for x in ds))
    check(got == expected, "body save: the header's diagnostics are check's (%s)" % got)
    c.request("textDocument/hover", {"textDocument": {"uri": uri(train)}, "position": {"line": 0, "character": 0}})
    saved = [m for m in logs(c) if "analysed " + train in m]
    check(saved[-1].endswith("(preamble reused)"), "the save reused the preamble: %s" % saved[-1])

    # Another body-only save: the call leaves the loop, so the header's sync no longer runs every step.
    once = LOOP.replace("    total += loss_value(y);\n", "").replace("  return total",
                                                                  "  total += loss_value(x);\n  return total")
    c.kept.clear()
    save(c, train, once, 3)
    check(header_findings(d, train, "model.h") == [], "check: no finding once the call is out of the loop")
    check(published(lambda ds: not any("train.cpp:10 " in x["message"] for x in ds)) == [],
          "body save: the header's diagnostics are cleared")
    c.request("textDocument/hover", {"textDocument": {"uri": uri(train)}, "position": {"line": 0, "character": 0}})
    saved = [m for m in logs(c) if "analysed " + train in m]
    check(saved[-1].endswith("(preamble reused)"), "the save reused the preamble: %s" % saved[-1])
    check(c.close() == 0, "shutdown and exit")


def case_no_database():
    d = project(with_database=False)
    train = os.path.join(d, "train.cpp")
    c = Client(SYNCLINT, d, timeout=60)
    c.open(train)
    m = c.wait(lambda m: m.get("method") == "window/logMessage" and "no compilation database" in m["params"]["message"])
    check(train in m["params"]["message"], "a unit without a database is logged with its path")
    check(c.request("textDocument/hover", {"textDocument": {"uri": uri(train)},
                                           "position": {"line": 0, "character": 0}}) is None,
          "the server keeps answering")
    check(c.close() == 0, "shutdown and exit")


CASES = {"cxx_open_and_save": case_open_and_save, "cxx_user_header": case_user_header,
         "cxx_no_database": case_no_database}

if __name__ == "__main__":
    CASES[sys.argv[2]]()
