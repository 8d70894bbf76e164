"""bench/realworld's scorer on a tiny synthetic SARIF report and label file, and score.sh without mirrors."""
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REALWORLD = os.path.join(HERE, "..", "..", "bench", "realworld")
sys.path.insert(0, REALWORLD)
import score  # noqa: E402

REPO, COMMIT = "acme/train", "a" * 40
HEADER = "repo\tcommit\tpath\tline\trule\tclass\tsource\tnote\n"


def label(path, line, rule, cls, source="label", note="n"):
    return f"{REPO}\t{COMMIT}\t{path}\t{line}\t{rule}\t{cls}\t{source}\t{note}\n"


def result(uri, line, rule, level):
    return {"ruleId": rule, "level": level, "message": {"text": f"{rule} at {line}"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri}, "region": {"startLine": line}}}]}


# Four MUST sites (one a two-line range, one periodic), one EITHER, four TRAPs, one review row of each kind.
LABELS = HEADER + "".join([
    label("train.py", "10", "SYNC001", "MUST"),
    label("train.py", "20-21", "SYNC010", "MUST"),
    label("train.py", "30", "SYNC011", "MUST"),
    label("train.py", "40", "SYNC001", "MUST", note="periodic: every 100 steps"),
    label("train.py", "50", "SYNC007", "EITHER"),
    label("train.py", "60", "SYNC006", "TRAP"),
    label("train.py", "70", "SYNC004", "TRAP"),
    label("train.py", "80", "-", "TRAP"),
    label("lib/util.py", "5", "SYNC003", "TRAP"),
    # line 90 carries a MUST copy and a TRAP dtype cast: the finding's rule picks the label
    label("train.py", "90", "SYNC011", "TRAP"),
    label("train.py", "90", "SYNC001", "MUST"),
    label("train.py", "100", "SYNC006", "WRONG", source="review"),
    label("train.py", "110", "SYNC005", "RIGHT", source="review"),
])

RESULTS = [
    result("./train.py", 10, "SYNC001", "warning"),   # MUST, warned
    result("train.py", 21, "SYNC010", "note"),        # MUST (range), note only
    result("train.py", 40, "SYNC001", "error"),       # MUST, error counts as a warning
    result("train.py", 50, "SYNC007", "warning"),     # EITHER: right
    result("train.py", 60, "SYNC006", "warning"),     # TRAP: wrong
    result("train.py", 70, "SYNC004", "note"),        # TRAP: note hit
    result("lib/util.py", 5, "SYNC003", "note"),      # TRAP: note hit
    result("train.py", 90, "SYNC011", "warning"),     # TRAP by rule: wrong
    result("train.py", 100, "SYNC006", "warning"),    # WRONG review: wrong
    result("train.py", 110, "SYNC005", "warning"),    # RIGHT review: right
    result("train.py", 120, "SYNC001", "warning"),    # unlabeled: unjudged
]


def sarif(results):
    return {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "synclint"}}, "results": results}]}


class Workspace:
    """A temporary projects.tsv, labels/ and results/ for one project named 'acme'."""

    def __init__(self, labels=LABELS, results=RESULTS):
        self.dir = tempfile.TemporaryDirectory()
        root = self.dir.name
        self.projects = os.path.join(root, "projects.tsv")
        self.labels = os.path.join(root, "labels")
        self.results = os.path.join(root, "results")
        os.makedirs(self.labels)
        os.makedirs(self.results)
        with open(self.projects, "w") as f:
            f.write(f"name\trepo\tcommit\tpaths\nacme\t{REPO}\t{COMMIT}\ttrain.py lib\n")
            f.write(f"other\tacme/other\t{'b' * 40}\tsrc\n")  # no report: skipped
        with open(os.path.join(self.labels, "acme.tsv"), "w") as f:
            f.write(labels)
        if results is not None:
            with open(os.path.join(self.results, "acme.sarif"), "w") as f:
                json.dump(sarif(results), f)

    def argv(self, *extra):
        return ["--projects", self.projects, "--labels", self.labels, "--results", self.results, *extra]

    def run(self, *extra):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = score.main(self.argv(*extra))
        return rc, out.getvalue(), err.getvalue()

    def close(self):
        self.dir.cleanup()


class ScoreNumbers(unittest.TestCase):
    def setUp(self):
        ws = Workspace()
        self.addCleanup(ws.close)
        labels = score.read_labels(os.path.join(ws.labels, "acme.tsv"), REPO, COMMIT)
        findings = score.read_sarif(os.path.join(ws.results, "acme.sarif"))
        self.s = score.score("acme", labels, findings)

    def test_counts_per_class(self):
        self.assertEqual(self.s.counts, {"MUST": 5, "EITHER": 1, "TRAP": 5, "WRONG": 1, "RIGHT": 1})

    def test_recall_counts_any_finding_and_warnings_apart(self):
        self.assertEqual((self.s.must, self.s.must_found, self.s.must_warned), (5, 3, 2))
        self.assertEqual(sorted(l.where() for l in self.s.misses), ["train.py:30", "train.py:90"])

    def test_precision_of_warnings(self):
        # right: 10 (MUST), 40 (MUST), 50 (EITHER), 110 (RIGHT); wrong: 60, 90 (TRAP by rule), 100 (WRONG)
        self.assertEqual((self.s.right, self.s.wrong), (4, 3))
        self.assertEqual(sorted(f.line for f, _ in self.s.false_positives), [60, 90, 100])

    def test_trap_hits(self):
        self.assertEqual((self.s.traps, self.s.trap_notes, self.s.trap_warnings), (5, 2, 2))

    def test_unjudged_and_periodic(self):
        self.assertEqual([(f.path, f.line) for f in self.s.unjudged], [("train.py", 120)])
        self.assertEqual(self.s.periodic_warned, 1)


class ScoreCommandLine(unittest.TestCase):
    def test_report_prints_the_numbers_and_targets(self):
        ws = Workspace()
        self.addCleanup(ws.close)
        rc, out, err = ws.run()
        self.assertEqual(rc, 0)
        self.assertIn("other: no report, skipped", err)
        total = next(line for line in out.splitlines() if line.startswith("total")).split()
        # sites MUST EITHER TRAP RIGHT/WRONG recall recall(warn) precision right/warn TRAP-notes TRAP-warns unjudged
        self.assertEqual(total[1:], ["11", "5", "1", "5", "1/1", "0.600", "0.400", "0.571", "4/7", "0.400", "2", "1"])
        self.assertIn("recall 0.600 (>= 0.95) MISSED", out)
        self.assertIn("train.py:30 SYNC011", out)
        self.assertIn("train.py:120 SYNC001 warning: SYNC001 at 120", out)

    def test_check_fails_when_a_target_is_missed_and_passes_when_met(self):
        ws = Workspace()
        self.addCleanup(ws.close)
        self.assertEqual(ws.run("--check")[0], 1)
        clean = HEADER + label("train.py", "10", "SYNC001", "MUST") + label("train.py", "60", "SYNC006", "TRAP")
        good = Workspace(clean, [result("train.py", 10, "SYNC001", "warning")])
        self.addCleanup(good.close)
        rc, out, _ = good.run("--check")
        self.assertEqual(rc, 0, out)
        self.assertIn("notes on TRAP 0.000 (<= 0.02) met", out)

    def test_bad_labels_are_reported_not_crashed(self):
        cases = {
            "repo\tcommit\tpath\n": "header must be",
            HEADER + label("train.py", "x", "SYNC001", "MUST"): "line must be N or N-M",
            HEADER + label("train.py", "9-3", "SYNC001", "MUST"): "bad line range",
            HEADER + label("train.py", "3", "SYNC001", "RIGHT"): "class of a label row must be",
            HEADER + label("train.py", "3", "item", "MUST"): "rule must be SYNCnnn",
            HEADER + label("train.py", "3", "SYNC001", "MUST", source="guess"): "source must be",
            HEADER + f"{REPO}\t{'c' * 40}\ttrain.py\t3\tSYNC001\tMUST\tlabel\tn\n": "does not match projects.tsv",
            HEADER + f"{REPO}\t{COMMIT}\ttrain.py\t3\n": "4 fields, expected 8",
        }
        for text, message in cases.items():
            ws = Workspace(text)
            self.addCleanup(ws.close)
            rc, _, err = ws.run()
            self.assertEqual(rc, 2, text)
            self.assertIn(message, err)

    def test_bad_sarif_is_reported(self):
        ws = Workspace()
        self.addCleanup(ws.close)
        with open(os.path.join(ws.results, "acme.sarif"), "w") as f:
            f.write('{"runs": [{"results": [{"ruleId": "SYNC001"}]}]}')
        rc, _, err = ws.run()
        self.assertEqual(rc, 2)
        self.assertIn("unexpected SARIF structure", err)


class LabelSites(unittest.TestCase):
    def test_labels_must_point_into_the_laid_out_sources(self):
        ws = Workspace()
        self.addCleanup(ws.close)
        src = os.path.join(ws.dir.name, "src", "acme")
        os.makedirs(os.path.join(src, "lib"))
        with open(os.path.join(src, "train.py"), "w") as f:
            f.write("x = 1\n" * 120)
        rc, _, err = ws.run("--sources", os.path.join(ws.dir.name, "src"))
        self.assertEqual(rc, 2)
        self.assertIn("labelled file lib/util.py is not in the laid-out sources", err)
        with open(os.path.join(src, "lib", "util.py"), "w") as f:
            f.write("y = 2\n" * 4)
        rc, _, err = ws.run("--sources", os.path.join(ws.dir.name, "src"))
        self.assertEqual(rc, 2)
        self.assertIn("lib/util.py:5: past the end of the file (4 lines)", err)
        with open(os.path.join(src, "lib", "util.py"), "w") as f:
            f.write("y = 2\n" * 5)
        self.assertEqual(ws.run("--sources", os.path.join(ws.dir.name, "src"))[0], 0)


class ScoreScript(unittest.TestCase):
    def test_without_mirrors_every_project_is_skipped_and_it_exits_zero(self):
        with tempfile.TemporaryDirectory() as empty:
            env = dict(os.environ, MIRRORS=empty, SYNCLINT=os.path.join(empty, "absent"))
            proc = subprocess.run(["bash", os.path.join(REALWORLD, "score.sh")], env=env,
                                  capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("skipped", proc.stderr)
        self.assertIn("nothing scored", proc.stderr)


if __name__ == "__main__":
    unittest.main()
