#!/usr/bin/env python3
"""The probe's overhead over the course of a run, from bench/gpu/overhead.sh's table.

    overhead_phases.py OVERHEAD.TSV [SEGMENTS] [--logs RUNS_DIR]

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
(traced; untraced after a stretch; untraced after CUPTI was detached and attached again, a setting since
removed), and divided by the same repetition of the round's unprobed process: the median per state.
"""
import csv
import os
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


# The probe's stderr lines (SYNCLINT_PROBE_DEBUG=1) that change its state, and the state after them.
STATE_LINES = (("synclint probe: tracing on", "traced"),
               ("synclint probe: tracing off", "untraced, after a stretch"),
               ("synclint probe: CUPTI detached and attached again", "untraced, after a detach"))
REP_LINE = re.compile(r"\brep=(\d+)\b")


def rep_states(log_lines):
    """[state of repetition K] from a probed process's stderr: the state set by the last switch line before
    the benchmark's line for repetition K ("start" before any)."""
    state, states = "start", {}
    for line in log_lines:
        for prefix, name in STATE_LINES:
            if line.startswith(prefix):
                state = name
        m = REP_LINE.search(line)
        if m and "mode=" in line:  # the benchmark's line for a finished repetition
            states[int(m.group(1))] = state
    return [states[k] for k in sorted(states)]


def by_state(tsv_path, runs_dir, reference="unprobed"):
    """{variant: {state: [ratio - 1 of each repetition to the same repetition of the round's reference]}}."""
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
            out.setdefault(names[(variant, lang, batch, rnd)], {}).setdefault(state, []).append(probed[k] / ref[k] - 1)
    return out


def segment_medians(reps, segments):
    n = len(reps)
    bounds = [round(k * n / segments) for k in range(segments + 1)]
    return [statistics.median(reps[bounds[k]:bounds[k + 1]]) for k in range(segments) if bounds[k + 1] > bounds[k]]


def phases(table, segments=4, reference="unprobed"):
    """[(variant, rounds, whole-process ratio - 1, [segment ratio - 1], rounds slower)] for every variant but
    the reference, over the rounds both have with the same number of repetitions."""
    rows = []
    for variant, by_round in table.items():
        pair = variant[variant.find(" ("):] if " (" in variant else ""
        if variant == reference + pair:
            continue
        ref = table.get(reference + pair, {})
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
    for variant, failed in read_failures(argv[0]).items():
        ran = len(table.get(variant, {})) + len(failed)
        print("\n%s: %d of %d processes failed (%s)" % (variant, len(failed), ran,
                                                       ", ".join("round %d %s" % f for f in sorted(failed))))
    if logs is not None:
        print("\n| variant | state of the probe | repetitions | median ratio to unprobed |\n|---|---|---|---|")
        for variant, states in by_state(argv[0], logs).items():
            for state, ratios in sorted(states.items()):
                print("| %s | %s | %d | %+.1f%% |" % (variant, state, len(ratios), 100 * statistics.median(ratios)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
