#!/usr/bin/env python3
"""Where the GPU idles between a read site's syncs: a recording against the same run modelled.

The GPU model (runtime_probe/analysis/gpu_model.h) fits the work queued between two syncs to end where the
second sync says the GPU finished. Without GPU records every duration starts as one guess, so the fit
spreads the work evenly over the interval's launches. Where the real work is uneven (long kernels in
some phases, short ones launched slower than they run in others) the modelled GPU is busy where the real
one idled, and a read's saving (the idle its removal lets the queued work fill) comes out low. This script
shows it: for each interval between two consecutive syncs of the site, the GPU's busy time and idle time
inside it, recorded and modelled, and the idle in each quarter of the interval.

    bench/model_check --dump MODELLED.json RECORDING.json 0     # the records-free model's stream
    bench/gpu/interval_idle.py RECORDING.json MODELLED.json --site cnn_bench.py:82 [--min-launches 20]

--site is PATH:LINE (PATH may be the file's last components) of the sync's site; intervals that queued
fewer than --min-launches launches and copies are left out of the summary (the norms mode's small
intervals between two parameters' reads); the intervals where the modelled stream has no activity are
those the recording had records for (before the model took over) and are left out too.
"""
import argparse
import bisect
import json
import statistics
import sys

BLOCKING = {"stream_sync", "device_sync", "event_sync", "blocking_copy"}
QUEUING = {"launch", "async_copy", "blocking_copy"}


def load(path):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    if not isinstance(d, dict) or d.get("format") != "synclint-probe-stream":
        raise ValueError("not a synclint-probe-stream")
    return d


def site_indexes(d, site):
    path, _, line = site.rpartition(":")
    if not path or not line.isdigit():
        raise ValueError(f"--site {site}: expected PATH:LINE")
    return {i for i, s in enumerate(d["sites"]) if int(s[1]) == int(line) and (s[0] == path or s[0].endswith("/" + path))}


class Activities:
    """A stream's GPU activities by start, for the ones that overlap an interval without a scan of all."""

    def __init__(self, gpu, modelled_only):
        self.gpu = sorted(g for g in gpu if not modelled_only or g[6].endswith("(modelled)"))
        self.starts = [g[0] for g in self.gpu]
        self.longest = max((g[1] - g[0] for g in self.gpu), default=0)

    def overlapping(self, lo, hi):
        first = bisect.bisect_left(self.starts, lo - self.longest)
        return [g for g in self.gpu[first:bisect.bisect_left(self.starts, hi)] if g[1] > lo]


def busy_in(activities, lo, hi):
    """The union of the GPU activities' time inside [lo, hi), and the same per quarter of it."""
    spans = sorted((max(g[0], lo), min(g[1], hi)) for g in activities.overlapping(lo, hi))
    merged = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        elif b > a:
            merged.append([a, b])
    quarter = (hi - lo) / 4
    per_quarter = [0.0] * 4
    for a, b in merged:
        for q in range(4):
            qa, qb = lo + q * quarter, lo + (q + 1) * quarter
            per_quarter[q] += max(0.0, min(b, qb) - max(a, qa))
    return sum(b - a for a, b in merged), per_quarter, bool(merged)


def intervals(d, sites, min_launches):
    syncs = [h for h in d["host"] if h[4] in BLOCKING and h[6] in sites]
    queued = sorted(h[0] for h in d["host"] if h[4] in QUEUING)
    out = []
    for prev, cur in zip(syncs, syncs[1:]):
        lo, hi = prev[1], cur[1]
        launches = bisect.bisect_left(queued, hi) - bisect.bisect_left(queued, lo)
        if launches >= min_launches:
            out.append((lo, hi, launches))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("recording")
    ap.add_argument("modelled")
    ap.add_argument("--site", required=True, help="PATH:LINE of the read's sync")
    ap.add_argument("--min-launches", type=int, default=20)
    a = ap.parse_args(argv)
    try:
        rec, mod = load(a.recording), load(a.modelled)
        sites = site_indexes(rec, a.site)
        if not sites:
            raise ValueError(f"no site {a.site} in {a.recording}")
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        print(f"interval_idle: {e}", file=sys.stderr)
        return 1
    rows = []
    recorded, modelled_work = Activities(rec["gpu"], False), Activities(mod["gpu"], True)
    for lo, hi, launches in intervals(rec, sites, a.min_launches):
        r_busy, r_q, _ = busy_in(recorded, lo, hi)
        m_busy, m_q, modelled = busy_in(modelled_work, lo, hi)
        if not modelled:
            continue
        length = hi - lo
        rows.append((length, launches, r_busy, m_busy, [max(0.0, length / 4 - x) for x in r_q],
                     [max(0.0, length / 4 - x) for x in m_q]))
    if not rows:
        print(f"interval_idle: no modelled interval of {a.min_launches} or more launches between syncs of {a.site}",
              file=sys.stderr)
        return 1
    med = statistics.median
    us = 1e3
    print(f"{len(rows)} intervals between syncs of {a.site} with {a.min_launches} or more launches, modelled "
          f"(medians, us): {med(r[1] for r in rows):.0f} launches in {med(r[0] for r in rows) / us:.0f} us")
    print("| | GPU busy | GPU idle | idle, 1st quarter | 2nd | 3rd | 4th |")
    print("|---|---|---|---|---|---|---|")
    for name, busy, idle_q in (("recorded", 2, 4), ("modelled", 3, 5)):
        quarters = " | ".join(f"{med(r[idle_q][q] for r in rows) / us:.0f}" for q in range(4))
        print(f"| {name} | {med(r[busy] for r in rows) / us:.0f} | {med(r[0] - r[busy] for r in rows) / us:.0f} | {quarters} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
