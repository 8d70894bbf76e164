"""The analysis in bench/gpu's scripts, on synthetic inputs (the GPU runs themselves need the GPU machine)."""
import os
import io
import py_compile
import random
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))
import cnn_bench  # noqa: E402
import overhead_rounds  # noqa: E402
import validate  # noqa: E402


def captured(main, argv):
    """(exit status, stdout, stderr) of a script's main(argv)."""
    out, err = io.StringIO(), io.StringIO()
    stdout, stderr, sys.stdout, sys.stderr = sys.stdout, sys.stderr, out, err
    try:
        rc = main(argv)
    finally:
        sys.stdout, sys.stderr = stdout, stderr
    return rc, out.getvalue(), err.getvalue()


def write_log(lines):
    f = tempfile.NamedTemporaryFile("w", suffix=".log", delete=False)
    f.write("\n".join(lines) + "\n")
    f.close()
    return f.name


class Validate(unittest.TestCase):
    def test_sign_test(self):
        self.assertAlmostEqual(validate.sign_test_p([1] * 6), 2 / 64)
        self.assertAlmostEqual(validate.sign_test_p([-1] * 12 + [1] * 3), 2 * (1 + 15 + 105 + 455) / 2 ** 15)
        self.assertEqual(validate.sign_test_p([]), 1.0)
        self.assertEqual(validate.sign_test_p([0, 0]), 1.0)
        self.assertEqual(validate.sign_test_p([1, -1]), 1.0)

    def test_rank_orders_by_saving(self):
        self.assertEqual(validate.rank({"loss": 0.7, "norms": 0.9, "batched": 0.01}), ["norms", "loss", "batched"])


def bench_doc(lang, batch, ms):
    """A benchmark JSON ({mode: [ms/step per repetition]}) in cnn_bench.py's shape."""
    return {"lang": lang, "results": [{"mode": m, "batch": batch, "rep": k, "ms_per_step": v}
                                      for m, reps in ms.items() for k, v in enumerate(reps)]}


class Rounds(unittest.TestCase):
    def test_the_modes_order_rotates_by_one_each_repetition(self):
        modes = ["a", "b", "c"]
        self.assertEqual([cnn_bench.rotated(modes, k, "rotate") for k in range(4)],
                         [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"]])
        self.assertEqual(cnn_bench.rotated(modes, 2, "fixed"), modes)

    def test_round_savings_pair_each_mode_with_its_reference_of_the_same_repetition(self):
        doc = bench_doc("py", 16, {"none": [3.0, 4.0], "loss": [3.1, 4.2], "norms": [3.5, 4.9],
                                   "batched": [3.2, 4.0], "compute": [3.2, 4.3]})
        rounds = validate.round_savings(doc, 16)
        self.assertEqual(len(rounds), 2)
        for got, want in zip(rounds, [{"loss": 0.1, "norms": 0.3, "batched": 0.0},
                                      {"loss": 0.2, "norms": 0.6, "batched": -0.3}]):
            for m in want:
                self.assertAlmostEqual(got[m], want[m])
        # A mode without repetitions leaves no rounds.
        self.assertEqual(validate.round_savings(bench_doc("py", 16, {"none": [3.0]}), 16), [])

    def test_rounds_resolve_what_processes_alone_cannot(self):
        # Two processes of unequal speed (the machine), eight rounds each: norms saves 0.3 ms a step, loss
        # 0.1, batched nothing, with round-to-round noise smaller than the differences.
        rng = random.Random(3)
        docs = []
        for speed in (3.0, 3.6):
            ms = {m: [] for m in validate.MODES}
            for _ in range(8):
                drift = rng.uniform(-0.3, 0.3)
                base = speed + drift
                for m, extra in (("none", 0.0), ("loss", 0.1), ("compute", 0.05), ("norms", 0.35), ("batched", 0.05)):
                    ms[m].append(base + extra + rng.gauss(0, 0.01))
            docs.append(bench_doc("py", 16, ms))
        pred = {"loss": 0.09, "norms": 0.32, "batched": 0.01}
        rows, lines = validate.orderings_over("Python", 16, [validate.fair_savings(d, 16) for d in docs],
                                              [r for d in docs for r in validate.round_savings(d, 16)], pred)
        self.assertIn("- Python batch 16, over processes: 0 of 3 pairs of modes resolved; the probe's order agrees on 0 "
                      "of them", lines)
        self.assertIn("- Python batch 16, over rounds: 3 of 3 pairs of modes resolved; the probe's order agrees on 3 "
                      "of them", lines)
        # A prediction in the wrong order is reported as such.
        rows, lines = validate.orderings_over("Python", 16, [], [r for d in docs for r in validate.round_savings(d, 16)],
                                              {"loss": 0.5, "norms": 0.32, "batched": 0.01})
        self.assertTrue(any(r[2] == "loss - norms" and r[9] == "DISAGREES" for r in rows), rows)

    def test_probe_numbers_carry_the_gpu_models_counts(self):
        site = {"path": "/w/bench/gpu/cnn_bench.py", "line": 82, "function": "log_norms", "calls": 220,
                "predicted_saving_ms": 22.0, "host_blocked_ms": 11.0, "gpu_idle_ms": 5.5}
        report = {"run": {"status": "ok"}, "sites": [site],
                  "totals": {"sampled_fraction": 0.3, "modelled_gpu_activities": 900, "modelled_without_duration": 12}}
        pn = validate.probe_numbers(report, 10)
        self.assertEqual((pn["modelled"], pn["modelled_unknown"]), (900, 12))
        self.assertAlmostEqual(pn["pred"], 2.2)
        del report["totals"]["modelled_gpu_activities"], report["totals"]["modelled_without_duration"]
        self.assertEqual(validate.probe_numbers(report, 10)["modelled"], 0)  # reports before the model

    def test_unprobed_twins_give_the_measured_ranking_and_the_errors(self):
        unprobed = [("rep-%d" % i, "cpp", 128, "0", bench_doc("cpp", 128, {
            "none": [3.0, 3.0, 3.0], "loss": [3.8, 3.8, 3.8], "norms": [4.3, 4.3, 4.3],
            "batched": [3.4, 3.4, 3.4], "compute": [3.4, 3.4, 3.4]})) for i in range(2)]

        def probed(pred_loss):
            cmp = {m: {"pred": p, "fair": None} for m, p in (("loss", pred_loss), ("norms", 0.85), ("batched", 0.01))}
            cmp["rounds"] = []
            return ("rep-9", "cpp", 128, "0", {}, cmp)
        text = "\n".join(validate.unprobed_section(unprobed, [probed(0.7)]))
        self.assertIn("- C++ batch 128: predicted norms > loss > batched, measured without the probe (medians of the "
                      "processes) norms > loss > batched: equal", text)
        self.assertIn("- C++ batch 128: predicted norms > loss > batched, measured without the probe (medians of the "
                      "rounds) norms > loss > batched: equal", text)
        # loss: measured 0.8 ms (21% of the step), predicted 0.7: -12.5%, within 25%.
        self.assertIn("| C++ | 128 | loss | 2 | 0.800 | 0.800-0.800 | 0.800 (6) | +21.1% | 0.700 (1) | -12.5% | yes |", text)
        text = "\n".join(validate.unprobed_section(unprobed, [probed(0.95)]))
        self.assertIn("predicted loss > norms > batched, measured without the probe (medians of the processes) "
                      "norms > loss > batched: DIFFERENT", text)
        self.assertIn("| C++ | 128 | loss | 2 | 0.800 | 0.800-0.800 | 0.800 (6) | +21.1% | 0.950 (1) | +18.8% | yes |", text)


class ReadPace(unittest.TestCase):
    def test_each_reads_wait_traced_replayed_and_untraced(self):
        site = {"path": "/w/train_cpp.cpp", "line": 129, "function": "log_norms", "calls": 2200, "traced_calls": 200,
                "host_blocked_ms": 64.0, "traced_host_blocked_ms": 4.0, "replayed_blocked_ms": 65.2,
                "wait_saving_ms": 48.0}
        harness = dict(site, function="main", line=200)  # not a logging site
        report = {"run": {"callback_overhead_ns": 0}, "runs": [{"callback_overhead_ns": 1500}], "sites": [site, harness]}
        rows = validate.pace_rows([("rep-2", "cpp", 128, "0", report, None), ("rep-3", "cpp", 128, "124", None, None)])
        # 4 ms over 200 traced calls: 20 us; replayed 65.2 - 60 untraced = 5.2 ms: 26 us; 60 ms over 2000: 30 us.
        self.assertEqual(rows, [["rep-2", "C++", 128, "log_norms:129", 1500, "20.0", "26.0", "30.0", "0.75"]])
        del site["replayed_blocked_ms"]  # a report before the field: replayed as recorded
        report["runs"] = []
        self.assertEqual(validate.pace_rows([("rep-2", "cpp", 128, "0", report, None)])[0][4:7], [0, "20.0", "20.0"])


class RepeatsBySetting(unittest.TestCase):
    def test_a_setting_keeps_its_probed_processes_and_every_unprobed_twin(self):
        with tempfile.TemporaryDirectory() as d:
            for k, (tag, setting) in enumerate([("cpp-probed-all-16", "A=1"), ("cpp-probed-all-16", None),
                                                ("cpp-probed-all-16", "A=1"), ("cpp-unprobed-all-16", None)], 1):
                rd = os.path.join(d, f"rep-{k}")
                os.makedirs(rd)
                for name, text in (("tag.txt", tag), ("rc.txt", "0"), ("setting.txt", setting)):
                    if text is not None:
                        with open(os.path.join(rd, name), "w") as f:
                            f.write(text + "\n")

            def last_line(*args):
                rc, out, err = captured(validate.main, ["--repeats", *args])
                return rc, (out.strip().splitlines() or [""])[-1], err
            self.assertEqual(last_line(d)[:2], (0, "3 probed processes, 1 unprobed, 0 ended abnormally"))
            self.assertEqual(last_line("--setting", "A=1", d)[:2], (0, "2 probed processes, 1 unprobed, 0 ended abnormally"))
            self.assertEqual(last_line("--setting", "", d)[:2], (0, "1 probed processes, 1 unprobed, 0 ended abnormally"))
            rc, _, err = last_line("--setting", "B=1", d)
            self.assertEqual(rc, 1)
            self.assertIn("for the setting 'B=1'", err)
            self.assertEqual(last_line("--setting", "A=1")[0], 2)  # no folder

HEADER = "variant\tlang\tbatch\tround\tms_per_step\tuser_s\tsys_s"


def overhead_table(rounds, variant="default", cost=1.02, base=2.0, lang="cpp", extra=()):
    """An overhead.sh table: per round an unprobed process and a probed one `cost` times slower."""
    rows = [HEADER]
    for r in range(1, rounds + 1):
        rows.append("unprobed\t%s\t16\t%d\t%s\t1\t1" % (lang, r, ",".join(["%.4f" % base] * 3)))
        rows.append("%s\t%s\t16\t%d\t%s\t1\t1" % (variant, lang, r, ",".join(["%.4f" % (base * cost)] * 3)))
    return write_log(rows + list(extra))


def rounds_of(path):
    """overhead_rounds.py's (exit status, stdout, stderr) on the table at path, which is then removed."""
    try:
        return captured(overhead_rounds.main, [path])
    finally:
        os.unlink(path)


class OverheadRounds(unittest.TestCase):
    def test_the_median_over_rounds_comes_with_a_bootstrap_interval_and_the_share_under_the_target(self):
        ratios = [0.01, 0.02, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08]
        median, low, high, share = overhead_rounds.median_interval(ratios)
        self.assertAlmostEqual(median, 0.035)
        self.assertLessEqual(low, median)
        self.assertGreaterEqual(high, median)
        self.assertGreaterEqual(low, 0.01)
        self.assertLessEqual(high, 0.08)
        self.assertTrue(0.1 < share < 0.9, share)
        self.assertEqual(overhead_rounds.median_interval([-0.01] * 5)[1:], (-0.01, -0.01, 1.0))
        self.assertEqual(overhead_rounds.median_interval([0.05] * 5)[3], 0.0)
        self.assertEqual(overhead_rounds.median_interval(ratios), overhead_rounds.median_interval(ratios))  # seeded

    def test_each_round_is_set_against_its_own_unprobed_process(self):
        # The machine's speed moves from round to round; the probed process is 5% slower than its round's
        # unprobed one in every round, and one probed process failed.
        rows = [HEADER]
        for r, speed in enumerate((2.0, 2.6, 2.3), start=1):
            rows.append("unprobed\tcpp\t16\t%d\t%s\t1\t1" % (r, ",".join(["%.4f" % speed] * 3)))
            rows.append("default\tcpp\t16\t%d\t%s\t1\t1" % (r, ",".join(["%.4f" % (speed * 1.05)] * 3)))
        rows.append("default\tcpp\t16\t4\trc=124\t? ?")
        rc, out, _ = rounds_of(write_log(rows))
        self.assertEqual(rc, 0)
        self.assertIn("| default | 3 | +5.0% | +5.0% to +5.0% | 0% |", out)
        self.assertIn("default: 1 of 4 processes failed (round 4 rc=124)", out)

    def test_several_languages_are_kept_apart(self):
        rows = [HEADER]
        for r in (1, 2):
            for lang, cost in (("cpp", 1.1), ("py", 1.3)):
                rows.append("unprobed\t%s\t16\t%d\t%s\t1\t1" % (lang, r, ",".join(["2.0000"] * 4)))
                rows.append("default\t%s\t16\t%d\t%s\t1\t1" % (lang, r, ",".join(["%.4f" % (2.0 * cost)] * 4)))
        path = write_log(rows)
        try:
            pairs = overhead_rounds.whole_pairs(overhead_rounds.read_table(path))
        finally:
            os.unlink(path)
        got = {variant: [round(a / b - 1, 3) for a, b in p] for variant, p in pairs.items()}
        self.assertEqual(got, {"default (cpp 16)": [0.1, 0.1], "default (py 16)": [0.3, 0.3]})

    def test_rounds_of_several_runs_pool_each_against_its_own_unprobed_processes(self):
        # Run a: probed 2% slower in each of 2 rounds; run b, on a machine twice as slow: 6% in 1 round.
        a, b = overhead_table(2, "D=1", 1.02, 2.0), overhead_table(1, "D=1+M=1", 1.06, 4.0)
        try:
            rc, out, _ = captured(overhead_rounds.main, ["--rounds", "both=D=1@" + a, "--rounds", "both=D=1+M=1@" + b])
            self.assertEqual(rc, 0)
            rc, _, err = captured(overhead_rounds.main, ["--rounds", "both=X=1@" + a])
            self.assertEqual(rc, 1)
            self.assertIn("no rounds of 'X=1'", err)
            self.assertEqual(captured(overhead_rounds.main, ["--rounds", "both@" + a])[0], 2)
        finally:
            os.unlink(a)
            os.unlink(b)
        self.assertIn("| both | 3 | +2.0% | +2.0% to +6.0% |", out)
        # In time: 40 us a step on the fast machine, 240 us on the slow one.
        self.assertRegex(out, r"\| both \| 3 \| [^\n]* \| \+40 \| \+40 to \+240 \|")
        self.assertIn("| both: " + b + " | 1 | +6.0% | +6.0% to +6.0% | 0% | +240 | +240 to +240 |", out)

    def test_a_table_written_before_the_column_was_renamed_is_read(self):
        path = overhead_table(2, extra=())
        with open(path) as f:
            text = f.read().replace("ms_per_step", "ms_per_step_or_us_per_launch", 1)
        with open(path, "w") as f:
            f.write(text)
        rc, out, _ = rounds_of(path)
        self.assertEqual(rc, 0)
        self.assertIn("| default | 2 | +2.0% |", out)

    def test_bad_input_is_an_error_not_a_traceback(self):
        only_unprobed = write_log([HEADER, "unprobed\tcpp\t16\t1\t2.0,2.0\t1\t1"])
        not_a_table = write_log(["no header here"])
        try:
            for argv, rc, message in ((["/nonexistent/overhead.tsv"], 1, "cannot read"),
                                      ([only_unprobed], 1, "no round with an unprobed and a probed process"),
                                      ([not_a_table], 1, "not an overhead.sh table"),
                                      (["a.tsv", "b.tsv"], 2, "one OVERHEAD.TSV"),
                                      (["--rounds"], 2, "--rounds needs")):
                got, _, err = captured(overhead_rounds.main, argv)
                self.assertEqual(got, rc, argv)
                self.assertIn(message, err)
        finally:
            os.unlink(only_unprobed)
            os.unlink(not_a_table)


class KeptScripts(unittest.TestCase):
    """Every script and program in bench/ says how to run it near its top, and parses."""

    def scripts(self):
        for folder, dirs, files in os.walk(os.path.join(ROOT, "bench")):
            dirs[:] = [d for d in dirs if d not in ("out", "__pycache__")]
            for name in files:
                if name.endswith((".sh", ".py", ".cpp")):
                    yield os.path.join(folder, name)

    def test_each_starts_with_a_usage_line(self):
        found = list(self.scripts())
        self.assertGreaterEqual(len(found), 12)
        for path in found:
            with open(path) as f:
                head = [next(f, "") for _ in range(12)]
            self.assertTrue(any("usage:" in line for line in head), "%s: no 'usage:' in its first 12 lines" % path)

    def test_each_parses(self):
        for path in self.scripts():
            if path.endswith(".sh"):
                r = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, "%s: %s" % (path, r.stderr))
            elif path.endswith(".py"):
                with tempfile.TemporaryDirectory() as d:
                    py_compile.compile(path, cfile=os.path.join(d, "x.pyc"), doraise=True)

    def test_raw_outputs_go_to_an_ignored_folder(self):
        r = subprocess.run(["git", "-C", ROOT, "check-ignore", "-q", "bench/out/overhead/overhead.tsv"])
        if r.returncode == 128:
            self.skipTest("not a git checkout")
        self.assertEqual(r.returncode, 0, "bench/out/ is not git-ignored")


if __name__ == "__main__":
    unittest.main()
