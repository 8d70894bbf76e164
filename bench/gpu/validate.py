#!/usr/bin/env python3
"""Tables of the GPU validation from the raw outputs of bench/gpu/run_validation.sh.

usage: validate.py DIR                                 (bench/gpu/run_validation.sh's work folder)
       validate.py --repeats [--setting SETTING] DIR...  (bench/gpu/repeat_probed.sh's, extracted)

DIR holds (any missing part is skipped):
  {py,cpp}-unprobed.json              step (a): every mode and batch, no probe, one process per language
  {py,cpp}-probed-all-BATCH.json      step (b): every mode of one batch size in one probed process
  probe-{py,cpp}-probed-all-BATCH.json  step (b): the probe's report for that process
  {py,cpp}-{solo,probed}-none-BATCH-rK.json  step (c): mode none alone, unprobed / probed, round K
  {py,cpp}-probed-none-128-full.json  step (d): mode none probed with full tracing
With --repeats, DIR holds rep-K/ folders, one probed all-modes process each ({py,cpp}-probed-all-BATCH.json,
probe-{py,cpp}-probed-all-BATCH.json, rc.txt): each process's errors, and the medians over processes; and
unprobed twins ({py,cpp}-unprobed-all-BATCH.json, repeat_probed.sh UNPROBED=1): the savings measured without
the probe, their ranking and the estimates against them. With --repeats --setting SETTING, only the probed
processes whose setting.txt holds SETTING count (repeat_probed.sh PROBE_ENVS; "" for none), with every
unprobed twin. Within a process, repetition k of every mode makes
a round (the modes ran one after another, in a rotating order): the savings of one round are compared
with each other as well as the processes' medians.

Measured saving of a mode = its step time minus the step time of its reference mode, in the same process:
  loss     vs none     (the loss is computed anyway; only the read differs)
  norms    vs unread   (unread computes the same 22 norms on the GPU and keeps them, never read; results from
                        before that mode use compute, which also stacks the norms into a buffer)
  batched  vs compute  (the same GPU work; only the copy every 50 steps differs)
and, for the record, every mode vs none (that difference also holds the cost of computing the norms,
which the probe does not predict: it predicts the saving from removing the waits, not the work).
The comparison uses the step times of the probed process (b), where the estimates come from; the same
savings measured in the unprobed process (a) are shown beside them.
Predicted saving per step of a mode = predicted_saving_ms (the ranked estimate: the site's reads removed
entirely) of its logging site (function log_MODE) over the steps that mode ran in the process (warm-up
included, since the probe sees all of them); "wait-only" is the same with wait_saving_ms.
Targets: the ranking of modes by predicted saving equals the ranking by measured saving; predicted within
+-25% of measured wherever the measured saving is >= 5% of the step time; probe overhead <= 3% (mode none,
probed vs unprobed).
"""
import glob
import json
import math
import os
import statistics
import sys

LANGS = (("py", "Python"), ("cpp", "C++"))
MODES = ("none", "loss", "norms", "batched", "compute", "unread")
SYNC_MODES = ("loss", "norms", "batched")
REFERENCE = {"loss": "none", "norms": "unread", "batched": "compute"}
OLD_REFERENCE = {"norms": "compute"}  # results from before the unread mode (2026-12-01 06:30)


def reference(m, per, b):
    """The fair reference of mode m at batch b in results `per` ({(mode, batch): ...}): unread for norms, or
    compute where the results predate the unread mode."""
    ref = REFERENCE[m]
    return ref if (ref, b) in per or m not in OLD_REFERENCE else OLD_REFERENCE[m]
ERROR_TARGET = 0.25
MIN_SHARE = 0.05
OVERHEAD_TARGET = 0.03


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        if os.path.exists(path):
            print("validate: cannot read %s: %s" % (path, e), file=sys.stderr)
        return None


def medians(doc):
    """{(mode, batch): (median ms/step, [per-rep ms])} from a benchmark JSON."""
    out = {}
    if not doc:
        return out
    per = {}
    for r in doc.get("results", []):
        per.setdefault((r["mode"], int(r["batch"])), []).append(float(r["ms_per_step"]))
    for k, v in per.items():
        out[k] = (statistics.median(v), v)
    return out


def site_fields(s):
    """(path, line, function) of a report site, whatever the nesting."""
    site = s.get("site", s)
    return site.get("path", ""), site.get("line", 0), site.get("function", "")


def is_logging_site(s):
    path, _, func = site_fields(s)
    return "log_" in (func or "") or "stats_on_gpu" in (func or "")


def probe_numbers(report, total_steps):
    """Per-step predicted saving, host-blocked and GPU-idle time of the logging sites, and the sites."""
    sites = report.get("sites", [])
    log_sites = [s for s in sites if is_logging_site(s)]
    steps = max(total_steps, 1)
    per_step = lambda key, ss: sum(float(s.get(key, 0)) for s in ss) / steps
    return {
        "pred": per_step("predicted_saving_ms", log_sites),
        "blocked": per_step("host_blocked_ms", log_sites),
        "idle": per_step("gpu_idle_ms", log_sites),
        "calls_per_step": sum(int(s.get("calls", 0)) for s in log_sites) / steps,
        "pred_all_sites": per_step("predicted_saving_ms", sites),
        "wait": per_step("wait_saving_ms", log_sites) if all("wait_saving_ms" in s for s in log_sites) else None,
        "sampled": report.get("totals", {}).get("sampled_fraction"),
        "log_sites": log_sites,
        "sites": sites,
        "status": report.get("run", {}).get("status", "?"),
        "dropped": report.get("totals", report).get("dropped_activity_records", 0),
        # SYNCLINT_PROBE_GPU_RECORDS=first: GPU work modelled, and how much of it had no learned duration
        "modelled": report.get("totals", {}).get("modelled_gpu_activities", 0),
        "modelled_unknown": report.get("totals", {}).get("modelled_without_duration", 0),
    }


def fmt(x, nd=3):
    return "-" if x is None else ("%.*f" % (nd, x))


def pct(x):
    return "-" if x is None else "%+.1f%%" % (100 * x)


def table(rows, header):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def rank(d):
    return [m for m, _ in sorted(d.items(), key=lambda kv: -kv[1])]


def sign_test_p(diffs):
    """Exact two-sided sign test: the chance of signs at least this lopsided if each difference were as likely
    positive as negative (zeros left out). 1.0 when there is nothing to test."""
    pos, neg = sum(1 for d in diffs if d > 0), sum(1 for d in diffs if d < 0)
    n, k = pos + neg, min(pos, neg)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2.0 ** n
    return min(1.0, 2 * tail)


ORDERING_HEADER = ["lang", "batch", "measured saving", "over", "median", "signs", "sign test p", "resolved",
                   "predicted, median", "probe's order", "samples to resolve (approx.)"]


def processes_needed(diffs):
    """Rough number of processes (or rounds) a paired comparison would need to resolve its median difference at the 5%
    level with 80% power: ((1.96 + 0.84) * sd / mean)^2 over the per-process differences. None when the
    differences do not say (fewer than two, or a mean of zero)."""
    if len(diffs) < 2 or statistics.mean(diffs) == 0:
        return None
    return math.ceil(((1.96 + 0.84) * statistics.stdev(diffs) / statistics.mean(diffs)) ** 2)


def resolved_orderings(lname, b, mine):
    """Which of the measured orderings the probed processes resolve, over processes and over rounds: each
    mode's saving against zero, and each pair of modes against each other (the per-process or per-round
    difference of their savings, so that the machine's speed, the same for both, cancels). The ranking
    target can only be judged on the resolved pairs: there the probe's order must agree. Returns (rows,
    summary lines)."""
    pred = {m: statistics.median(p[5][m]["pred"] for p in mine) for m in SYNC_MODES}
    return orderings_over(lname, b, [{m: p[5][m]["fair"] for m in SYNC_MODES} for p in mine],
                          [r for p in mine for r in p[5]["rounds"]], pred)


def orderings_over(lname, b, per_proc, rounds, pred):
    """ordering_rows over processes and over rounds: (rows, summary lines)."""
    rows, lines = [], []
    for samples, unit in ((per_proc, "processes"), (rounds, "rounds")):
        r, resolved, agree = ordering_rows(lname, b, samples, pred, unit)
        rows += r
        lines.append("- %s batch %d, over %s: %d of 3 pairs of modes resolved; the probe's order agrees on %d of "
                     "them" % (lname, b, unit, resolved, agree))
    return rows, lines


def saving(per, m, b):
    """Mode m's median step time minus its fair reference's in medians() `per`, or None where one is missing."""
    ref = reference(m, per, b)
    return per[(m, b)][0] - per[(ref, b)][0] if (m, b) in per and (ref, b) in per else None


def rep_pairs(per, m, b):
    """Mode m's step time minus its reference's, repetition by repetition (rep k of both ran in one round)."""
    return [a - r for a, r in zip(per.get((m, b), (None, []))[1], per.get((reference(m, per, b), b), (None, []))[1])]


def round_savings(bench, b):
    """[{mode: saving against its fair reference}] per round (repetition k of every mode) of one process."""
    per = medians(bench)
    pairs = {m: rep_pairs(per, m, b) for m in SYNC_MODES}
    return [{m: pairs[m][k] for m in SYNC_MODES} for k in range(min(len(v) for v in pairs.values()))]


def fair_savings(bench, b):
    """{mode: median step time minus its reference's} of one process, or None where a mode is missing."""
    per = medians(bench)
    return {m: saving(per, m, b) for m in SYNC_MODES}


def ordering_rows(lname, b, samples, pred, unit):
    """Sign tests of each saving against zero and of each pair of modes against each other, over `samples`
    ([{mode: saving}] per process or per round); `pred` is the probe's median prediction per mode. Returns
    (table rows, pairs resolved, pairs where the probe's order agrees)."""
    rows, agree, resolved = [], 0, 0
    items = [(m, None) for m in SYNC_MODES] + [(a, c) for i, a in enumerate(SYNC_MODES) for c in SYNC_MODES[i + 1:]]
    for a, c in items:
        diffs = [s[a] - (s[c] if c else 0.0) for s in samples if s[a] is not None and (c is None or s[c] is not None)]
        if not diffs:
            continue
        pval, med = sign_test_p(diffs), statistics.median(diffs)
        is_resolved = pval < 0.05 and med != 0
        p = pred[a] - (pred[c] if c else 0.0)
        verdict = "-"
        if c and is_resolved:
            resolved += 1
            agree += (p > 0) == (med > 0)
            verdict = "agrees" if (p > 0) == (med > 0) else "DISAGREES"
        need = processes_needed(diffs)
        rows.append([lname, b, "%s - %s" % (a, c) if c else "%s - 0" % a, "%d %s" % (len(diffs), unit), fmt(med),
                     "%d+ / %d-" % (sum(1 for d in diffs if d > 0), sum(1 for d in diffs if d < 0)),
                     "%.3f" % pval, "yes" if is_resolved else "no", fmt(p), verdict if c else "-",
                     "-" if need is None or is_resolved else str(need)])
    return rows, resolved, agree


def unprobed_section(unprobed, procs):
    """What the unprobed twins measured: per configuration, each mode's saving (median over processes, and
    over all rounds), the probe's median estimate from the probed processes against it, the ranking by
    both, and the orderings the unprobed processes and rounds resolve."""
    out = ["\n### Without the probe: the measured savings and the estimates against them\n"]
    rows, order_rows, lines = [], [], []
    for lang, lname in LANGS:
        for b in sorted({u[2] for u in unprobed if u[1] == lang}):
            benches = [u[4] for u in unprobed if u[1] == lang and u[2] == b and u[4]]
            probed = [p for p in procs if p[1] == lang and p[2] == b and p[5] is not None]
            if not benches:
                continue
            per_proc = [fair_savings(x, b) for x in benches]
            rounds = [r for x in benches for r in round_savings(x, b)]
            none = [medians(x).get(("none", b), (None,))[0] for x in benches]
            none = statistics.median([t for t in none if t is not None]) if any(t is not None for t in none) else None
            pred = {m: statistics.median(p[5][m]["pred"] for p in probed) if probed else None for m in SYNC_MODES}
            meas, meas_rounds = {}, {}
            for m in SYNC_MODES:
                vals = [s[m] for s in per_proc if s[m] is not None]
                by_round = [r[m] for r in rounds]
                mm = statistics.median(vals) if vals else None
                meas[m] = mm
                meas_rounds[m] = statistics.median(by_round) if by_round else None
                share = mm / (none + mm) if mm is not None and none else None
                err = (pred[m] - mm) / mm if pred[m] is not None and mm else None
                judged = share is not None and share >= MIN_SHARE and err is not None
                rows.append([lname, b, m, len(vals), fmt(mm), "%s-%s" % (fmt(min(vals)), fmt(max(vals))) if vals else "-",
                             "%s (%d)" % (fmt(statistics.median(by_round)), len(by_round)) if by_round else "-",
                             pct(share), "%s (%d)" % (fmt(pred[m]), len(probed)) if probed else "-", pct(err),
                             ("yes" if abs(err) <= ERROR_TARGET else "NO") if judged else "n/a (< 5%)"])
            for what, m_ in (("medians of the processes", meas), ("medians of the rounds", meas_rounds)):
                if probed and all(v is not None for v in m_.values()):
                    lines.append("- %s batch %d: predicted %s, measured without the probe (%s) %s: %s" % (
                        lname, b, " > ".join(rank(pred)), what, " > ".join(rank(m_)),
                        "equal" if rank(pred) == rank(m_) else "DIFFERENT"))
            if probed:
                r, summary = orderings_over(lname, b, per_proc, rounds, pred)
                order_rows += r
                lines += summary
    out.append(table(rows, ["lang", "batch", "mode", "processes", "measured, median", "measured, range",
                            "measured, median of rounds (rounds)", "% of step", "predicted, median (probed processes)",
                            "error of the medians", "within ±25% (where >= 5%)"]))
    out.append("\nRanking and resolved orderings (sign test at 5%; rounds pair the modes of one repetition, "
               "so the machine's speed cancels, but rounds of one process are not independent of each other):\n")
    out += lines
    out.append("")
    out.append(table(order_rows, ORDERING_HEADER))
    return out


def compare_modes(bench, rep, b):
    """Per logging mode of one probed all-modes process at batch b: its step time, the measured saving against
    its fair reference and against none, the per-repetition-pair differences, the predicted saving per step
    and its error."""
    probed = medians(bench)
    steps_of = bench.get("total_steps", {})
    pn_all = probe_numbers(rep, 1)
    out = {}
    for m in SYNC_MODES:
        t_mode = probed.get((m, b), (None,))[0]
        t_none = probed.get(("none", b), (None,))[0]
        fair = saving(probed, m, b)
        # The repetitions are interleaved: rep k of the mode ran next to rep k of its reference, so their
        # differences show how much of the saving is the machine drifting between reps.
        pairs = rep_pairs(probed, m, b)
        steps = int(steps_of.get("%s/%d" % (m, b), 0)) or 1
        mine = [s for s in pn_all["log_sites"] if ("log_" + m) in (site_fields(s)[2] or "")]
        pn = probe_numbers(dict(rep, sites=mine), steps)
        pred = pn["pred"] if mine else 0.0
        out[m] = {
            "t_mode": t_mode, "fair": fair, "pairs": pairs, "pred": pred, "pn": pn, "has_site": bool(mine),
            "vs_none": t_mode - t_none if t_mode is not None and t_none is not None else None,
            "err": (pred - fair) / fair if fair else None,
            "share": fair / t_mode if fair is not None and t_mode else None,
            "traced_calls": sum(int(s.get("traced_calls", s.get("calls", 0))) for s in mine),
        }
    out["rounds"] = round_savings(bench, b)
    return out


def by_configuration(procs):
    """(language name, batch, processes with results) per configuration of the repeated processes."""
    for lang, lname in LANGS:
        for b in sorted({p[2] for p in procs if p[1] == lang}):
            mine = [p for p in procs if p[1] == lang and p[2] == b and p[5] is not None]
            if mine:
                yield lname, b, mine


def setting_of(rep_dir):
    """The probe setting a rep-K/ folder's probed process ran with (its setting.txt; "" without one)."""
    try:
        with open(os.path.join(rep_dir, "setting.txt")) as f:
            return f.read().strip()
    except OSError:
        return ""


def pace_rows(procs):
    """Per probed process and logging site: how long a read waited, in us a call, traced as recorded (at the
    probe's pace: its launch callbacks on), traced as replayed (with run.callback_overhead_ns taken out of the
    host's gaps; as recorded in reports without it) and untraced (the sync-path callbacks only), and the share
    of the site's blocked time its wait-only saving keeps. At the program's pace the replayed wait should come
    near the untraced one (docs/validation.md, "The probe's time taken out of the replay")."""
    rows = []
    for name, lang, b, _, rep, _ in procs:
        if not rep:
            continue
        # The process's own (`runs`): merged reports before 2026-12-03 10:00 left the run's at 0.
        callback_ns = max([rep.get("run", {}).get("callback_overhead_ns", 0)] +
                          [r.get("callback_overhead_ns", 0) for r in rep.get("runs", [])])
        for s in rep.get("sites", []):
            if not is_logging_site(s):
                continue
            calls, traced = int(s.get("calls", 0)), int(s.get("traced_calls", s.get("calls", 0)))
            blocked = float(s.get("host_blocked_ms", 0))
            traced_blocked = float(s.get("traced_host_blocked_ms", blocked))
            untraced_blocked = blocked - traced_blocked
            replayed = float(s.get("replayed_blocked_ms", blocked)) - untraced_blocked
            per = lambda ms, n: fmt(ms * 1000 / n, 1) if n > 0 else "-"
            path, line, func = site_fields(s)
            rows.append([name, dict(LANGS).get(lang, lang), b, "%s:%s" % (func, line), callback_ns, per(traced_blocked, traced),
                         per(replayed, traced), per(untraced_blocked, calls - traced),
                         fmt(float(s.get("wait_saving_ms", 0)) / blocked, 2) if blocked > 0 else "-"])
    return rows


def repeats_main(dirs, setting=None):
    """Tables over repeated probed all-modes processes (the rep-K/ folders of one or more folders); with
    `setting`, only the probed processes run with that setting (repeat_probed.sh PROBE_ENVS), and every
    unprobed one."""
    procs = []  # (rep, lang, batch, rc, report, compare)
    unprobed = []  # (rep, lang, batch, rc, benchmark JSON)
    rep_dirs = []
    for d in dirs:
        rep_dirs += sorted(glob.glob(os.path.join(d, "rep-*")),
                           key=lambda p: int(p.rsplit("-", 1)[1]) if p.rsplit("-", 1)[1].isdigit() else 0)
    for rd in rep_dirs:
        # tag.txt names the process (LANG-probed-all-BATCH) even when it left no JSON
        tag_file = os.path.join(rd, "tag.txt")
        tags = [open(tag_file).read().strip()] if os.path.exists(tag_file) else [
            os.path.basename(f)[:-5] for f in glob.glob(os.path.join(rd, "*-probed-all-*.json"))
            if not os.path.basename(f).startswith("probe-")]
        for tag in tags:
            kind = "-unprobed-all-" if "-unprobed-all-" in tag else "-probed-all-"
            lang, b = tag.split(kind)[0], int(tag.split(kind)[1])
            rc_text = open(os.path.join(rd, "rc.txt")).read().strip() if os.path.exists(os.path.join(rd, "rc.txt")) else "?"
            bench = load(os.path.join(rd, tag + ".json"))
            name = os.path.basename(rd) if len(dirs) == 1 else os.path.relpath(rd, os.path.commonpath(dirs) or ".")
            if kind == "-unprobed-all-":
                unprobed.append((name, lang, b, rc_text, bench))
                continue
            if setting is not None and setting_of(rd) != setting:
                continue
            rep = load(os.path.join(rd, "probe-%s.json" % tag))
            cmp = compare_modes(bench, rep, b) if bench and rep else None
            procs.append((name, lang, b, rc_text, rep, cmp))
    if not procs:
        print("validate: no rep-K/ folders with results in %s%s" % (
            " ".join(dirs), "" if setting is None else " for the setting '%s'" % setting), file=sys.stderr)
        return 1
    out = ["### Every probed process (ms/step; measured = saving against the fair reference, same process)\n"]
    rows = []
    for name, lang, b, rc_text, rep, cmp in procs:
        if cmp is None:
            rows.append([name, lang, b, rc_text, "no report" if rep is None else "no step times"] +
                        ["-"] * len(SYNC_MODES) + ["-"])
            continue
        pn = probe_numbers(rep, 1)
        cells = ["%s / %s (%s, %d traced)" % (fmt(cmp[m]["fair"]), fmt(cmp[m]["pred"]), pct(cmp[m]["err"]), cmp[m]["traced_calls"])
                 for m in SYNC_MODES]
        pred_rank = rank({m: cmp[m]["pred"] for m in SYNC_MODES})
        meas = {m: cmp[m]["fair"] for m in SYNC_MODES if cmp[m]["fair"] is not None}
        report_text = "%s, sampled %s" % (pn["status"], fmt(pn["sampled"], 2))
        if pn["modelled"]:
            report_text += ", modelled %d (%d unknown)" % (pn["modelled"], pn["modelled_unknown"])
        rows.append([name, lang, b, rc_text, report_text] + cells +
                     ["yes" if len(meas) == len(SYNC_MODES) and rank(meas) == pred_rank else "no"])
    out.append(table(rows, ["process", "lang", "batch", "exit", "report"] +
                     ["%s: measured / predicted (error)" % m for m in SYNC_MODES] + ["ranking equal"]))
    out.append("\n### Over processes, per (language, batch, mode)\n")
    rows, ranking_lines = [], []
    for lname, b, mine in by_configuration(procs):
        med_pred = {m: statistics.median(p[5][m]["pred"] for p in mine) for m in SYNC_MODES}
        fairs = {m: [p[5][m]["fair"] for p in mine if p[5][m]["fair"] is not None] for m in SYNC_MODES}
        if all(fairs.values()):
            med_meas = {m: statistics.median(v) for m, v in fairs.items()}
            ranking_lines.append("- %s batch %d: predicted %s, measured %s: %s" % (
                lname, b, " > ".join(rank(med_pred)), " > ".join(rank(med_meas)),
                "equal" if rank(med_pred) == rank(med_meas) else "DIFFERENT"))
        ranks = sum(1 for p in mine if len({m for m in SYNC_MODES if p[5][m]["fair"] is not None}) == len(SYNC_MODES)
                    and rank({m: p[5][m]["fair"] for m in SYNC_MODES}) == rank({m: p[5][m]["pred"] for m in SYNC_MODES}))
        for m in SYNC_MODES:
            fair = [p[5][m]["fair"] for p in mine if p[5][m]["fair"] is not None]
            pred = [p[5][m]["pred"] for p in mine]
            share = [p[5][m]["share"] for p in mine if p[5][m]["share"] is not None]
            scoped = [p[5][m]["err"] for p in mine if p[5][m]["err"] is not None and (p[5][m]["share"] or 0) >= MIN_SHARE]
            mf, mp = (statistics.median(fair) if fair else None), statistics.median(pred)
            err_med = (mp - mf) / mf if mf else None
            rows.append([lname, b, m, len(mine), fmt(mf), "%s-%s" % (fmt(min(fair)), fmt(max(fair))) if fair else "-",
                         pct(statistics.median(share)) if share else "-", fmt(mp),
                         "%s-%s" % (fmt(min(pred)), fmt(max(pred))), pct(err_med),
                         "%d of %d" % (sum(1 for e in scoped if abs(e) <= ERROR_TARGET), len(scoped)),
                         "%d of %d" % (ranks, len(mine))])
    out.append(table(rows, ["lang", "batch", "mode", "processes", "measured, median", "measured, range", "% of step",
                            "predicted, median", "predicted, range", "error of the medians",
                            "processes within ±25% (of those >= 5%)", "ranking equal"]))
    out.append("\nRanking of the modes by the medians over processes:\n")
    out += ranking_lines
    out.append("\n### Which measured orderings the probed processes resolve (sign test at 5%, over processes and "
               "over rounds)\n")
    rows, summary = [], []
    for lname, b, mine in by_configuration(procs):
        r, lines = resolved_orderings(lname, b, mine)
        rows += r
        summary += lines
    out.append(table(rows, ORDERING_HEADER))
    out.append("")
    out += summary
    pace = pace_rows(procs)
    if pace:
        out.append("\n### Each read's wait: traced as recorded, traced as replayed, untraced (us a call)\n")
        out.append(table(pace, ["process", "lang", "batch", "site", "callback ns", "traced", "traced, replayed",
                                "untraced", "wait-only saving / blocked"]))
    if unprobed:
        out += unprobed_section(unprobed, procs)
    bad = [p for p in procs + unprobed if p[3] not in ("0", "?")]
    out.append("\n%d probed processes, %d unprobed, %d ended abnormally%s" % (
        len(procs), len(unprobed), len(bad),
        (": " + ", ".join("%s %s %d exit %s" % (p[0], p[1], p[2], p[3]) for p in bad)) if bad else ""))
    print("\n".join(out))
    return 0


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    if argv[0] == "--repeats":
        setting = None
        if len(argv) > 2 and argv[1] == "--setting":
            setting, argv = argv[2], argv[2:]
        if len(argv) < 2 or not all(os.path.isdir(a) for a in argv[1:]):
            print("validate: --repeats [--setting SETTING] needs one or more folders", file=sys.stderr)
            return 2
        return repeats_main(argv[1:], setting)
    d = argv[0]
    if not os.path.isdir(d):
        print("validate: %s is not a folder" % d, file=sys.stderr)
        return 2
    out = []
    verdicts = []
    any_data = False
    for lang, lname in LANGS:
        base = medians(load(os.path.join(d, "%s-unprobed.json" % lang)))
        if not base:
            continue
        any_data = True
        batches = sorted({b for (_, b) in base})
        # ---- measured table
        out.append("### %s: measured step time without the probe (ms/step, median of reps)\n" % lname)
        rows = []
        for b in batches:
            none = base.get(("none", b), (None, []))[0]
            row = [b]
            for m in MODES:
                med, reps = base.get((m, b), (None, []))
                if med is None:
                    row.append("-")
                    continue
                spread = (max(reps) - min(reps)) / med if reps else 0
                rel = " (x%.2f)" % (med / none) if none and m != "none" else ""
                row.append("%.3f%s ±%.1f%%" % (med, rel, 50 * spread))
            rows.append(row)
        out.append(table(rows, ["batch"] + list(MODES)))
        out.append("(±: half the spread of the repetitions, as % of the median)\n")

        # ---- probe comparison: estimates and step times of the same probed process
        rows, site_rows = [], []
        for b in batches:
            bench = load(os.path.join(d, "%s-probed-all-%d.json" % (lang, b)))
            rep = load(os.path.join(d, "probe-%s-probed-all-%d.json" % (lang, b)))
            if not bench or not rep:
                continue
            pn_all = probe_numbers(rep, 1)
            cmp = compare_modes(bench, rep, b)
            for m in SYNC_MODES:
                c = cmp[m]
                fair, pred, share, err = c["fair"], c["pred"], c["share"], c["err"]
                u_mode = base.get((m, b), (None,))[0]
                u_ref = base.get((reference(m, base, b), b), (None,))[0]
                unprobed_fair = u_mode - u_ref if u_mode is not None and u_ref is not None else None
                err_none = (pred - c["vs_none"]) / c["vs_none"] if c["vs_none"] else None
                err_unprobed = (pred - unprobed_fair) / unprobed_fair if unprobed_fair else None
                in_scope = share is not None and share >= MIN_SHARE
                ok = None
                if in_scope and err is not None:
                    ok = abs(err) <= ERROR_TARGET
                    verdicts.append(("%s b=%d %s: predicted %s vs measured %s ms/step (%s)" %
                                     (lname, b, m, fmt(pred), fmt(fair), pct(err)), ok, "error"))
                pn = c["pn"]
                rows.append([b, m, fmt(c["t_mode"]), "%s (%s)" % (fmt(fair), reference(m, medians(bench), b)),
                             " ".join("%.2f" % d for d in c["pairs"]) or "-",
                             pct(share), fmt(c["vs_none"]),
                             fmt(pred), fmt(pn["wait"]) if c["has_site"] else "-", fmt(pn["blocked"]), fmt(pn["idle"]),
                             "%.1f" % pn["calls_per_step"], pct(err), pct(err_none),
                             {None: "n/a (<5%)" if not in_scope else "-", True: "yes", False: "NO"}[ok],
                             fmt(unprobed_fair), pct(err_unprobed)])
            meas_fair = {m: cmp[m]["fair"] for m in SYNC_MODES if cmp[m]["fair"] is not None}
            meas_none = {m: cmp[m]["vs_none"] for m in SYNC_MODES if cmp[m]["vs_none"] is not None}
            pred_d = {m: cmp[m]["pred"] for m in SYNC_MODES}
            sampled = pn_all["sampled"]
            out.append("%s batch %d: report status %r, %s dropped activity records, sampled fraction %s, replay error %s" %
                       (lname, b, pn_all["status"], pn_all["dropped"], fmt(sampled, 3) if sampled is not None else "-",
                        rep.get("totals", {}).get("replay_error", "-")))
            for s in pn_all["sites"]:
                path, line, func = site_fields(s)
                site_rows.append([b, "%s:%s %s" % (os.path.basename(path or "?"), line, (func or "")[:60]),
                                  s.get("api", ""), s.get("calls", 0), s.get("traced_calls", "-"),
                                  fmt(float(s.get("host_blocked_ms", 0))), fmt(float(s.get("gpu_idle_ms", 0))),
                                  fmt(float(s.get("predicted_saving_ms", 0))),
                                  fmt(float(s["wait_saving_ms"])) if "wait_saving_ms" in s else "-",
                                  "yes" if is_logging_site(s) else ""])
            if len(pred_d) == len(SYNC_MODES) and len(meas_fair) == len(SYNC_MODES):
                verdicts.append(("%s b=%d ranking: predicted %s, measured (fair references) %s" %
                                 (lname, b, " > ".join(rank(pred_d)), " > ".join(rank(meas_fair))),
                                 rank(pred_d) == rank(meas_fair), "ranking"))
                if len(meas_none) == len(SYNC_MODES):
                    verdicts.append(("%s b=%d ranking vs none: predicted %s, measured vs none %s" %
                                     (lname, b, " > ".join(rank(pred_d)), " > ".join(rank(meas_none))),
                                     rank(pred_d) == rank(meas_none), "ranking"))
        if rows:
            out.append("\n### %s: predicted vs measured saving per step (same probed process)\n" % lname)
            out.append(table(rows, ["batch", "mode", "ms/step (probed)", "measured saving (ref)", "per rep pair", "% of step",
                                    "vs none", "predicted", "wait-only", "host blocked", "GPU idle", "syncs/step",
                                    "error", "error vs none", "within ±25%", "saving, unprobed process",
                                    "error vs unprobed"]))
            out.append("(all in ms/step; predicted, host blocked and GPU idle: the mode's logging site, over the "
                       "steps that mode ran)\n")
            out.append("#### %s: every site the probe reported (ms over the whole process)\n" % lname)
            out.append(table(site_rows, ["batch", "site", "API", "calls", "traced calls", "host blocked",
                                         "GPU idle", "predicted saving", "wait-only", "logging site"]) + "\n")

        # ---- overhead: mode none alone, unprobed and probed processes alternated; all repetitions pooled
        rows = []
        for b in batches:
            def pooled(kind):
                reps, per_process = [], []
                for f in sorted(glob.glob(os.path.join(d, "%s-%s-none-%d-r*.json" % (lang, kind, b)))):
                    process = medians(load(f)).get(("none", b), (None, []))
                    reps += process[1]
                    if process[0] is not None:
                        per_process.append(process[0])
                return reps, per_process
            (solo, solo_processes), (probed, _) = pooled("solo"), pooled("probed")
            if not solo or not probed:
                continue
            ref, med = statistics.median(solo), statistics.median(probed)
            ov = (med - ref) / ref
            # How far apart unprobed processes of this configuration ran: a difference smaller than that
            # is not resolved by this many processes.
            spread = (max(solo_processes) - min(solo_processes)) / ref if len(solo_processes) > 1 else 0.0
            resolved = spread <= 2 * OVERHEAD_TARGET
            full = medians(load(os.path.join(d, "%s-probed-none-%d-full.json" % (lang, b)))).get(("none", b))
            ov_full = (full[0] - ref) / ref if full else None
            verdict = ("yes" if ov <= OVERHEAD_TARGET else "NO") if resolved else "unresolved"
            rows.append([b, "%s (%d reps)" % (fmt(ref), len(solo)), "%s (%d reps)" % (fmt(med), len(probed)), pct(ov),
                         pct(spread), verdict, "%s (%s)" % (fmt(full[0]), pct(ov_full)) if full else "-"])
            verdicts.append(("%s b=%d overhead %s (mode none, probed %s vs unprobed %s ms/step; unprobed processes "
                             "%s apart)" % (lname, b, pct(ov), fmt(med), fmt(ref), pct(spread)),
                             (ov <= OVERHEAD_TARGET) if resolved else None, "overhead"))
        if rows:
            out.append("### %s: probe overhead, mode none (ms/step, medians of all repetitions)\n" % lname)
            out.append(table(rows, ["batch", "unprobed", "probed (defaults)", "overhead",
                                    "unprobed processes apart", "<= 3%", "probed, full tracing"]) + "\n")
            out.append("(<= 3% is 'unresolved' when unprobed processes of the configuration ran more than twice "
                       "the target apart)\n")
    if not any_data:
        print("validate: no benchmark results in %s" % d, file=sys.stderr)
        return 1
    if verdicts:
        out.append("### Verdicts\n")
        for kind in ("ranking", "error", "overhead"):
            for text, ok, k in verdicts:
                if k == kind:
                    out.append("- %s: %s" % ("UNRESOLVED" if ok is None else "PASS" if ok else "FAIL", text))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
