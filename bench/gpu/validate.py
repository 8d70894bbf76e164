#!/usr/bin/env python3
"""Tables of the GPU validation from the raw outputs of bench/gpu/run_validation.sh.

    validate.py DIR [--markdown]

DIR holds (any missing part is skipped):
  {py,cpp}-unprobed.json             step (a): every mode and batch, no probe
  {py,cpp}-probed-MODE-BATCH.json    step (b): the benchmark's own timing while probed
  probe-{py,cpp}-MODE-BATCH.json     step (b): the probe's report for that process
  {py,cpp}-solo-none-BATCH.json      step (c): mode none unprobed, one process per batch

Measured saving of a mode = its step time minus the step time of its reference mode:
  loss     vs none     (the loss is computed anyway; only the read differs)
  norms    vs compute  (compute does the same 22 norms on the GPU and never reads them)
  batched  vs compute  (the same GPU work; only the copy every 50 steps differs)
and, for the record, every mode vs none (that difference also holds the cost of computing the norms,
which the probe does not predict: it predicts the saving from removing the waits, not the work).
Predicted saving per step = the sum of predicted_saving_ms (the ranked estimate: the site's reads removed
entirely) over the logging sites (functions log_*), over the steps the probed process ran (warm-up
included, since the probe sees all of them); "wait-only" is the same with wait_saving_ms (reports written
before that field existed have none: "-").
Targets: the ranking of modes by predicted saving equals the ranking by measured saving; predicted within
+-25% of measured wherever the measured saving is >= 5% of the step time; probe overhead <= 3% (mode none,
probed vs unprobed).
"""
import glob
import json
import os
import statistics
import sys

LANGS = (("py", "Python"), ("cpp", "C++"))
MODES = ("none", "loss", "norms", "batched", "compute")
SYNC_MODES = ("loss", "norms", "batched")
REFERENCE = {"loss": "none", "norms": "compute", "batched": "compute"}
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


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
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

        # ---- probe comparison
        have_probe = bool(glob.glob(os.path.join(d, "probe-%s-*.json" % lang)))
        if not have_probe:
            continue
        out.append("### %s: predicted vs measured saving per step\n" % lname)
        rows = []
        site_rows = []
        for b in batches:
            meas_fair, pred_d, meas_none = {}, {}, {}
            for m in SYNC_MODES:
                t_mode = base.get((m, b), (None,))[0]
                t_ref = base.get((REFERENCE[m], b), (None,))[0]
                t_none = base.get(("none", b), (None,))[0]
                fair = t_mode - t_ref if t_mode is not None and t_ref is not None else None
                vs_none = t_mode - t_none if t_mode is not None and t_none is not None else None
                vs_batched = None
                if m == "norms" and ("batched", b) in base and t_mode is not None:
                    vs_batched = t_mode - base[("batched", b)][0]
                rep = load(os.path.join(d, "probe-%s-%s-%d.json" % (lang, m, b)))
                bench = load(os.path.join(d, "%s-probed-%s-%d.json" % (lang, m, b)))
                steps = 0
                if bench:
                    steps = int(next(iter(bench.get("total_steps", {}).values()), 0))
                if not steps:
                    cfg = (bench or {}).get("config", {})
                    steps = cfg.get("warmup", 50) + cfg.get("reps", 3) * cfg.get("steps", 300)
                pn = probe_numbers(rep, steps) if rep else None
                pred = pn["pred"] if pn else None
                err = (pred - fair) / fair if pred is not None and fair else None
                err_none = (pred - vs_none) / vs_none if pred is not None and vs_none else None
                share = fair / t_mode if fair is not None and t_mode else None
                in_scope = share is not None and share >= MIN_SHARE
                ok = None
                if in_scope and err is not None:
                    ok = abs(err) <= ERROR_TARGET
                    verdicts.append(("%s b=%d %s: predicted %s vs measured %s ms/step (%s)" %
                                     (lname, b, m, fmt(pred), fmt(fair), pct(err)), ok, "error"))
                if fair is not None:
                    meas_fair[m] = fair
                if pred is not None:
                    pred_d[m] = pred
                if vs_none is not None:
                    meas_none[m] = vs_none
                rows.append([b, m, fmt(t_mode), "%s (%s)" % (fmt(fair), REFERENCE[m]),
                             pct(share), fmt(vs_none), fmt(vs_batched),
                             fmt(pred), fmt(pn["wait"]) if pn else "-",
                             fmt(pn["sampled"], 2) if pn and pn["sampled"] is not None else "-",
                             fmt(pn["blocked"]) if pn else "-", fmt(pn["idle"]) if pn else "-",
                             "%.1f" % pn["calls_per_step"] if pn else "-", pct(err), pct(err_none),
                             {None: "n/a (<5%)" if not in_scope else "no report", True: "yes", False: "NO"}[ok]])
                if pn:
                    for s in pn["sites"]:
                        path, line, func = site_fields(s)
                        site_rows.append([b, m, "%s:%s %s" % (os.path.basename(path or "?"), line, func or ""),
                                          s.get("api", ""), s.get("calls", 0),
                                          fmt(float(s.get("host_blocked_ms", 0))),
                                          fmt(float(s.get("gpu_idle_ms", 0))),
                                          fmt(float(s.get("predicted_saving_ms", 0))),
                                          fmt(float(s["wait_saving_ms"])) if "wait_saving_ms" in s else "-",
                                          "yes" if is_logging_site(s) else ""])
                    if pn["status"] != "ok" or pn["dropped"]:
                        out.append("note: %s b=%d %s: report status %r, %s dropped activity records" %
                                   (lname, b, m, pn["status"], pn["dropped"]))
            if len(pred_d) == len(SYNC_MODES) and len(meas_fair) == len(SYNC_MODES):
                same = rank(pred_d) == rank(meas_fair)
                verdicts.append(("%s b=%d ranking: predicted %s, measured (fair references) %s" %
                                 (lname, b, " > ".join(rank(pred_d)), " > ".join(rank(meas_fair))), same, "ranking"))
                if len(meas_none) == len(SYNC_MODES):
                    verdicts.append(("%s b=%d ranking vs none: predicted %s, measured vs none %s" %
                                     (lname, b, " > ".join(rank(pred_d)), " > ".join(rank(meas_none))),
                                     rank(pred_d) == rank(meas_none), "ranking"))
        out.append(table(rows, ["batch", "mode", "ms/step", "measured saving (ref)", "% of step",
                                "vs none", "vs batched", "predicted", "wait-only", "sampled", "host blocked", "GPU idle",
                                "syncs/step", "error", "error vs none", "within ±25%"]))
        out.append("(all in ms/step; predicted, host blocked and GPU idle: logging sites only, over all steps "
                   "the probed process ran)\n")
        out.append("#### %s: every site the probe reported (ms over the whole process)\n" % lname)
        out.append(table(site_rows, ["batch", "mode", "site", "API", "calls", "host blocked", "GPU idle",
                                     "predicted saving", "wait-only", "logging site"]) + "\n")

        # ---- overhead
        rows = []
        for b in batches:
            probed = medians(load(os.path.join(d, "%s-probed-none-%d.json" % (lang, b)))).get(("none", b))
            solo = medians(load(os.path.join(d, "%s-solo-none-%d.json" % (lang, b)))).get(("none", b))
            grid = base.get(("none", b))
            unprobed = [x[0] for x in (grid, solo) if x]
            if not probed or not unprobed:
                continue
            ref = statistics.mean(unprobed)
            ov = (probed[0] - ref) / ref
            full = medians(load(os.path.join(d, "%s-probed-none-%d-full.json" % (lang, b)))).get(("none", b))
            ov_full = (full[0] - ref) / ref if full else None
            rows.append([b, fmt(grid[0]) if grid else "-", fmt(solo[0]) if solo else "-", fmt(probed[0]), pct(ov),
                         "yes" if ov <= OVERHEAD_TARGET else "NO",
                         "%s (%s)" % (fmt(full[0]), pct(ov_full)) if full else "-"])
            verdicts.append(("%s b=%d overhead %s (mode none, probed %s vs unprobed %s ms/step)" %
                             (lname, b, pct(ov), fmt(probed[0]), fmt(ref)), ov <= OVERHEAD_TARGET, "overhead"))
        if rows:
            out.append("### %s: probe overhead, mode none (ms/step)\n" % lname)
            out.append(table(rows, ["batch", "unprobed (all-modes process)", "unprobed (own process)",
                                    "probed", "overhead", "<= 3%", "probed, full tracing"]) + "\n")
    if not any_data:
        print("validate: no benchmark results in %s" % d, file=sys.stderr)
        return 1
    if verdicts:
        out.append("### Verdicts\n")
        for kind in ("ranking", "error", "overhead"):
            for text, ok, k in verdicts:
                if k == kind:
                    out.append("- %s: %s" % ("PASS" if ok else "FAIL", text))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
