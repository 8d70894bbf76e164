"""The analysis in bench/gpu's scripts, on synthetic inputs (the GPU runs themselves need the GPU machine)."""
import os
import random
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gpu"))
import stretch_overlap  # noqa: E402
import validate  # noqa: E402


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


if __name__ == "__main__":
    unittest.main()
