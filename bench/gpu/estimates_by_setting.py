#!/usr/bin/env python3
"""The probe's estimates for the CNN benchmark's reads, per setting, from repeat_probed.sh archives.

For each group of archives (a probe setting, given as NAME=ARCHIVE[,ARCHIVE...][@SETTING]), the median over
the probed processes of each read's predicted saving in ms per step (the loss read once a step, the norms
reads 22 times a step), by language and batch. With @SETTING, only the processes whose setting.txt holds
SETTING (repeat_probed.sh PROBE_ENVS runs several settings in one archive; @ alone: those without a
setting). Groups run on different VMs compare the probe's numbers, not the machines: the measured savings
are in each run's summary.txt.

    python3 bench/gpu/estimates_by_setting.py \\
        default=bench/results/gpu-run25-raw/repeats.tar.gz,bench/results/gpu-run26-raw/repeats.tar.gz \\
        model=bench/results/gpu-run31-raw/repeats.tar.gz,bench/results/gpu-run32-raw/rp/repeats.tar.gz
"""
import glob
import json
import os
import statistics
import sys
import tarfile
from collections import defaultdict

READS = {"log_loss": ("loss", 1), "log_norms": ("norms", 22)}


def tag_of(name):
    """TAG of a path ending in probe-TAG.json, else None."""
    base = name.rsplit("/", 1)[-1]
    return base[len("probe-"):-len(".json")] if base.startswith("probe-") and base.endswith(".json") else None


def reports(archive, setting=None):
    """(tag, report) for each probe report in a repeat_probed.sh archive or folder (rep-K/probe-TAG.json);
    with `setting`, only those whose rep-K/setting.txt holds it ("" also matches a folder without one)."""
    if os.path.isdir(archive):
        for path in sorted(glob.glob(os.path.join(archive, "**", "probe-*.json"), recursive=True)):
            try:
                if setting is not None:
                    setting_file = os.path.join(os.path.dirname(path), "setting.txt")
                    found = open(setting_file).read().strip() if os.path.exists(setting_file) else ""
                    if found != setting:
                        continue
                with open(path) as f:
                    yield tag_of(path), json.load(f)
            except (OSError, ValueError):
                continue
        return
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        settings = {}
        for member in members:
            if member.name.endswith("/setting.txt"):
                try:
                    settings[member.name.rsplit("/", 1)[0]] = tar.extractfile(member).read().decode(errors="replace").strip()
                except (KeyError, AttributeError):
                    continue
        for member in members:
            if tag_of(member.name) is None:
                continue
            if setting is not None and settings.get(member.name.rsplit("/", 1)[0], "") != setting:
                continue
            try:
                yield tag_of(member.name), json.load(tar.extractfile(member))
            except (ValueError, KeyError):
                continue


def per_step(archives, setting=None):
    """{(lang, batch, mode): [predicted saving, ms/step, one per process]}."""
    out = defaultdict(list)
    for archive in archives:
        for tag, report in reports(archive, setting):
            lang, batch = tag.split("-")[0], tag.rsplit("-", 1)[-1]
            for site in report.get("sites", []):
                for name, (mode, per) in READS.items():
                    if name in site.get("function", "") and site.get("calls", 0) > 0:
                        out[(lang, batch, mode)].append(site["predicted_saving_ms"] / site["calls"] * per)
    return out


def main(argv):
    if len(argv) < 2 or any("=" not in a for a in argv[1:]):
        print("usage: estimates_by_setting.py NAME=ARCHIVE[,ARCHIVE...][@SETTING]...", file=sys.stderr)
        return 2
    groups = []
    for a in argv[1:]:
        name, rest = a.split("=", 1)
        archives, at, setting = rest.partition("@")
        groups.append((name, archives.split(","), setting if at else None))
    try:
        table = {name: per_step(archives, setting) for name, archives, setting in groups}
    except (OSError, tarfile.TarError) as e:
        print(f"estimates_by_setting.py: {e}", file=sys.stderr)
        return 1
    keys = sorted({k for t in table.values() for k in t})
    print("| lang | batch | read | " + " | ".join(f"{n}: processes, median ms/step" for n, _, _ in groups) + " |")
    print("|---|---|---|" + "---|" * len(groups))
    for key in keys:
        cells = []
        for name, _, _ in groups:
            v = table[name].get(key, [])
            cells.append(f"{len(v)}, {statistics.median(v):.3f}" if v else "-")
        print(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
