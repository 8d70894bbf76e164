#!/usr/bin/env python3
"""The probe's overhead over the course of a run, from bench/gpu/overhead.sh's table.

    overhead_phases.py OVERHEAD.TSV [SEGMENTS] [--logs RUNS_DIR]
    overhead_phases.py --pool NAME=VARIANT@OVERHEAD.TSV:RUNS_DIR [--pool ...]
    overhead_phases.py --rounds NAME=VARIANT@OVERHEAD.TSV [--rounds ...]

overhead.sh runs mode none of the benchmark in separate processes, its variants (unprobed, the probe with
one setting or another) interleaved round by round. With many short repetitions (e.g. STEPS=100 REPS=40)
each process's repetitions, in the order they ran, show how its step time moves during the run: with the
probe's defaults a site that keeps syncing asks for traced stretches a few seconds in, so the
repetitions before, during and after them differ. Each process's repetitions are cut into SEGMENTS
(default 4) equal parts; for each probed variant, per round, the median of a segment is divided by the
median of the same segment of the round's unprobed process. Printed per variant: the median over rounds
of the whole-process ratio (as in overhead.sh's usual reading), of each segment's ratio, and how many
rounds were slower than the unprobed process. Ratios within a round cancel the machine's drift between
rounds; the segments show whether the cost stays after the stretches have ended. Processes that failed
(rc=N in the table) are counted per variant.

With --logs RUNS_DIR (overhead.sh's runs/ folder, e.g. extracted from its runs.tar.gz), each repetition of a
probed process run with SYNCLINT_PROBE_DEBUG=1 is put in the state the probe's stderr shows before it
(traced; untraced after the first stretch only, which starts with the probe; untraced after a later
stretch, switched on mid-run; untraced after CUPTI was detached and attached again, a setting since
removed), and divided by the same repetition of the round's unprobed process: per state, the median over
all such repetitions, the median over rounds of each round's median, and the rounds whose median was
slower. The two untraced states tell a cost that a stretch switched on mid-run leaves behind from one
that the probe costs all along. A repetition during which one of the probe's long tasks ended (a window
cut, a site capture over 100 us: logged as they end since 2026-12-02) has its state marked so.

With --pool (one or more), the states of one setting over several runs, named NAME: VARIANT as its
overhead.tsv names it (with " (lang batch)" where the table has several), RUNS_DIR its extracted runs/
folder. Per NAME and state, the rounds of all its runs, the median of their rounds' medians and the rounds
slower; and per run, the whole-process figure.

After the segments: per variant, the whole-process median over rounds with a 95% percentile bootstrap
interval (rounds resampled), and the share of resampled medians at or under +3%, the overhead target.

With --rounds (one or more), that whole-process figure over the rounds of several runs together, named NAME
(each run's rounds against its own unprobed processes), then per run; no logs needed. Beside each, the
same in time: the median over rounds of the probed process's step less its unprobed one's, in us (ns a
launch for BENCH=launch tables), with its bootstrap interval: a fixed cost a step is a larger share of a
faster host's shorter step, so VMs that differ in speed differ in the ratio and not in this.
"""
import csv
import os
import random
import re
import statistics
import sys


def read_rows(path):
    with open(path) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    # A table of one (lang, batch) names its variants as they are; one of several adds "(lang batch)".
    several = len({(r["lang"], r["batch"]) for r in rows}) > 1
    for r in rows:
        r["name"] = "%s (%s %s)" % (r["variant"], r["lang"], r["batch"]) if several else r["variant"]
    return rows


def read_table(path):
    """{variant: {round: [ms per repetition]}}; with several (lang, batch) pairs in the table, each variant
    name gets its pair, "unprobed (py 16)"."""
    out = {}
    for row in read_rows(path):
        try:
            reps = [float(x) for x in row["ms_per_step_or_us_per_launch"].split(",")]
        except ValueError:  # a failed process ("rc=N")
            continue
        out.setdefault(row["name"], {})[int(row["round"])] = reps
    return out


def read_failures(path):
    """{variant: [(round, "rc=N")]} for the processes that gave no repetitions."""
    out = {}
    for row in read_rows(path):
        if row["ms_per_step_or_us_per_launch"].startswith("rc="):
            out.setdefault(row["name"], []).append((int(row["round"]), row["ms_per_step_or_us_per_launch"]))
    return out


# The probe's stderr lines (SYNCLINT_PROBE_DEBUG=1) that change its state, and the state after them. A
# "tracing off" ends the first stretch, which no "tracing on" line opens, or a later one.
STATE_LINES = (("synclint probe: tracing on", "traced"),
               ("synclint probe: tracing off", None),
               ("synclint probe: CUPTI detached and attached again", "untraced, after a detach"))
AFTER_FIRST, AFTER_LATER = "untraced, after the first stretch only", "untraced, after a later stretch"
# The probe's long tasks, each logged as it ends (since 2026-12-02): a repetition during which one ended is
# set apart (its state with WITH_TASK added), so that their cost shows.
TASK_LINES = ("synclint probe: window cut of", "synclint probe: site capture of", "synclint probe: symbolizing new sites of")
WITH_TASK = ", with a window cut, slow capture or symbolizing"
REP_LINE = re.compile(r"\brep=(\d+)\b")


def rep_states(log_lines):
    """[state of repetition K] from a probed process's stderr: the state set by the last switch line before
    the benchmark's line for repetition K ("start" before any), with WITH_TASK added when one of the probe's
    long tasks ended between the line of repetition K-1 and that of K."""
    state, states, later, task = "start", {}, False, False
    for line in log_lines:
        for prefix, name in STATE_LINES:
            if line.startswith(prefix):
                later = later or name == "traced"
                state = name or (AFTER_LATER if later else AFTER_FIRST)
        task = task or line.startswith(TASK_LINES)
        m = REP_LINE.search(line)
        if m and "mode=" in line:  # the benchmark's line for a finished repetition
            states[int(m.group(1))] = state + (WITH_TASK if task else "")
            task = False
    return [states[k] for k in sorted(states)]


def by_state(tsv_path, runs_dir, reference="unprobed", per_round=False):
    """{variant: {state: [ratio - 1 of each repetition to the same repetition of the round's reference]}};
    with per_round, {variant: {state: {round: [those ratios]}}}."""
    reps, names = {}, {}
    for row in read_rows(tsv_path):
        key = (row["variant"], row["lang"], row["batch"], int(row["round"]))
        names[key] = row["name"]
        try:
            reps[key] = [float(x) for x in row["ms_per_step_or_us_per_launch"].split(",")]
        except ValueError:
            continue
    out = {}
    for (variant, lang, batch, rnd), probed in reps.items():
        ref = reps.get((reference, lang, batch, rnd))
        log = os.path.join(runs_dir, "%s-%s-%s-r%d" % (lang, variant, batch, rnd), "stderr.txt")
        if variant == reference or ref is None or not os.path.exists(log):
            continue
        with open(log, errors="replace") as f:
            states = rep_states(f)
        for k, state in enumerate(states[:min(len(probed), len(ref))]):
            at = out.setdefault(names[(variant, lang, batch, rnd)], {})
            ratio = probed[k] / ref[k] - 1
            if per_round:
                at.setdefault(state, {}).setdefault(rnd, []).append(ratio)
            else:
                at.setdefault(state, []).append(ratio)
    return out


def state_rows(tsv_path, runs_dir, reference="unprobed"):
    """[(variant, state, repetitions, median ratio - 1, rounds, median over rounds of the rounds' medians - 1,
    rounds slower)]."""
    rows = []
    for variant, states in by_state(tsv_path, runs_dir, reference, per_round=True).items():
        for state, rounds in sorted(states.items()):
            ratios = [x for r in rounds.values() for x in r]
            medians = [statistics.median(r) for r in rounds.values()]
            rows.append((variant, state, len(ratios), statistics.median(ratios), len(medians), statistics.median(medians),
                         sum(1 for m in medians if m > 0)))
    return rows


def segment_medians(reps, segments):
    n = len(reps)
    bounds = [round(k * n / segments) for k in range(segments + 1)]
    return [statistics.median(reps[bounds[k]:bounds[k + 1]]) for k in range(segments) if bounds[k + 1] > bounds[k]]


def median_interval(values, level=0.95, resamples=4000, seed=1, limit=0.03):
    """The median of `values` (one whole-process ratio - 1 per round) with a percentile bootstrap interval
    over the rounds, and the share of resampled medians at or under `limit` (the 3% target): (median, low,
    high, share). Rounds are the unit: their ratios cancel the machine's drift between rounds."""
    rng = random.Random(seed)
    meds = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))
    tail = (1 - level) / 2
    low, high = meds[int(tail * (resamples - 1))], meds[int((1 - tail) * (resamples - 1))]
    return statistics.median(values), low, high, sum(1 for m in meds if m <= limit) / resamples


def against_reference(table, reference="unprobed"):
    """(variant, its rounds, the rounds of the reference of its (lang, batch)) for every variant but the
    references."""
    for variant, by_round in table.items():
        pair = variant[variant.find(" ("):] if " (" in variant else ""
        if variant != reference + pair:
            yield variant, by_round, table.get(reference + pair, {})


def whole_pairs(table, reference="unprobed"):
    """{variant: [(its whole-process median, the reference's) of each round]} against the round's
    reference process."""
    out = {}
    for variant, by_round, ref in against_reference(table, reference):
        pairs = [(statistics.median(by_round[r]), statistics.median(ref[r])) for r in sorted(by_round) if r in ref]
        if pairs:
            out[variant] = pairs
    return out


def whole_ratios(table, reference="unprobed"):
    """{variant: [whole-process ratio - 1 of each round]} against the round's reference process."""
    return {variant: [a / b - 1 for a, b in pairs] for variant, pairs in whole_pairs(table, reference).items()}


def phases(table, segments=4, reference="unprobed"):
    """[(variant, rounds, whole-process ratio - 1, [segment ratio - 1], rounds slower)] for every variant but
    the reference, over the rounds both have with the same number of repetitions."""
    rows = []
    for variant, by_round, ref in against_reference(table, reference):
        rounds = sorted(r for r in by_round if r in ref and len(ref[r]) == len(by_round[r]) >= segments)
        if not rounds:
            continue
        whole = [statistics.median(by_round[r]) / statistics.median(ref[r]) - 1 for r in rounds]
        per_seg = [[a / b - 1 for a, b in zip(segment_medians(by_round[r], segments), segment_medians(ref[r], segments))]
                   for r in rounds]
        seg = [statistics.median(s[k] for s in per_seg) for k in range(segments)]
        rows.append((variant, len(rounds), statistics.median(whole), seg, sum(1 for w in whole if w > 0)))
    return rows


def parse_pool(spec):
    """NAME=VARIANT@TSV:RUNS_DIR -> (name, variant, tsv, runs_dir); the variant may hold '=' and ' '."""
    name, sep, rest = spec.partition("=")
    variant, at, paths = rest.rpartition("@")
    tsv, colon, runs = paths.rpartition(":")
    if not (sep and at and colon and name and variant and tsv and runs):
        raise ValueError("--pool %r is not NAME=VARIANT@OVERHEAD.TSV:RUNS_DIR" % spec)
    return name, variant, tsv, runs


def pooled(specs, segments=4):
    """{name: {"whole": [whole-process ratio - 1 per run], state: [round medians of ratio - 1]}} over the runs
    each name lists."""
    out = {}
    for name, variant, tsv, runs in specs:
        at = out.setdefault(name, {"whole": []})
        whole = [row[2] for row in phases(read_table(tsv), segments) if row[0] == variant]
        states = by_state(tsv, runs, per_round=True).get(variant)
        if not whole or states is None:
            raise ValueError("no rounds of %r in %s with logs in %s" % (variant, tsv, runs))
        at["whole"].append(whole[0])
        for state, rounds in states.items():
            at.setdefault(state, []).extend(statistics.median(r) for r in rounds.values())
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    if argv[0] == "--rounds":
        if len(argv) % 2 or any(flag != "--rounds" for flag in argv[::2]):
            print("overhead_phases: --rounds needs NAME=VARIANT@OVERHEAD.TSV", file=sys.stderr)
            return 2
        pools, runs = {}, []  # label: [(probed, unprobed) of each round]
        for spec in argv[1::2]:
            name, sep, rest = spec.partition("=")
            variant, at, tsv = rest.rpartition("@")
            if not (sep and at and name and variant and tsv):
                print("overhead_phases: --rounds %r is not NAME=VARIANT@OVERHEAD.TSV" % spec, file=sys.stderr)
                return 2
            try:
                table = read_table(tsv)
            except OSError as e:
                print("overhead_phases: %s" % e, file=sys.stderr)
                return 1
            pairs = whole_pairs(table).get(variant)
            if not pairs:
                print("overhead_phases: no rounds of %r in %s" % (variant, tsv), file=sys.stderr)
                return 1
            pools.setdefault(name, []).extend(pairs)
            runs.append(("%s: %s" % (name, tsv), pairs))
        # The same cost in time: a fixed cost a step weighs more on a faster host's shorter step.
        print("| pooled as | rounds | whole process | 95% interval of the median (bootstrap over rounds) "
              "| resampled medians at or under +3% | per step (us) | its 95% interval |\n|---|---|---|---|---|---|---|")
        for label, pairs in list(pools.items()) + runs:
            median, low, high, share = median_interval([a / b - 1 for a, b in pairs])
            d_median, d_low, d_high, _ = median_interval([1000 * (a - b) for a, b in pairs])
            print("| %s | %d | %+.1f%% | %+.1f%% to %+.1f%% | %.0f%% | %+.0f | %+.0f to %+.0f |" % (
                label, len(pairs), 100 * median, 100 * low, 100 * high, 100 * share, d_median, d_low, d_high))
        return 0
    if argv[0] == "--pool":
        if len(argv) % 2:
            print("overhead_phases: --pool needs NAME=VARIANT@OVERHEAD.TSV:RUNS_DIR", file=sys.stderr)
            return 2
        try:
            pools = pooled([parse_pool(spec) for flag, spec in zip(argv[::2], argv[1::2]) if flag == "--pool"])
        except (ValueError, OSError) as e:
            print("overhead_phases: %s" % e, file=sys.stderr)
            return 1
        print("| setting | runs | whole process, per run | state of the probe | rounds | median of the rounds' medians "
              "| rounds slower |\n|---|---|---|---|---|---|---|")
        for name, at in pools.items():
            whole = ", ".join("%+.1f%%" % (100 * w) for w in at["whole"])
            for state in sorted(k for k in at if k != "whole"):
                medians = at[state]
                print("| %s | %d | %s | %s | %d | %+.1f%% | %d of %d |" % (
                    name, len(at["whole"]), whole, state, len(medians), 100 * statistics.median(medians),
                    sum(1 for m in medians if m > 0), len(medians)))
        return 0
    logs = None
    if "--logs" in argv:
        i = argv.index("--logs")
        if i + 1 >= len(argv):
            print("overhead_phases: --logs needs a folder", file=sys.stderr)
            return 2
        logs = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    segments = int(argv[1]) if len(argv) > 1 else 4
    table = read_table(argv[0])
    if not any(v.split(" (")[0] == "unprobed" for v in table):
        print("overhead_phases: %s has no unprobed processes" % argv[0], file=sys.stderr)
        return 1
    print("| variant | rounds | whole process | %s | rounds slower |" %
          " | ".join("segment %d of %d" % (k + 1, segments) for k in range(segments)))
    print("|---" * (segments + 4) + "|")
    for variant, n, whole, seg, slower in phases(table, segments):
        print("| %s | %d | %+.1f%% | %s | %d of %d |" % (variant, n, 100 * whole, " | ".join("%+.1f%%" % (100 * s) for s in seg),
                                                       slower, n))
    print("\n| variant | rounds | whole process | 95% interval of the median (bootstrap over rounds) "
          "| resampled medians at or under +3% |\n|---|---|---|---|---|")
    for variant, ratios in whole_ratios(table).items():
        median, low, high, share = median_interval(ratios)
        print("| %s | %d | %+.1f%% | %+.1f%% to %+.1f%% | %.0f%% |" % (variant, len(ratios), 100 * median, 100 * low,
                                                                     100 * high, 100 * share))
    for variant, failed in read_failures(argv[0]).items():
        ran = len(table.get(variant, {})) + len(failed)
        print("\n%s: %d of %d processes failed (%s)" % (variant, len(failed), ran,
                                                       ", ".join("round %d %s" % f for f in sorted(failed))))
    if logs is not None:
        print("\n| variant | state of the probe | repetitions | median ratio to unprobed | rounds | median of the rounds' "
              "medians | rounds slower |\n|---|---|---|---|---|---|---|")
        for variant, state, n, median, rounds, of_rounds, slower in state_rows(argv[0], logs):
            print("| %s | %s | %d | %+.1f%% | %d | %+.1f%% | %d of %d |" % (variant, state, n, 100 * median, rounds,
                                                                        100 * of_rounds, slower, rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
