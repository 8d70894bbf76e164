#!/usr/bin/env python3
"""How much of each timed repetition the probe traced, and what that did to the measured savings.

    stretch_overlap.py DIR...      (the rep-K/ folders of bench/gpu/repeat_probed.sh, as validate.py --repeats)

Under sampled tracing the probe traces stretches of about 1 s, at its own pace and when a site asks for one;
a repetition that falls in a stretch runs slower (CUPTI records every launch). The benchmarks interleave
the modes (none, loss, norms, batched, compute in each repetition), and a site that asks for a stretch
near the end of its repetition leaves most of that stretch to the mode that runs next, so the measured
saving of a mode against its reference can carry the probe's own cost.

Each process's probe log (probe-TAG.log, SYNCLINT_PROBE_DEBUG output on stderr) holds the stretches
("tracing on at T ms", "tracing off at T ms") interleaved with the benchmark's line at the end of each
repetition ("... mode=M batch=B rep=K  X ms/step"). Repetition k ends at E_k = E_0 + (the durations,
steps x ms/step, of the repetitions after the first up to k); E_0 is placed in the middle of the range
the log's order allows (a switch logged between the ends of repetitions k-1 and k happened between
them). The traced fraction of a repetition is its overlap with the stretches.

Printed: per (language, batch, mode), the median traced fraction of its repetitions; the slope of step
time on traced fraction, estimated within processes (with a mode and a repetition effect of their own,
so that the modes' differences and a repetition slow for every mode cancel); what the stretches cost
these processes (slope x mean traced fraction, as a share of mode none's step: the traced part of the
probe's overhead, free of the differences between processes); and each fair saving (validate.py: loss vs none, norms vs unread (vs compute before that mode),
batched vs compute) as measured, as its bias (slope x the difference of traced fractions) and as
corrected (measured minus bias), with the probe's prediction beside it.
"""
import glob
import os
import random
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate  # noqa: E402  (the same rep-K/ folders, fair references and predictions)

SWITCH = re.compile(r"synclint probe: tracing (on|off) at ([0-9.]+) ms")
REP = re.compile(r"\b(?:python|cpp) mode=(\w+)\s+batch=(\d+)\s+rep=(\d+)\s+([0-9.]+) ms/step")


def read_log(path):
    """[('on'|'off', t_ms) or ('rep', mode, batch, rep, ms_per_step)] in the log's order."""
    events = []
    with open(path, errors="replace") as f:
        for line in f:
            m = SWITCH.search(line)
            if m:
                events.append((m.group(1), float(m.group(2))))
                continue
            m = REP.search(line)
            if m:
                events.append(("rep", m.group(1), int(m.group(2)), int(m.group(3)), float(m.group(4))))
    return events


def traced_fractions(events, steps, conflicts=None):
    """{(mode, batch, rep): traced fraction} for one process, or None when the log does not place the reps.
    Where the log's order contradicts the repetitions' durations, by how much (ms) goes to `conflicts`."""
    reps = [e for e in events if e[0] == "rep"]
    if not reps:
        return None
    durations = [steps * e[4] for e in reps]
    offsets = [0.0]  # E_k - E_0
    for d in durations[1:]:
        offsets.append(offsets[-1] + d)
    lo, hi = float("-inf"), float("inf")  # range of E_0
    k = 0  # reps ended before the current event
    intervals, on_since = [], None
    first = next((e for e in events if e[0] in ("on", "off")), None)
    if first is not None and first[0] == "off":
        on_since = 0.0  # the probe starts traced
    for e in events:
        if e[0] == "rep":
            k += 1
            continue
        t = e[1]
        if k > 0:
            hi = min(hi, t - offsets[k - 1])  # after the end of rep k-1: E_0 + offsets[k-1] <= t
        if k < len(reps):
            lo = max(lo, t - offsets[k])  # before the end of rep k: t <= E_0 + offsets[k]
        if e[0] == "on" and on_since is None:
            on_since = t
        elif e[0] == "off" and on_since is not None:
            intervals.append((on_since, t))
            on_since = None
    if on_since is not None:
        intervals.append((on_since, float("inf")))
    if lo == float("-inf") and hi == float("inf"):
        return None  # no switch during the timed repetitions: nothing places them
    e0 = hi if lo == float("-inf") else lo if hi == float("inf") else (lo + hi) / 2
    if lo > hi and conflicts is not None:
        conflicts.append(lo - hi)  # the gaps between repetitions (a few ms) are not in the durations
    out = {}
    for e, off, d in zip(reps, offsets, durations):
        end = e0 + off
        start = end - d
        traced = sum(max(0.0, min(end, b) - max(start, a)) for a, b in intervals)
        out[(e[1], e[2], e[3])] = traced / d if d > 0 else 0.0
    return out


def within_terms(reps):
    """One process's (sum of y*f, sum of f*f) after taking out a mode and a repetition effect of its own (two-way
    within transformation of its complete mode x repetition table of ms/step y and traced fraction f); None
    when the table has fewer than two repetitions or modes, or a hole."""
    modes = sorted({m for m, _ in reps})
    ks = sorted({k for _, k in reps})
    if len(ks) < 2 or len(modes) < 2 or any((m, k) not in reps for m in modes for k in ks):
        return None
    y = {mk: v[0] for mk, v in reps.items()}
    f = {mk: v[1] for mk, v in reps.items()}
    for t in (y, f):
        grand = statistics.mean(t.values())
        by_m = {m: statistics.mean(t[(m, k)] for k in ks) for m in modes}
        by_k = {k: statistics.mean(t[(m, k)] for m in modes) for k in ks}
        for m in modes:
            for k in ks:
                t[(m, k)] = t[(m, k)] - by_m[m] - by_k[k] + grand
    return sum(y[mk] * f[mk] for mk in y), sum(f[mk] ** 2 for mk in f)


def slope_of(terms):
    sxy, sxx = sum(t[0] for t in terms), sum(t[1] for t in terms)
    return sxy / sxx if sxx > 0 else None


def within_slope(processes):
    """Slope of ms/step on traced fraction with a mode and a repetition effect of their own in each process:
    the modes' own differences cancel, and so does a repetition that ran slower for every mode (the first
    one, say, when stretches crowd the start). None when no process has two repetitions."""
    return slope_of([t for t in map(within_terms, processes) if t is not None])


def bootstrap_range(processes, rounds=1000, seed=0):
    """95% range of within_slope over processes resampled with replacement (fixed seed: the same table each
    time); (nan, nan) when fewer than two processes have terms."""
    terms = [t for t in map(within_terms, processes) if t is not None]
    if len(terms) < 2:
        return float("nan"), float("nan")
    rng = random.Random(seed)
    slopes = sorted(s for s in (slope_of([rng.choice(terms) for _ in terms]) for _ in range(rounds)) if s is not None)
    if not slopes:
        return float("nan"), float("nan")
    return slopes[int(0.025 * (len(slopes) - 1))], slopes[int(0.975 * (len(slopes) - 1))]


def of_mode(reps, mode, i=1):
    """Of one process's {(mode, rep): (ms/step, traced fraction)}: the traced fractions (i=1) or the step
    times (i=0) of `mode`'s repetitions."""
    return [v[i] for (m, _), v in reps.items() if m == mode]


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    rep_dirs = []
    for d in argv:
        rep_dirs += sorted(glob.glob(os.path.join(d, "rep-*")))
    procs = []  # (lang, batch, {(mode, rep): (ms, traced)}, compare)
    conflicts = []  # by how much (ms) a log's order contradicted the repetitions' durations
    for rd in rep_dirs:
        for log in glob.glob(os.path.join(rd, "probe-*-probed-all-*.log")):
            tag = os.path.basename(log)[len("probe-"):-len(".log")]
            lang, b = tag.split("-probed-all-")[0], int(tag.split("-probed-all-")[1])
            bench = validate.load(os.path.join(rd, tag + ".json"))
            rep = validate.load(os.path.join(rd, "probe-%s.json" % tag))
            if not bench or not rep:
                continue
            fr = traced_fractions(read_log(log), int(bench.get("config", {}).get("steps", 300)), conflicts)
            if fr is None:
                continue
            reps = {}
            for r in bench.get("results", []):
                key = (r["mode"], int(r["batch"]), int(r["rep"]))
                if key in fr:
                    reps[(r["mode"], int(r["rep"]))] = (float(r["ms_per_step"]), fr[key])
            procs.append((lang, b, reps, validate.compare_modes(bench, rep, b)))
    if not procs:
        print("stretch_overlap: no probed processes with logs in %s" % " ".join(argv), file=sys.stderr)
        return 1
    out = ["### Traced fraction of the timed repetitions, and the bias it puts into the measured savings\n"]
    rows_f, rows_s = [], []
    for lang, lname in validate.LANGS:
        for b in sorted({p[1] for p in procs if p[0] == lang}):
            mine = [p for p in procs if p[0] == lang and p[1] == b]
            frac = {m: [f for p in mine for f in of_mode(p[2], m)] for m in validate.MODES}
            slope = within_slope([p[2] for p in mine])
            # what the stretches cost these processes: slope x the mean traced fraction, against mode none's step
            all_f = [v[1] for p in mine for v in p[2].values()]
            none_ms = [t for p in mine for t in of_mode(p[2], "none", 0)]
            scale = statistics.mean(all_f) / statistics.median(none_ms) if none_ms else None
            share = slope * scale if slope is not None and scale is not None else None
            lo, hi = bootstrap_range([p[2] for p in mine])
            rows_f.append([lname, b, len(mine)] + ["%.2f" % statistics.median(frac[m]) if frac[m] else "-" for m in validate.MODES] +
                          ["-" if slope is None else "%+.3f (%+.3f to %+.3f)" % (slope, lo, hi), "%.2f" % statistics.mean(all_f),
                           "-" if share is None else "%s (%s to %s)" % (validate.pct(share), validate.pct(lo * scale),
                                                                         validate.pct(hi * scale))])
            for m in validate.SYNC_MODES:
                meas, bias, pred, steps = [], [], [], []
                for p in mine:
                    ref = validate.reference(m, {(k[0], b) for k in p[2]}, b)
                    fm, fr_ = of_mode(p[2], m), of_mode(p[2], ref)
                    if p[3][m]["fair"] is None or not fm or not fr_:
                        continue
                    meas.append(p[3][m]["fair"])
                    bias.append((slope or 0.0) * (statistics.median(fm) - statistics.median(fr_)))
                    pred.append(p[3][m]["pred"])
                    steps.append(p[3][m]["t_mode"])
                if not meas:
                    continue
                corrected = [a - c for a, c in zip(meas, bias)]
                mc, mp = statistics.median(corrected), statistics.median(pred)
                mm_ = statistics.median(meas)

                def within(values):
                    """Processes whose prediction is within the target of `values`, of those >= 5% of the step."""
                    scoped = [(v, q) for v, q, t in zip(values, pred, steps) if t and v / t >= validate.MIN_SHARE]
                    return "%d of %d" % (sum(1 for v, q in scoped if abs(q - v) <= validate.ERROR_TARGET * v), len(scoped))

                rows_s.append([lname, b, m, len(meas), "%.3f" % mm_, "%+.3f" % statistics.median(bias), "%.3f" % mc,
                               "%.3f" % mp, validate.pct((mp - mm_) / mm_ if mm_ else None),
                               validate.pct((mp - mc) / mc if mc else None), within(meas), within(corrected)])
    out.append(validate.table(rows_f, ["lang", "batch", "processes"] + ["traced, %s" % m for m in validate.MODES] +
                              ["slope (ms/step per traced fraction; 95% bootstrap range over processes)", "traced, all repetitions (mean)",
                               "stretches' cost, % of mode none's step"]))
    out.append("")
    out.append(validate.table(rows_s, ["lang", "batch", "mode", "processes", "measured, median", "bias, median",
                                       "corrected, median", "predicted, median", "error vs measured",
                                       "error vs corrected", "within ±25%, measured", "within ±25%, corrected"]))
    out.append("\n%d processes; in %d of them the log's order and the repetitions' durations disagree, by at most "
               "%.1f ms (E_0 then taken midway)" % (len(procs), len(conflicts), max(conflicts, default=0.0)))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
