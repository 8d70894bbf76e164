"""The analysis in bench/gpu's scripts, on synthetic inputs (the GPU runs themselves need the GPU machine)."""
import json
import os
import contextlib
import io
import random
import sys
import tarfile
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu"))
import cnn_bench  # noqa: E402
import cupti_switch_summary  # noqa: E402
import estimates_by_setting  # noqa: E402
import interval_idle  # noqa: E402
import overhead_phases  # noqa: E402
import stress_summary  # noqa: E402
import stretch_overlap  # noqa: E402
import trim_stream  # noqa: E402
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


class StretchOverlap(unittest.TestCase):
    def test_repetitions_are_placed_between_the_switches_logged_around_them(self):
        # Two modes, two repetitions of 100 steps at 10 ms/step (1 s each), back to back from t = 2000 ms.
        # Traced from the start to 1000 ms (before the repetitions), then from 2500 to 3500 ms: half of
        # rep 0 of "a" and half of rep 0 of "b".
        path = write_log([
            "synclint probe: tracing off at 1000.0 ms",
            "synclint probe: tracing on at 2500.0 ms (request)",
            "cpp mode=a        batch=16   rep=0  10.000 ms/step",
            "synclint probe: tracing off at 3500.0 ms",
            "cpp mode=b        batch=16   rep=0  10.000 ms/step",
            "cpp mode=a        batch=16   rep=1  10.000 ms/step",
            "cpp mode=b        batch=16   rep=1  10.000 ms/step",
        ])
        try:
            events = stretch_overlap.read_log(path)
        finally:
            os.unlink(path)
        self.assertEqual(len(events), 7)
        fr = stretch_overlap.traced_fractions(events, 100)
        # The log bounds the end of rep 0 of "a" to [2500, 3500] ms: placed midway, at 3000.
        self.assertAlmostEqual(fr[("a", 16, 0)], 0.5)
        self.assertAlmostEqual(fr[("b", 16, 0)], 0.5)
        self.assertAlmostEqual(fr[("a", 16, 1)], 0.0)
        self.assertAlmostEqual(fr[("b", 16, 1)], 0.0)

    def test_a_log_whose_order_contradicts_the_durations_is_counted(self):
        # Switched off at 2000 ms before rep 0 ended, yet switched on at 100 ms after it: no E_0 fits both.
        events = [("off", 2000.0), ("rep", "a", 16, 0, 10.0), ("on", 100.0), ("rep", "a", 16, 1, 10.0)]
        conflicts = []
        self.assertIsNotNone(stretch_overlap.traced_fractions(events, 100, conflicts))
        self.assertEqual(len(conflicts), 1)
        self.assertAlmostEqual(conflicts[0], 1900.0)
        stretch_overlap.traced_fractions(events, 100)  # without a list to report to

    def test_a_log_without_switches_during_the_repetitions_places_nothing(self):
        events = [("rep", "a", 16, 0, 10.0), ("rep", "b", 16, 0, 10.0)]
        self.assertIsNone(stretch_overlap.traced_fractions(events, 100))

    def test_the_within_slope_recovers_the_cost_of_tracing_despite_mode_and_repetition_effects(self):
        rng = random.Random(1)
        processes = []
        for _ in range(20):
            reps = {}
            rep_effect = [rng.uniform(0, 0.5) for _ in range(3)]
            for mi, m in enumerate(("none", "loss", "norms", "batched", "compute")):
                for k in range(3):
                    f = rng.random() * (1.0 if k == 0 else 0.3)  # stretches crowd the first repetition
                    reps[(m, k)] = (3.0 + 0.4 * mi + rep_effect[k] + 0.25 * f + rng.gauss(0, 0.01), f)
            processes.append(reps)
        self.assertAlmostEqual(stretch_overlap.within_slope(processes), 0.25, delta=0.02)
        lo, hi = stretch_overlap.bootstrap_range(processes)
        self.assertLess(lo, 0.25)
        self.assertGreater(hi, 0.25)
        # A process with one repetition, or a hole in its table, adds nothing.
        self.assertIsNone(stretch_overlap.within_terms({("a", 0): (1.0, 0.5), ("b", 0): (1.0, 0.0)}))
        self.assertIsNone(stretch_overlap.within_terms({("a", 0): (1.0, 0.5), ("a", 1): (1.0, 0.0), ("b", 0): (1.0, 0.0)}))


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

    def test_estimates_of_one_setting_from_an_archive_holding_several(self):
        with tempfile.TemporaryDirectory() as d:
            archive = os.path.join(d, "repeats.tar.gz")
            with tarfile.open(archive, "w:gz") as tar:
                for k, (setting, loss) in enumerate([("S=first", 10.0), (None, 30.0), ("S=first", 20.0)]):
                    files = [(f"./rep-{k}/probe-cpp-probed-all-16.json", json.dumps(EstimatesBySetting.report(loss, 1.0)))]
                    if setting is not None:
                        files.append((f"./rep-{k}/setting.txt", setting + "\n"))
                    for name, text in files:
                        data = text.encode()
                        info = tarfile.TarInfo(name)
                        info.size = len(data)
                        tar.addfile(info, io.BytesIO(data))
            loss = ("cpp", "16", "loss")
            self.assertEqual(sorted(estimates_by_setting.per_step([archive])[loss]), [0.1, 0.2, 0.3])
            self.assertEqual(sorted(estimates_by_setting.per_step([archive], "S=first")[loss]), [0.1, 0.2])
            self.assertEqual(estimates_by_setting.per_step([archive], "")[loss], [0.3])
            folder = os.path.join(d, "unpacked")
            with tarfile.open(archive) as tar:
                tar.extractall(folder)
            self.assertEqual(sorted(estimates_by_setting.per_step([folder], "S=first")[loss]), [0.1, 0.2])
            self.assertEqual(estimates_by_setting.per_step([folder], "")[loss], [0.3])
            rc, out, _ = captured(estimates_by_setting.main, ["x", f"model={archive}@S=first", f"default={archive}@"])
            self.assertEqual(rc, 0)
            self.assertIn("| cpp | 16 | loss | 2, 0.150 | 1, 0.300 |", out)


class OverheadPhases(unittest.TestCase):
    def test_segments_show_a_cost_that_stays_after_the_stretches(self):
        # Eight repetitions per process; the probed process is 20% slower from its third repetition on, in
        # every round, while the machine's speed moves from round to round.
        rows = ["variant\tlang\tbatch\tround\tms_per_step_or_us_per_launch\tuser_s\tsys_s"]
        for r, speed in enumerate((2.0, 2.6, 2.3), start=1):
            base = [speed] * 8
            probed = [speed] * 2 + [speed * 1.2] * 6
            rows.append("unprobed\tcpp\t16\t%d\t%s\t1\t1" % (r, ",".join("%.4f" % x for x in base)))
            rows.append("default\tcpp\t16\t%d\t%s\t1\t1" % (r, ",".join("%.4f" % x for x in probed)))
        rows.append("default\tcpp\t16\t4\trc=124\t? ?")  # a failed process is left out
        path = write_log(rows)
        try:
            table = overhead_phases.read_table(path)
        finally:
            os.unlink(path)
        (variant, n, whole, seg, slower), = overhead_phases.phases(table, 4)
        self.assertEqual((variant, n, slower), ("default", 3, 3))
        self.assertAlmostEqual(whole, 0.2, places=3)
        for got, want in zip(seg, (0.0, 0.2, 0.2, 0.2)):
            self.assertAlmostEqual(got, want, places=3)

    def test_the_median_over_rounds_comes_with_a_bootstrap_interval_and_the_share_under_the_target(self):
        ratios = [0.01, 0.02, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08]
        median, low, high, share = overhead_phases.median_interval(ratios)
        self.assertAlmostEqual(median, 0.035)
        self.assertLessEqual(low, median)
        self.assertGreaterEqual(high, median)
        self.assertGreaterEqual(low, 0.01)
        self.assertLessEqual(high, 0.08)
        self.assertTrue(0.1 < share < 0.9, share)
        self.assertEqual(overhead_phases.median_interval([-0.01] * 5)[1:], (-0.01, -0.01, 1.0))
        self.assertEqual(overhead_phases.median_interval([0.05] * 5)[3], 0.0)
        self.assertEqual(overhead_phases.median_interval(ratios), overhead_phases.median_interval(ratios))  # seeded

    def test_main_prints_the_interval_of_each_variant(self):
        rows = ["variant\tlang\tbatch\tround\tms_per_step_or_us_per_launch\tuser_s\tsys_s"]
        for r in (1, 2, 3):
            rows.append("unprobed\tcpp\t16\t%d\t2.0,2.0,2.0\t1\t1" % r)
            rows.append("default\tcpp\t16\t%d\t2.1,2.1,2.1\t1\t1" % r)
        path = write_log(rows)
        try:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(overhead_phases.main([path, "1"]), 0)
        finally:
            os.unlink(path)
        self.assertIn("| default | 3 | +5.0% | +5.0% to +5.0% | 0% |", out.getvalue())

    def test_rounds_of_several_runs_pool_each_against_its_own_unprobed_processes(self):
        # Run a: probed 2% slower in each of 2 rounds; run b, on a machine twice as slow: 6% in 1 round.
        def run(base, cost, rounds, variant):
            rows = ["variant\tlang\tbatch\tround\tms_per_step_or_us_per_launch\tuser_s\tsys_s"]
            for r in range(1, rounds + 1):
                rows.append("unprobed\tcpp\t16\t%d\t%s\t1\t1" % (r, ",".join(["%.4f" % base] * 3)))
                rows.append("%s\tcpp\t16\t%d\t%s\t1\t1" % (variant, r, ",".join(["%.4f" % (base * cost)] * 3)))
            return write_log(rows)
        a, b = run(2.0, 1.02, 2, "D=1"), run(4.0, 1.06, 1, "D=1+M=1")
        try:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(overhead_phases.main(["--rounds", "both=D=1@" + a, "--rounds", "both=D=1+M=1@" + b]), 0)
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                self.assertEqual(overhead_phases.main(["--rounds", "both=X=1@" + a]), 1)
                self.assertEqual(overhead_phases.main(["--rounds", "both@" + a]), 2)
        finally:
            os.unlink(a)
            os.unlink(b)
        self.assertIn("| both | 3 | +2.0% | +2.0% to +6.0% |", out.getvalue())
        # In time: 40 us a step on the fast machine, 240 us on the slow one.
        self.assertRegex(out.getvalue(), r"\| both \| 3 \| [^\n]* \| \+40 \| \+40 to \+240 \|")
        self.assertIn("| both: " + b + " | 1 | +6.0% | +6.0% to +6.0% | 0% | +240 | +240 to +240 |", out.getvalue())
        self.assertIn("no rounds of 'X=1'", err.getvalue())

    def test_several_languages_are_kept_apart_and_failed_processes_counted(self):
        # C++ probed 10% slower, Python 30% slower; one Python process failed.
        rows = ["variant\tlang\tbatch\tround\tms_per_step_or_us_per_launch\tuser_s\tsys_s"]
        for r in (1, 2):
            for lang, cost in (("cpp", 1.1), ("py", 1.3)):
                rows.append("unprobed\t%s\t16\t%d\t%s\t1\t1" % (lang, r, ",".join(["2.0000"] * 4)))
                rows.append("default\t%s\t16\t%d\t%s\t1\t1" % (lang, r, ",".join(["%.4f" % (2.0 * cost)] * 4)))
        rows.append("default\tpy\t16\t3\trc=139\t? ?")
        path = write_log(rows)
        try:
            table = overhead_phases.read_table(path)
            failures = overhead_phases.read_failures(path)
        finally:
            os.unlink(path)
        got = {variant: round(whole, 3) for variant, n, whole, seg, slower in overhead_phases.phases(table, 4)}
        self.assertEqual(got, {"default (cpp 16)": 0.1, "default (py 16)": 0.3})
        self.assertEqual(failures, {"default (py 16)": [(3, "rc=139")]})

    def test_a_repetition_during_which_a_probe_task_ended_is_set_apart(self):
        log = ["synclint probe: tracing off at 1000.0 ms",
               "cpp mode=none     batch=16   rep=0  2.000 ms/step",
               "synclint probe: window cut of 13.4 ms (symbolizing 2.9 ms) ending at 1213.8 ms",
               "cpp mode=none     batch=16   rep=1  2.100 ms/step",
               "cpp mode=none     batch=16   rep=2  2.000 ms/step",
               "synclint probe: site capture of 7.6 ms ending at 2400.0 ms",
               "synclint probe: tracing on at 2500.0 ms (request)",
               "cpp mode=none     batch=16   rep=3  2.600 ms/step",
               "synclint probe: symbolizing new sites of 0.1 ms ending at 2700.0 ms",
               "cpp mode=none     batch=16   rep=4  2.600 ms/step"]
        self.assertEqual(overhead_phases.rep_states(log), [
            "untraced, after the first stretch only",
            "untraced, after the first stretch only, with a window cut, slow capture or symbolizing",
            "untraced, after the first stretch only",
            "traced, with a window cut, slow capture or symbolizing",
            "traced, with a window cut, slow capture or symbolizing"])

    def test_repetitions_are_put_in_the_state_the_probe_log_shows_before_them(self):
        log = ["synclint probe: tracing off at 1000.0 ms",
               "cpp mode=none     batch=16   rep=0  2.000 ms/step",
               "synclint probe: tracing on at 2500.0 ms (request)",
               "cpp mode=none     batch=16   rep=1  2.600 ms/step",
               "synclint probe: tracing off at 3500.0 ms",
               "synclint probe: flush of the stretch at 3700.0 ms",
               "cpp mode=none     batch=16   rep=2  2.200 ms/step",
               "synclint probe: CUPTI detached and attached again (30.0 ms)",
               "cpp mode=none     batch=16   rep=3  2.000 ms/step"]
        self.assertEqual(overhead_phases.rep_states(log), [
            "untraced, after the first stretch only", "traced", "untraced, after a later stretch",
            "untraced, after a detach"])
        with tempfile.TemporaryDirectory() as runs:
            os.makedirs(os.path.join(runs, "cpp-SYNCLINT_PROBE_DEBUG=1-16-r1"))
            with open(os.path.join(runs, "cpp-SYNCLINT_PROBE_DEBUG=1-16-r1", "stderr.txt"), "w") as f:
                f.write("\n".join(log) + "\n")
            tsv = os.path.join(runs, "overhead.tsv")
            with open(tsv, "w") as f:
                f.write("variant\tlang\tbatch\tround\tms_per_step_or_us_per_launch\tuser_s\tsys_s\n"
                        "unprobed\tcpp\t16\t1\t2.0,2.0,2.0,2.0\t1\t1\n"
                        "SYNCLINT_PROBE_DEBUG=1\tcpp\t16\t1\t2.0,2.6,2.2,2.0\t1\t1\n")
            states = overhead_phases.by_state(tsv, runs)
            # A second round, its process 5% slower after the later stretch: per state, the median over the
            # rounds' medians, and how many rounds were slower.
            os.makedirs(os.path.join(runs, "cpp-SYNCLINT_PROBE_DEBUG=1-16-r2"))
            with open(os.path.join(runs, "cpp-SYNCLINT_PROBE_DEBUG=1-16-r2", "stderr.txt"), "w") as f:
                f.write("\n".join(log) + "\n")
            with open(tsv, "a") as f:
                f.write("unprobed\tcpp\t16\t2\t2.0,2.0,2.0,2.0\t1\t1\n"
                        "SYNCLINT_PROBE_DEBUG=1\tcpp\t16\t2\t1.9,2.4,2.1,2.0\t1\t1\n")
            rows = overhead_phases.state_rows(tsv, runs)
        got = {state: [round(x, 3) for x in ratios] for state, ratios in states["SYNCLINT_PROBE_DEBUG=1"].items()}
        self.assertEqual(got, {"untraced, after the first stretch only": [0.0], "traced": [0.3],
                               "untraced, after a later stretch": [0.1], "untraced, after a detach": [0.0]})
        got = {state: (n, round(median, 3), rounds, round(of_rounds, 3), slower)
               for variant, state, n, median, rounds, of_rounds, slower in rows}
        self.assertEqual(got, {"untraced, after the first stretch only": (2, -0.025, 2, -0.025, 0),
                               "traced": (2, 0.25, 2, 0.25, 2),
                               "untraced, after a later stretch": (2, 0.075, 2, 0.075, 2),
                               "untraced, after a detach": (2, 0.0, 2, 0.0, 0)})


class OverheadPool(unittest.TestCase):
    LOG = ["synclint probe: tracing off at 1000.0 ms",
           "cpp mode=none     batch=16   rep=0  2.000 ms/step",
           "synclint probe: tracing on at 2500.0 ms (request)",
           "cpp mode=none     batch=16   rep=1  2.600 ms/step",
           "synclint probe: tracing off at 3500.0 ms",
           "cpp mode=none     batch=16   rep=2  2.200 ms/step",
           "cpp mode=none     batch=16   rep=3  2.200 ms/step"]

    def write_run(self, root, variant, probed):
        """One overhead run of one round under root: its overhead.tsv and runs/ folder."""
        runs = os.path.join(root, "runs", "cpp-%s-16-r1" % variant)
        os.makedirs(runs)
        with open(os.path.join(runs, "stderr.txt"), "w") as f:
            f.write("\n".join(self.LOG) + "\n")
        with open(os.path.join(root, "overhead.tsv"), "w") as f:
            f.write("variant\tlang\tbatch\tround\tms_per_step_or_us_per_launch\tuser_s\tsys_s\n"
                    "unprobed\tcpp\t16\t1\t2.0,2.0,2.0,2.0\t1\t1\n"
                    "%s\tcpp\t16\t1\t%s\t1\t1\n" % (variant, probed))
        return os.path.join(root, "overhead.tsv"), os.path.join(root, "runs")

    def test_a_setting_named_differently_in_two_runs_pools_their_rounds(self):
        with tempfile.TemporaryDirectory() as d:
            a = self.write_run(os.path.join(d, "a"), "A=1", "2.0,2.6,2.2,2.2")
            b = self.write_run(os.path.join(d, "b"), "A=1+B=1", "2.2,2.4,2.4,2.6")
            specs = [overhead_phases.parse_pool("set=A=1@%s:%s" % a), overhead_phases.parse_pool("set=A=1+B=1@%s:%s" % b)]
            self.assertEqual(specs[1], ("set", "A=1+B=1", b[0], b[1]))
            got = overhead_phases.pooled(specs)
        self.assertEqual([round(w, 3) for w in got["set"]["whole"]], [0.1, 0.2])
        self.assertEqual({k: [round(x, 3) for x in v] for k, v in got["set"].items() if k != "whole"},
                         {"untraced, after the first stretch only": [0.0, 0.1], "traced": [0.3, 0.2],
                          "untraced, after a later stretch": [0.1, 0.25]})

    def test_a_pool_without_its_variant_or_its_paths_is_an_error(self):
        with self.assertRaises(ValueError):
            overhead_phases.parse_pool("set=A=1@overhead.tsv")
        with tempfile.TemporaryDirectory() as d:
            tsv, runs = self.write_run(d, "A=1", "2.0,2.6,2.2,2.2")
            with self.assertRaises(ValueError):
                overhead_phases.pooled([("set", "B=1", tsv, runs)])


class TrimStream(unittest.TestCase):
    def trim(self, doc, *args):
        with tempfile.TemporaryDirectory() as d:
            src, out = os.path.join(d, "stream.json"), os.path.join(d, "out.json")
            with open(src, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            argv = sys.argv
            sys.argv = ["trim_stream.py", src, out, *args]
            try:
                rc = trim_stream.main()
            finally:
                sys.argv = argv
            if rc != 0:
                return rc, None
            with open(out, encoding="utf-8") as f:
                return rc, json.load(f)

    def test_keeps_the_first_calls_with_their_records_and_sites_counted_from_the_start(self):
        t0 = 10**18
        doc = {"format": "synclint-probe-stream", "version": 1, "run_start_ns": t0, "run_end_ns": t0 + 900,
               "dropped_activity_records": 0,
               "sites": [["a.py", 1, "f", "python"], ["b.py", 2, "g", "python"], ["c.py", 3, "h", "python"]],
               "host": [[t0 + 10, t0 + 20, 0, 1, "launch", "cudaLaunchKernel", -1],
                        [t0 + 30, t0 + 40, 0, 2, "async_copy", "cudaMemcpyAsync", 2, 0, 5, 7, 0],
                        [t0 + 50, t0 + 90, 0, 0, "stream_sync", "cudaStreamSynchronize", 2],
                        [t0 + 500, t0 + 510, 0, 3, "launch", "cudaLaunchKernel", 0]],
               "gpu": [[t0 + 25, t0 + 35, 0, 7, 1, "kernel", "void a_rather_long_kernel_name<float>()"],
                       [t0 + 45, t0 + 47, 0, 7, 2, "memcpy", "memcpy DtoH"],
                       [t0 + 520, t0 + 530, 0, 7, 3, "kernel", "k"]],
               "python_calls": [[t0 + 28, t0 + 95, 0, 2], [t0 + 400, t0 + 600, 0, 0]]}
        rc, out = self.trim(doc, "--calls", "3", "--name-len", "8")
        self.assertEqual(rc, 0)
        self.assertEqual(out["run_start_ns"], 0)
        self.assertEqual(out["run_end_ns"], 90)
        self.assertEqual(out["sites"], [["c.py", 3, "h", "python"]])  # the one the kept calls name, now 0
        self.assertEqual([h[6] for h in out["host"]], [-1, 0, 0])
        self.assertEqual(out["host"][1], [30, 40, 0, 2, "async_copy", "cudaMemcpyAsync", 0, 0, 5, 7, 0])
        self.assertEqual([g[6] for g in out["gpu"]], ["void a_r", "memcpy DtoH"])  # a copy's name stays whole
        self.assertEqual(out["python_calls"], [[28, 95, 0, 0]])

    def test_bad_input_is_an_error_not_a_traceback(self):
        rc, _ = self.trim({"host": []}, "--calls", "3")
        self.assertEqual(rc, 1)
        rc, _ = self.trim([1, 2], "--calls", "3")
        self.assertEqual(rc, 1)



class EstimatesBySetting(unittest.TestCase):
    @staticmethod
    def report(loss_ms, norms_ms):
        """A probe report of 100 steps: the loss read once a step, the norms reads 22 times."""
        return {"sites": [{"function": "log_loss", "calls": 100, "predicted_saving_ms": loss_ms},
                          {"function": "(anonymous namespace)::log_norms(x)", "calls": 2200, "predicted_saving_ms": norms_ms},
                          {"function": "main", "calls": 100, "predicted_saving_ms": 99.0}]}

    def test_medians_per_step_from_archives_and_folders(self):
        with tempfile.TemporaryDirectory() as d:
            folder = os.path.join(d, "repeats")
            for k, (loss, norms) in enumerate([(10.0, 20.0), (30.0, 40.0), (20.0, 60.0)]):
                os.makedirs(os.path.join(folder, f"rep-{k}"))
                with open(os.path.join(folder, f"rep-{k}", "probe-cpp-probed-all-16.json"), "w") as f:
                    json.dump(self.report(loss, norms), f)
            archive = os.path.join(d, "repeats.tar.gz")
            with tarfile.open(archive, "w:gz") as tar:
                data = json.dumps(self.report(50.0, 11.0)).encode()
                info = tarfile.TarInfo("./rep-2/probe-py-probed-all-128.json")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
                info = tarfile.TarInfo("./rep-2/cpp-probed-all-128.json")  # the benchmark's own: not a report
                info.size = 2
                tar.addfile(info, io.BytesIO(b"{}"))
            by_folder = estimates_by_setting.per_step([folder])
            self.assertEqual(sorted(by_folder), [("cpp", "16", "loss"), ("cpp", "16", "norms")])
            self.assertEqual(sorted(by_folder[("cpp", "16", "loss")]), [0.1, 0.2, 0.3])  # ms per call = per step
            self.assertAlmostEqual(sorted(by_folder[("cpp", "16", "norms")])[1], 40.0 / 2200 * 22)
            by_archive = estimates_by_setting.per_step([archive])
            self.assertEqual(by_archive, {("py", "128", "loss"): [0.5], ("py", "128", "norms"): [0.11]})
            rc, out, _ = captured(estimates_by_setting.main, ["x", f"a={folder}", f"b={archive}"])
            self.assertEqual(rc, 0)
            self.assertIn("| cpp | 16 | loss | 3, 0.200 | - |", out)
            self.assertIn("| py | 128 | norms | - | 1, 0.110 |", out)

    def test_bad_arguments_are_errors_not_tracebacks(self):
        err = io.StringIO()
        stderr, sys.stderr = sys.stderr, err
        try:
            self.assertEqual(estimates_by_setting.main(["x", "no-equals-sign"]), 2)
            self.assertEqual(estimates_by_setting.main(["x", "a=/nonexistent/repeats.tar.gz"]), 1)
        finally:
            sys.stderr = stderr
        self.assertIn("usage:", err.getvalue())
        self.assertIn("/nonexistent/repeats.tar.gz", err.getvalue())


class StressSummary(unittest.TestCase):
    def make_process(self, work, name, setting, rc, norms=None, log=""):
        d = os.path.join(work, name)
        os.makedirs(d)
        for fname, text in (("rc.txt", f"{rc}\n"), ("setting.txt", setting + "\n"), ("log.txt", log)):
            with open(os.path.join(d, fname), "w") as f:
                f.write(text)
        if norms is not None:
            sites = [{"function": "log_norms(Model&)", "calls": norms},
                     {"function": "main", "calls": 7}]
            with open(os.path.join(d, "report.json"), "w") as f:
                json.dump({"sites": sites}, f)

    def test_short_processes_are_counted_per_setting_among_those_that_exited_normally(self):
        with tempfile.TemporaryDirectory() as work:
            self.make_process(work, "s1-1-b128", "A=1", 0, 14300, "synclint probe: tracing off at 5.0 ms\n")
            self.make_process(work, "s1-2-b128", "A=1", 0, 7700,
                              "synclint probe: tracing off at 5.0 ms\n"
                              "synclint probe: sync-path callbacks: 9 entered (the last at 6.0 ms), 9 recorded\n"
                              "synclint probe: tracing off at 9.0 ms\n")
            self.make_process(work, "s1-3-b128", "A=1", 124)  # cut by the time budget: no report
            self.make_process(work, "s2-1-b128", "", 0, 14300,
                              "synclint probe: launch callbacks switched by a sync 3 times, by the window thread 1 times\n")
            self.make_process(work, "s2-2-b128", "", 1, 10)  # failed: not counted as short
            rows, counts = stress_summary.summarize(work, 14300)
        self.assertEqual(counts, {"A=1": [3, 2, 1], "(none)": [2, 1, 0]})
        self.assertEqual(len(rows), 5)
        self.assertTrue(rows[1].startswith("s1-2-b128 [A=1] exit 0 norms reads 7700 of 14300"), rows[1])
        self.assertIn("sync-path callbacks: 9 entered", rows[1])
        self.assertTrue(rows[1].endswith("tracing off at 9.0 ms"), rows[1])  # the last one only
        self.assertNotIn("tracing off at 5.0 ms", rows[1])
        self.assertIn("norms reads - of 14300", rows[2])
        self.assertIn("switched by a sync 3 times", rows[3])

    def test_bad_arguments_are_errors_not_tracebacks(self):
        with tempfile.TemporaryDirectory() as work:
            for argv in ([work], [work, "many"], [os.path.join(work, "none"), "5"]):
                rc, _, err = captured(stress_summary.main, ["stress_summary.py", *argv])
                self.assertEqual(rc, 2, argv)
                self.assertIn("needs a work folder", err)


class IntervalIdle(unittest.TestCase):
    """Two reads with 4 launches between them: the recording's GPU idles in the middle of the interval (a
    long kernel, then short ones launched slower than they run), the modelled one right after the read."""

    T0 = 10**18

    def stream(self, gpu):
        t = self.T0
        host = [[t, t + 10_000, 0, 0, "stream_sync", "cudaStreamSynchronize", 0]]
        host += [[t + 10_000 + k * 20_000, t + 11_000 + k * 20_000, 0, k + 1, "launch", "cudaLaunchKernel", -1]
                 for k in range(4)]
        host += [[t + 90_000, t + 110_000, 0, 0, "stream_sync", "cudaStreamSynchronize", 0]]
        return {"format": "synclint-probe-stream", "version": 1, "run_start_ns": t, "run_end_ns": t + 200_000,
                "dropped_activity_records": 0, "sites": [["/w/bench/train.py", 12, "step", "python"]],
                "host": host, "gpu": [[t + a, t + b, 0, 7, c, "kernel", name] for a, b, c, name in gpu]}

    def run_script(self, recording, modelled, *args):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, doc in (("rec.json", recording), ("mod.json", modelled)):
                paths.append(os.path.join(d, name))
                with open(paths[-1], "w", encoding="utf-8") as f:
                    json.dump(doc, f)
            return captured(interval_idle.main, [*paths, *args])

    def test_busy_and_idle_per_quarter_recorded_against_modelled(self):
        # The interval: from the first read's return (10 us) to the second's (110 us), quarters of 25 us.
        recording = self.stream([(12_000, 40_000, 1, "long"), (40_000, 41_000, 2, "short"),
                                 (52_000, 53_000, 3, "short"), (72_000, 105_000, 4, "long")])
        modelled = self.stream([(12_000, 35_000, 1, "kernel (modelled)"), (35_000, 58_000, 2, "kernel (modelled)"),
                                (58_000, 81_000, 3, "kernel (modelled)"), (81_000, 105_000, 4, "kernel (modelled)")])
        rc, out, err = self.run_script(recording, modelled, "--site", "train.py:12", "--min-launches", "4")
        self.assertEqual(rc, 0, err)
        self.assertIn("1 intervals between syncs of train.py:12 with 4 or more launches", out)
        self.assertIn("4 launches in 100 us", out)
        # Recorded: busy 28 + 1 + 1 + 33 = 63 us, idle 37: 2 in the first quarter (10-12), 18 in the second
        # (35-60 less 35-41 and 52-53), 12 in the third (60-72), 5 in the fourth (105-110).
        self.assertIn("| recorded | 63 | 37 | 2 | 18 | 12 | 5 |", out)
        self.assertIn("| modelled | 93 | 7 | 2 | 0 | 0 | 5 |", out)

    def test_intervals_the_model_did_not_fill_and_small_ones_are_left_out(self):
        recording = self.stream([(12_000, 40_000, 1, "long")])
        rc, _, err = self.run_script(recording, recording, "--site", "train.py:12", "--min-launches", "4")
        self.assertEqual(rc, 1)  # the "modelled" stream holds records only: nothing the model made
        self.assertIn("no modelled interval", err)
        modelled = self.stream([(12_000, 35_000, 1, "kernel (modelled)")])
        rc, _, err = self.run_script(recording, modelled, "--site", "train.py:12", "--min-launches", "5")
        self.assertEqual(rc, 1)
        self.assertIn("no modelled interval of 5 or more launches", err)

    def test_bad_input_is_an_error_not_a_traceback(self):
        good = self.stream([])
        for argv, message in ((["--site", "train.py"], "expected PATH:LINE"),
                              (["--site", "other.py:12"], "no site other.py:12"),
                              (["--site", "rain.py:12"], "no site rain.py:12")):
            rc, _, err = self.run_script(good, good, *argv)
            self.assertEqual(rc, 1, argv)
            self.assertIn(message, err)
        rc, _, err = self.run_script({"format": "other"}, good, "--site", "train.py:12")
        self.assertEqual(rc, 1)
        self.assertIn("not a synclint-probe-stream", err)
        rc, _, err = self.run_script([1, 2], good, "--site", "train.py:12")
        self.assertEqual(rc, 1)
        self.assertIn("interval_idle:", err)


class CuptiSwitchSummary(unittest.TestCase):
    @staticmethod
    def tsv(rows):
        f = tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False)
        for r in rows:
            f.write("\t".join(str(c) for c in r) + "\n")
        f.close()
        return f.name

    @staticmethod
    def process(round_, label, launch_ns, callbacks=(0, 0, 0, 0)):
        """One switching process: its four phases' launch costs (the other two costs 10% and 50% above)."""
        return [(round_, label, label, phase, 100.0 * i, ns, ns * 1.1, ns * 1.5, cb)
                for i, (phase, ns, cb) in enumerate(zip(("before", "during", "after", "later"), launch_ns, callbacks))]

    def test_each_phase_is_set_against_its_own_processs_before(self):
        # Two rounds on machines of different speed: the ratios agree though the absolute costs do not.
        rows = self.process(1, "toggle", (2000, 3000, 2200, 2200), (5, 90000, 3, 3)) + \
            self.process(2, "toggle", (4000, 6000, 4400, 4400), (5, 90000, 3, 3)) + \
            self.process(1, "sync", (2000, 2000, 2000, 2020)) + self.process(2, "sync", (4000, 4000, 4000, 4040))
        rc, out, err = captured(cupti_switch_summary.main, [self.tsv(rows)])
        self.assertEqual(rc, 0, err)
        self.assertIn("| toggle | during | 2 | +50.0% | +50.0% | +50.0% | 3000 | 90000 |", out)
        self.assertIn("| toggle | after | 2 | +10.0% | +10.0% | +10.0% | 3000 | 3 |", out)
        self.assertIn("| sync | later | 2 | +1.0% | +1.0% | +1.0% | 3000 | 0 |", out)
        # phases in time order, whatever the labels' order
        self.assertLess(out.index("| toggle | during"), out.index("| toggle | after"))
        self.assertLess(out.index("| toggle | after"), out.index("| toggle | later"))
        self.assertNotIn("Timeline", out)

    def test_the_timeline_pairs_each_slot_with_the_first_labels_slot_of_the_same_round(self):
        rows = []
        for rnd, scale in ((1, 1.0), (2, 2.0)):
            for k, (unprobed, probed) in enumerate(((2000, 2600), (2000, 2100))):
                rows.append((rnd, "timeline-unprobed", "timeline", "t%d" % k, 250.0 * k, unprobed * scale, 50, 1500, 0))
                rows.append((rnd, "timeline-probed", "timeline", "t%d" % k, 250.0 * k + 10, probed * scale, 50, 1500, 0))
        rc, out, err = captured(cupti_switch_summary.main, [self.tsv(rows)])
        self.assertEqual(rc, 0, err)
        self.assertIn("| slot | t (ms, median) | timeline-unprobed launch ns | timeline-probed launch ns | "
                      "timeline-probed vs timeline-unprobed |", out)
        self.assertIn("| t0 | 5 | 3000 | 3900 | +30.0% |", out)
        self.assertIn("| t1 | 255 | 3000 | 3150 | +5.0% |", out)

    def test_bad_input_is_an_error_not_a_traceback(self):
        rc, _, err = captured(cupti_switch_summary.main, [self.tsv([(1, "toggle", "toggle", "before", 1.0)])])
        self.assertEqual(rc, 1)
        self.assertIn("expected 9 tab-separated columns, found 5", err)
        rc, _, err = captured(cupti_switch_summary.main, [self.tsv([(1, "toggle", "toggle", "before", "x", 1, 1, 1, 0)])])
        self.assertEqual(rc, 1)
        self.assertIn(":1:", err)
        rc, _, err = captured(cupti_switch_summary.main, [self.tsv([])])
        self.assertEqual(rc, 1)
        self.assertIn("holds no measurements", err)
        rc, _, err = captured(cupti_switch_summary.main, ["/nonexistent/switch.tsv"])
        self.assertEqual(rc, 1)
        self.assertIn("cupti_switch_summary:", err)
        rc, _, err = captured(cupti_switch_summary.main, [])
        self.assertEqual(rc, 2)


if __name__ == "__main__":
    unittest.main()
