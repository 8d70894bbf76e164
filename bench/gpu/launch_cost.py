"""Host cost of one kernel launch, for measuring what a tracer adds per launch.

Launches tiny kernels (an in-place add on a one-element CUDA tensor) back to back, so the loop is bound
by the host's launch path; prints microseconds per launch for each repetition (median-friendly) as JSON.

    python3 bench/gpu/launch_cost.py [--launches 20000] [--reps 5] [--json out.json]
"""
import argparse
import json
import time

import torch


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--launches", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    x = torch.zeros(1, device="cuda")
    for _ in range(2000):  # warm-up: allocator, module loading, the tracer's first records
        x.add_(1.0)
    torch.cuda.synchronize()
    results = []
    for rep in range(args.reps):
        t0 = time.perf_counter()
        for _ in range(args.launches):
            x.add_(1.0)
        torch.cuda.synchronize()
        us = (time.perf_counter() - t0) * 1e6 / args.launches
        results.append({"rep": rep, "us_per_launch": us})
        print("launch_cost rep=%d  %.3f us/launch" % (rep, us), flush=True)
    doc = {"bench": "launch_cost.py", "torch": torch.__version__, "launches": args.launches, "results": results}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
