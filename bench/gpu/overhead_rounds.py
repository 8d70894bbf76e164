#!/usr/bin/env python3
"""The probe's overhead from bench/gpu/overhead.sh's table, round by round.

    usage: overhead_rounds.py OVERHEAD.TSV
           overhead_rounds.py --rounds NAME=VARIANT@OVERHEAD.TSV [--rounds ...]

overhead.sh runs mode none of the benchmark in separate processes, its variants (unprobed, the probe with
one setting or another) interleaved round by round. Per round, each probed process's median ms/step is
divided by that of the round's unprobed process of the same (language, batch): ratios within a round cancel
the machine's drift between rounds. Printed per variant: the median over rounds of that ratio with a 95%
percentile bootstrap interval (rounds resampled), the share of resampled medians at or under +3% (the
overhead target), and the same in time: the median over rounds of the probed step less the unprobed one, in
us (a fixed cost a step is a larger share of a faster host's shorter step, so machines that differ in speed
differ in the ratio and not in this). Processes that failed (rc=N in the table) are counted per variant.

With --rounds (one or more), the rounds of several tables pooled under NAME (each table's rounds against its
own unprobed processes; VARIANT as that table names it), then each table alone.
"""
import csv
import random
import statistics
import sys

TARGET = 0.03


def read_rows(path):
    with open(path) as f:
        reader = csv.DictReader(f, delimiter="\t")
        rows = list(reader)
    missing = {"variant", "lang", "batch", "round"} - set(reader.fieldnames or ())
    if missing or not {"ms_per_step", "ms_per_step_or_us_per_launch"} & set(reader.fieldnames or ()):
        raise ValueError("not an overhead.sh table (its header lacks %s)" % ", ".join(sorted(missing) or ["ms_per_step"]))
    # A table of one (lang, batch) names its variants as they are; one of several adds "(lang batch)".
    several = len({(r["lang"], r["batch"]) for r in rows}) > 1
    for r in rows:
        r["name"] = "%s (%s %s)" % (r["variant"], r["lang"], r["batch"]) if several else r["variant"]
        # tables written before the column was renamed
        r["ms"] = r.get("ms_per_step", r.get("ms_per_step_or_us_per_launch")) or ""
    return rows


def read_table(path):
    """{variant: {round: [ms per repetition]}}; with several (lang, batch) pairs in the table, each variant
    name gets its pair, "unprobed (py 16)"."""
    out = {}
    for row in read_rows(path):
        try:
            reps = [float(x) for x in row["ms"].split(",")]
        except ValueError:  # a failed process ("rc=N")
            continue
        out.setdefault(row["name"], {})[int(row["round"])] = reps
    return out


def read_failures(path):
    """{variant: [(round, "rc=N")]} for the processes that gave no repetitions."""
    out = {}
    for row in read_rows(path):
        if row["ms"].startswith("rc="):
            out.setdefault(row["name"], []).append((int(row["round"]), row["ms"]))
    return out


def median_interval(values, level=0.95, resamples=4000, seed=1, limit=TARGET):
    """The median of `values` (one per round) with a percentile bootstrap interval over the rounds, and the
    share of resampled medians at or under `limit`: (median, low, high, share)."""
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))
    tail = (1 - level) / 2
    low, high = meds[int(tail * (resamples - 1))], meds[int((1 - tail) * (resamples - 1))]
    return statistics.median(values), low, high, sum(1 for m in meds if m <= limit) / resamples


def whole_pairs(table, reference="unprobed"):
    """{variant: [(its median ms/step, the reference's) of each round both ran]} for every variant but the
    references, each against the reference of its own (lang, batch)."""
    out = {}
    for variant, by_round in table.items():
        pair = variant[variant.find(" ("):] if " (" in variant else ""
        if variant == reference + pair:
            continue
        ref = table.get(reference + pair, {})
        pairs = [(statistics.median(by_round[r]), statistics.median(ref[r])) for r in sorted(by_round) if r in ref]
        if pairs:
            out[variant] = pairs
    return out


def print_rows(labelled):
    print("| variant | rounds | whole process | 95% interval of the median (bootstrap over rounds) "
          "| resampled medians at or under +3% | per step (us) | its 95% interval |\n|---|---|---|---|---|---|---|")
    for label, pairs in labelled:
        median, low, high, share = median_interval([a / b - 1 for a, b in pairs])
        d_median, d_low, d_high, _ = median_interval([1000 * (a - b) for a, b in pairs])
        print("| %s | %d | %+.1f%% | %+.1f%% to %+.1f%% | %.0f%% | %+.0f | %+.0f to %+.0f |" % (
            label, len(pairs), 100 * median, 100 * low, 100 * high, 100 * share, d_median, d_low, d_high))


def rounds_main(specs):
    pools, runs = {}, []  # label: [(probed, unprobed) of each round]
    for spec in specs:
        name, sep, rest = spec.partition("=")
        variant, at, tsv = rest.rpartition("@")
        if not (sep and at and name and variant and tsv):
            print("overhead_rounds: --rounds %r is not NAME=VARIANT@OVERHEAD.TSV" % spec, file=sys.stderr)
            return 2
        try:
            table = read_table(tsv)
        except (OSError, ValueError) as e:
            print("overhead_rounds: cannot read %s: %s" % (tsv, e), file=sys.stderr)
            return 1
        pairs = whole_pairs(table).get(variant)
        if not pairs:
            print("overhead_rounds: no rounds of %r in %s" % (variant, tsv), file=sys.stderr)
            return 1
        pools.setdefault(name, []).extend(pairs)
        runs.append(("%s: %s" % (name, tsv), pairs))
    print_rows(list(pools.items()) + runs)
    return 0


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    if argv[0] == "--rounds":
        if len(argv) % 2 or any(flag != "--rounds" for flag in argv[::2]):
            print("overhead_rounds: --rounds needs NAME=VARIANT@OVERHEAD.TSV", file=sys.stderr)
            return 2
        return rounds_main(argv[1::2])
    if len(argv) != 1:
        print("overhead_rounds: one OVERHEAD.TSV, or --rounds (see --help)", file=sys.stderr)
        return 2
    try:
        table = read_table(argv[0])
    except (OSError, ValueError) as e:
        print("overhead_rounds: cannot read %s: %s" % (argv[0], e), file=sys.stderr)
        return 1
    pairs = whole_pairs(table)
    if not pairs:
        print("overhead_rounds: %s has no round with an unprobed and a probed process" % argv[0], file=sys.stderr)
        return 1
    print_rows(pairs.items())
    for variant, failed in read_failures(argv[0]).items():
        ran = len(table.get(variant, {})) + len(failed)
        print("\n%s: %d of %d processes failed (%s)" % (variant, len(failed), ran,
                                                       ", ".join("round %d %s" % f for f in sorted(failed))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
