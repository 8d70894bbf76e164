#!/usr/bin/env python3
"""Which probed processes of bench/gpu/stress_model.sh lost reads, per probe setting.

    stress_summary.py WORK_DIR EXPECTED_NORMS_READS

WORK_DIR holds one folder per process (s<slot>-<k>-b<batch>/) with rc.txt (its exit status), setting.txt
(its PROBE_ENVS entry), log.txt (the probe's stderr with SYNCLINT_PROBE_DEBUG=1 and the benchmark's
output) and report.json. A process is short when it exited 0 and its report counts fewer calls at the
norms-logging sites than the EXPECTED_NORMS_READS it made. Printed: per process, its setting, exit status,
norms reads and the probe's debug lines on its sync-path callbacks, the model's fits and who switched its
stretches, and its last "tracing off"; then per setting, the processes and the short ones among those
that exited 0.
"""
import collections
import glob
import json
import os
import sys

DEBUG_LINES = ("sync-path callbacks", "re-timed", "switched by a sync")


def read(path, default=""):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default


def norms_reads(report_path):
    """The calls at the norms-logging sites in a report, or None without a readable report."""
    try:
        with open(report_path) as f:
            report = json.load(f)
        return sum(s["calls"] for s in report["sites"] if "log_norms" in s.get("function", ""))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def summarize(work, expected):
    """(rows, per-setting counts): one text row per process; {setting: [processes, finished, short]}."""
    counts = collections.OrderedDict()
    rows = []
    for d in sorted(glob.glob(os.path.join(work, "s*-*-b*"))):
        rc = read(os.path.join(d, "rc.txt"), "?").strip()
        setting = read(os.path.join(d, "setting.txt")).strip() or "(none)"
        log = read(os.path.join(d, "log.txt"))
        calls = norms_reads(os.path.join(d, "report.json"))
        c = counts.setdefault(setting, [0, 0, 0])
        c[0] += 1
        if rc == "0":
            c[1] += 1
            if calls is not None and calls < expected:
                c[2] += 1
        lines = [l for l in log.splitlines() if any(k in l for k in DEBUG_LINES)]
        lines += [l for l in log.splitlines() if "tracing off" in l][-1:]
        shown = "-" if calls is None else calls
        rows.append(f"{os.path.basename(d)} [{setting}] exit {rc} norms reads {shown} of {expected}\n    " +
                    "\n    ".join(lines))
    return rows, counts


def main(argv):
    if len(argv) != 3 or not os.path.isdir(argv[1]) or not argv[2].isdigit():
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        print("stress_summary.py: needs a work folder and the number of norms reads each process made", file=sys.stderr)
        return 2
    rows, counts = summarize(argv[1], int(argv[2]))
    print("\n".join(rows))
    print()
    for setting, (n, finished, short) in counts.items():
        print(f"[{setting}] {n} processes, {finished} exited 0; {short} of those with fewer norms reads in the report than made")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
