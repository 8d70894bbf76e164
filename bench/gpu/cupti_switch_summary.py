"""Tables from cupti_switch_cost.sh's switch.tsv: what each CUDA call costs the host before, while and after
a CUPTI subscriber's launch callbacks are on, and over time under the injected probe.

    python3 bench/gpu/cupti_switch_summary.py switch.tsv

Each line of switch.tsv: round, label, then cupti_switch_cost's own columns (scenario, phase, t_ms,
launch_ns, get_device_ns, event_record_ns, callbacks). For the switching scenarios, each phase is set
against the `before` phase of the same process, so the machine's speed cancels; the table gives the
median over rounds of that ratio. For the timelines (labels starting with `timeline`), each time slot of
every label is set against the same slot of the first label in the same round.
"""
import statistics
import sys

COSTS = ("launch", "get_device", "event_record")


def read(path):
    """[{round, label, scenario, phase, t_ms, launch, get_device, event_record, callbacks}] from switch.tsv."""
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            cols = line.rstrip("\n").split("\t")
            if not line.strip():
                continue
            if len(cols) != 9:
                raise ValueError("%s:%d: expected 9 tab-separated columns, found %d" % (path, n, len(cols)))
            try:
                rows.append({"round": int(cols[0]), "label": cols[1], "scenario": cols[2], "phase": cols[3],
                             "t_ms": float(cols[4]), "launch": float(cols[5]), "get_device": float(cols[6]),
                             "event_record": float(cols[7]), "callbacks": int(cols[8])})
            except ValueError as e:
                raise ValueError("%s:%d: %s" % (path, n, e))
    return rows


def by_process(rows):
    """{(label, round): {phase: row}}."""
    out = {}
    for r in rows:
        out.setdefault((r["label"], r["round"]), {})[r["phase"]] = r
    return out


def phase_ratios(procs):
    """{label: {phase: {cost: [phase / before - 1 per round]}}} for the switching scenarios of by_process()."""
    out = {}
    for (label, _), phases in sorted(procs.items()):
        if label.startswith("timeline") or "before" not in phases:
            continue
        base = phases["before"]
        for phase, r in phases.items():
            if phase == "before":
                continue
            cell = out.setdefault(label, {}).setdefault(phase, {c: [] for c in COSTS})
            for c in COSTS:
                if base[c] > 0:
                    cell[c].append(r[c] / base[c] - 1)
    return out


def pct(v):
    return "%+.1f%%" % (100 * v) if v is not None else "-"


def med(v):
    return statistics.median(v) if v else None


def switching_table(rows):
    procs = by_process(rows)
    ratios = phase_ratios(procs)
    lines = ["| scenario | phase | processes | launch | cudaGetDevice | cudaEventRecord | launch ns, before (median) | callbacks in the phase (median) |",
             "|---|---|---|---|---|---|---|---|"]
    order = ("during", "after", "later")
    for label in sorted(ratios):
        before = [p["before"]["launch"] for (l, _), p in procs.items() if l == label and "before" in p]
        for phase in sorted(ratios[label], key=lambda p: (order.index(p) if p in order else len(order), p)):
            cell = ratios[label][phase]
            calls = [p[phase]["callbacks"] for (l, _), p in procs.items() if l == label and phase in p]
            lines.append("| %s | %s | %d | %s | %s | %s | %.0f | %d |" % (
                label, phase, len(cell["launch"]), pct(med(cell["launch"])), pct(med(cell["get_device"])),
                pct(med(cell["event_record"])), med(before) or 0, med(calls) or 0))
    return lines


def timeline_table(rows):
    tl = [r for r in rows if r["label"].startswith("timeline")]
    if not tl:
        return []
    labels = list(dict.fromkeys(r["label"] for r in tl))  # in the order they first appear
    ref = labels[0]
    slots = sorted({r["phase"] for r in tl}, key=lambda p: int(p[1:]) if p[1:].isdigit() else 0)
    cell = {(r["label"], r["round"], r["phase"]): r for r in tl}
    head = "| slot | t (ms, median) | " + " | ".join("%s launch ns" % l for l in labels) + " | " + \
        " | ".join("%s vs %s" % (l, ref) for l in labels[1:]) + " |"
    lines = [head, "|" + "---|" * (2 + len(labels) + len(labels) - 1)]
    rounds = sorted({r["round"] for r in tl})
    for s in slots:
        t = med([cell[(l, k, s)]["t_ms"] for l in labels for k in rounds if (l, k, s) in cell])
        ns = [med([cell[(l, k, s)]["launch"] for k in rounds if (l, k, s) in cell]) for l in labels]
        rel = []
        for l in labels[1:]:
            pairs = [cell[(l, k, s)]["launch"] / cell[(ref, k, s)]["launch"] - 1 for k in rounds
                     if (l, k, s) in cell and (ref, k, s) in cell and cell[(ref, k, s)]["launch"] > 0]
            rel.append(pct(med(pairs)))
        lines.append("| %s | %.0f | %s | %s |" % (s, t or 0, " | ".join("%.0f" % (v or 0) for v in ns), " | ".join(rel)))
    return lines


def main(argv):
    if len(argv) != 1:
        print("usage: cupti_switch_summary.py switch.tsv", file=sys.stderr)
        return 2
    try:
        rows = read(argv[0])
    except (OSError, ValueError) as e:
        print("cupti_switch_summary: %s" % e, file=sys.stderr)
        return 1
    if not rows:
        print("cupti_switch_summary: %s holds no measurements" % argv[0], file=sys.stderr)
        return 1
    print("Each phase against the same process's `before` (median over rounds of the ratio):\n")
    print("\n".join(switching_table(rows)))
    tl = timeline_table(rows)
    if tl:
        print("\nTimeline (each 250 ms slot's launch cost; the paired ratio per round):\n")
        print("\n".join(tl))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
