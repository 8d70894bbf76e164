#!/usr/bin/env python3
"""Cuts a recorded probe stream (SYNCLINT_PROBE_RECORD=1) down to test-data size.

Keeps the first CALLS host calls, the GPU records and Python calls that start before the last kept call
ends, and the sites they name (renumbered); shortens kernel names to NAME_LEN characters (the copies'
names, "memcpy DtoH" and the like, stay whole: the analysis reads a copy's direction from them); and
counts every timestamp from the run's start, so that the numbers are short. The analysis only compares
times with each other, so its results on the kept part are unchanged.

    bench/gpu/trim_stream.py STREAM.json OUT.json --calls 12000 [--name-len 32]
"""
import argparse
import json
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stream")
    ap.add_argument("out")
    ap.add_argument("--calls", type=int, required=True, help="host calls to keep, from the start")
    ap.add_argument("--name-len", type=int, default=32, help="longest kernel name kept")
    a = ap.parse_args()
    if a.calls <= 0 or a.name_len <= 0:
        ap.error("--calls and --name-len must be positive")
    try:
        with open(a.stream, encoding="utf-8") as f:
            d = json.load(f)
        host = d["host"][: a.calls]
        t0 = d["run_start_ns"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"trim_stream: {a.stream}: {e}", file=sys.stderr)
        return 1
    if not host:
        print(f"trim_stream: {a.stream}: no host calls", file=sys.stderr)
        return 1
    end = max(h[1] for h in host)
    gpu = [g for g in d.get("gpu", []) if g[0] < end]
    py = [p for p in d.get("python_calls", []) if p[0] < end]

    used = sorted({h[6] for h in host if h[6] >= 0} | {p[3] for p in py if p[3] >= 0})
    index = {old: new for new, old in enumerate(used)}
    sites = [d["sites"][i] for i in used]
    for h in host:
        h[0] -= t0
        h[1] -= t0
        h[6] = index.get(h[6], -1)
    for g in gpu:
        g[0] -= t0
        g[1] -= t0
        if g[5] == "kernel":
            g[6] = g[6][: a.name_len]
    for p in py:
        p[0] -= t0
        p[1] -= t0
        p[3] = index.get(p[3], -1)
    d.update(host=host, gpu=gpu, python_calls=py, sites=sites, run_start_ns=0, run_end_ns=end - t0)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(d, f, separators=(",", ":"))
    print(f"trim_stream: {len(host)} host calls, {len(gpu)} GPU records, {len(sites)} sites -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
