#!/usr/bin/env python3
"""The probe's overhead over the course of a run, from bench/gpu/overhead.sh's table.

    overhead_phases.py OVERHEAD.TSV [SEGMENTS]

overhead.sh runs mode none of the benchmark in separate processes, its variants (unprobed, the probe with
one setting or another) interleaved round by round. With many short repetitions (e.g. STEPS=100 REPS=40)
each process's repetitions, in the order they ran, show how its step time moves during the run: with the
probe's defaults a site that keeps syncing asks for traced stretches a few seconds in, so the
repetitions before, during and after them differ. Each process's repetitions are cut into SEGMENTS
(default 4) equal parts; for each probed variant, per round, the median of a segment is divided by the
median of the same segment of the round's unprobed process. Printed per variant: the median over rounds
of the whole-process ratio (as in overhead.sh's usual reading), of each segment's ratio, and how many
rounds were slower than the unprobed process. Ratios within a round cancel the machine's drift between
rounds; the segments show whether the cost stays after the stretches have ended.
"""
import csv
import statistics
import sys


def read_table(path):
    """{variant: {round: [ms per repetition]}} for the (lang, batch) of the table's rows (one pair expected)."""
    out = {}
    with open(path) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            try:
                reps = [float(x) for x in row["ms_per_step_or_us_per_launch"].split(",")]
            except ValueError:  # a failed process ("rc=N")
                continue
            out.setdefault(row["variant"], {})[int(row["round"])] = reps
    return out


def segment_medians(reps, segments):
    n = len(reps)
    bounds = [round(k * n / segments) for k in range(segments + 1)]
    return [statistics.median(reps[bounds[k]:bounds[k + 1]]) for k in range(segments) if bounds[k + 1] > bounds[k]]


def phases(table, segments=4, reference="unprobed"):
    """[(variant, rounds, whole-process ratio - 1, [segment ratio - 1], rounds slower)] for every variant but
    the reference, over the rounds both have with the same number of repetitions."""
    ref = table.get(reference, {})
    rows = []
    for variant, by_round in table.items():
        if variant == reference:
            continue
        rounds = sorted(r for r in by_round if r in ref and len(ref[r]) == len(by_round[r]) >= segments)
        if not rounds:
            continue
        whole = [statistics.median(by_round[r]) / statistics.median(ref[r]) - 1 for r in rounds]
        per_seg = [[a / b - 1 for a, b in zip(segment_medians(by_round[r], segments), segment_medians(ref[r], segments))]
                   for r in rounds]
        seg = [statistics.median(s[k] for s in per_seg) for k in range(segments)]
        rows.append((variant, len(rounds), statistics.median(whole), seg, sum(1 for w in whole if w > 0)))
    return rows


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    segments = int(argv[1]) if len(argv) > 1 else 4
    table = read_table(argv[0])
    if "unprobed" not in table:
        print("overhead_phases: %s has no unprobed processes" % argv[0], file=sys.stderr)
        return 1
    print("| variant | rounds | whole process | %s | rounds slower |" %
          " | ".join("segment %d of %d" % (k + 1, segments) for k in range(segments)))
    print("|---" * (segments + 4) + "|")
    for variant, n, whole, seg, slower in phases(table, segments):
        print("| %s | %d | %+.1f%% | %s | %d of %d |" % (variant, n, 100 * whole, " | ".join("%+.1f%%" % (100 * s) for s in seg),
                                                       slower, n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
