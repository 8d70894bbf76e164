#!/usr/bin/env python3
"""Scores synclint's SARIF reports against the hand labels of bench/realworld (format: README.md).

usage: score.py --projects projects.tsv --labels labels/ --results DIR [--sources SRC] [--check]

DIR holds one SARIF report per checked project, named <name>.sarif, with paths relative to the
project's root. Projects without a report are skipped. With --sources, SRC/<name>/ holds each
project's laid-out sources, and a label on a missing file or past a file's end is an error.
--check exits 1 when a target is missed.
"""
import argparse
import json
import os
import re
import sys
from dataclasses import dataclass, field

LABEL_HEADER = ["repo", "commit", "path", "line", "rule", "class", "source", "note"]
PROJECT_HEADER = ["name", "repo", "commit", "paths"]
CLASSES = {"label": {"MUST", "EITHER", "TRAP"}, "review": {"RIGHT", "WRONG"}}
POSITIVE = {"MUST", "EITHER", "RIGHT"}
NEGATIVE = {"TRAP", "WRONG"}
TARGETS = {"recall": 0.95, "precision": 0.95, "trap_notes": 0.02}
RULE_RE = re.compile(r"^(SYNC\d{3}|-)$")
LINE_RE = re.compile(r"^(\d+)(?:-(\d+))?$")


class InputError(Exception):
    """A labels, projects or SARIF file that does not follow the format."""


@dataclass
class Label:
    path: str
    first: int
    last: int
    rule: str
    cls: str
    source: str
    note: str

    def where(self):
        line = str(self.first) if self.first == self.last else f"{self.first}-{self.last}"
        return f"{self.path}:{line}"


@dataclass
class Finding:
    path: str
    line: int
    rule: str
    level: str  # "warning" (SARIF error counts as warning) or "note"
    message: str

    def is_warning(self):
        return self.level == "warning"


@dataclass
class Score:
    name: str
    counts: dict = field(default_factory=dict)
    must: int = 0
    must_found: int = 0
    must_warned: int = 0
    right: int = 0
    wrong: int = 0
    traps: int = 0
    trap_notes: int = 0
    trap_warnings: int = 0
    periodic_warned: int = 0
    periodic_warnings: list = field(default_factory=list)
    misses: list = field(default_factory=list)
    false_positives: list = field(default_factory=list)
    noted_traps: list = field(default_factory=list)
    unjudged: list = field(default_factory=list)

    def add(self, other):
        for key, value in other.counts.items():
            self.counts[key] = self.counts.get(key, 0) + value
        for name in ("must", "must_found", "must_warned", "right", "wrong", "traps", "trap_notes",
                     "trap_warnings", "periodic_warned"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("periodic_warnings", "misses", "false_positives", "noted_traps", "unjudged"):
            getattr(self, name).extend(getattr(other, name))


def _ratio(num, den):
    return num / den if den else None


def read_tsv(path, header):
    try:
        with open(path, encoding="utf-8") as f:
            rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from e
    if not rows or rows[0] != header:
        raise InputError(f"{path}:1: header must be: {' '.join(header)} (tab-separated)")
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise InputError(f"{path}:{number}: {len(row)} fields, expected {len(header)}")
    return [(number, dict(zip(header, row))) for number, row in enumerate(rows[1:], start=2)]


def read_projects(path):
    return [row for _, row in read_tsv(path, PROJECT_HEADER)]


def read_labels(path, repo=None, commit=None):
    labels = []
    for number, row in read_tsv(path, LABEL_HEADER):
        where = f"{path}:{number}"
        match = LINE_RE.match(row["line"])
        if not match:
            raise InputError(f"{where}: line must be N or N-M, got {row['line']!r}")
        first = int(match.group(1))
        last = int(match.group(2) or first)
        if first < 1 or last < first:
            raise InputError(f"{where}: bad line range {row['line']!r}")
        if row["source"] not in CLASSES:
            raise InputError(f"{where}: source must be label or review, got {row['source']!r}")
        if row["class"] not in CLASSES[row["source"]]:
            allowed = "/".join(sorted(CLASSES[row["source"]]))
            raise InputError(f"{where}: class of a {row['source']} row must be {allowed}, got {row['class']!r}")
        if not RULE_RE.match(row["rule"]):
            raise InputError(f"{where}: rule must be SYNCnnn or -, got {row['rule']!r}")
        if not row["path"] or row["path"].startswith("/"):
            raise InputError(f"{where}: path must be relative to the project root")
        if repo is not None and (row["repo"], row["commit"]) != (repo, commit):
            raise InputError(f"{where}: {row['repo']}@{row['commit']} does not match projects.tsv ({repo}@{commit})")
        labels.append(Label(row["path"], first, last, row["rule"], row["class"], row["source"], row["note"]))
    return labels


def check_label_sites(labels, root):
    """Raises InputError for a label whose file is absent under root or shorter than its line."""
    lengths = {}
    for label in labels:
        if label.path not in lengths:
            try:
                with open(os.path.join(root, label.path), encoding="utf-8", errors="replace") as f:
                    lengths[label.path] = sum(1 for _ in f)
            except OSError:
                lengths[label.path] = None
        if lengths[label.path] is None:
            raise InputError(f"{root}: labelled file {label.path} is not in the laid-out sources")
        if label.last > lengths[label.path]:
            raise InputError(f"{label.where()}: past the end of the file ({lengths[label.path]} lines)")


def _norm(uri):
    uri = uri.replace("\\", "/")
    while uri.startswith("./"):
        uri = uri[2:]
    return uri


def read_sarif(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: not a readable SARIF file ({e})") from e
    findings = []
    try:
        for run in doc["runs"]:
            for result in run.get("results", []):
                loc = result["locations"][0]["physicalLocation"]
                level = "note" if result.get("level", "warning") == "note" else "warning"
                findings.append(Finding(_norm(loc["artifactLocation"]["uri"]), int(loc["region"]["startLine"]),
                                        result.get("ruleId", "?"), level, result.get("message", {}).get("text", "")))
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise InputError(f"{path}: unexpected SARIF structure ({e!r})") from e
    return findings


def _labels_at(index, finding):
    """The labels covering the finding's line, those with the finding's rule first if any."""
    covering = [l for l in index.get(finding.path, []) if l.first <= finding.line <= l.last]
    same_rule = [l for l in covering if l.rule == finding.rule]
    return same_rule or covering


def score(name, labels, findings):
    s = Score(name)
    for label in labels:
        s.counts[label.cls] = s.counts.get(label.cls, 0) + 1
    index = {}
    for label in labels:
        index.setdefault(label.path, []).append(label)
    hits = {}  # id(label) -> findings on its lines
    for finding in findings:
        at = _labels_at(index, finding)
        for label in at:
            hits.setdefault(id(label), []).append(finding)
        if not at:
            s.unjudged.append(finding)
            continue
        if not finding.is_warning():
            continue
        if any(l.cls in POSITIVE for l in at):
            s.right += 1
        else:
            s.wrong += 1
            s.false_positives.append((finding, at[0]))
    for label in labels:
        found = hits.get(id(label), [])
        if label.cls == "MUST":
            s.must += 1
            if found:
                s.must_found += 1
            else:
                s.misses.append(label)
            if any(f.is_warning() for f in found):
                s.must_warned += 1
                if label.note.startswith("periodic"):
                    s.periodic_warned += 1
                    s.periodic_warnings.append(label)
        elif label.cls == "TRAP":
            s.traps += 1
            if any(f.is_warning() for f in found):
                s.trap_warnings += 1
            elif found:
                s.trap_notes += 1
                s.noted_traps.append((found[0], label))
    return s


def _fmt(value, digits=3):
    return "-" if value is None else f"{value:.{digits}f}"


def _row(s):
    c = s.counts
    sites = sum(c.get(k, 0) for k in ("MUST", "EITHER", "TRAP"))
    return [s.name, str(sites), str(c.get("MUST", 0)), str(c.get("EITHER", 0)), str(c.get("TRAP", 0)),
            f"{c.get('RIGHT', 0)}/{c.get('WRONG', 0)}",
            _fmt(_ratio(s.must_found, s.must)), _fmt(_ratio(s.must_warned, s.must)),
            _fmt(_ratio(s.right, s.right + s.wrong)), f"{s.right}/{s.right + s.wrong}",
            _fmt(_ratio(s.trap_notes, s.traps)), str(s.trap_warnings), str(len(s.unjudged))]


HEADERS = ["project", "sites", "MUST", "EITHER", "TRAP", "RIGHT/WRONG", "recall", "recall(warn)",
           "precision", "right/warn", "TRAP notes", "TRAP warns", "unjudged"]


def report(scores, out):
    total = Score("total")
    for s in scores:
        total.add(s)
    rows = [HEADERS] + [_row(s) for s in scores] + [_row(total)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
    for r in rows:
        out.write("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() + "\n")
    recall = _ratio(total.must_found, total.must)
    precision = _ratio(total.right, total.right + total.wrong)
    trap_notes = _ratio(total.trap_notes, total.traps)
    met = {
        "recall": recall is not None and recall >= TARGETS["recall"],
        "precision": precision is not None and precision >= TARGETS["precision"],
        "trap_notes": trap_notes is not None and trap_notes <= TARGETS["trap_notes"],
    }
    out.write(f"\ntargets: recall {_fmt(recall)} (>= {TARGETS['recall']}) {'met' if met['recall'] else 'MISSED'}; "
              f"precision {_fmt(precision)} (>= {TARGETS['precision']}) {'met' if met['precision'] else 'MISSED'}; "
              f"notes on TRAP {_fmt(trap_notes)} (<= {TARGETS['trap_notes']}) "
              f"{'met' if met['trap_notes'] else 'MISSED'}\n")
    if total.periodic_warned:
        out.write(f"periodic MUST sites reported as warnings (expected notes): {total.periodic_warned}\n")
    for s in scores:
        sections = [
            ("misses (MUST without a finding)", [f"{l.where()} {l.rule} {l.note}" for l in s.misses]),
            ("false positives (warnings on TRAP/WRONG)",
             [f"{f.path}:{f.line} {f.rule} [{l.cls}] {l.note}" for f, l in s.false_positives]),
            ("periodic MUST reported as warnings", [f"{l.where()} {l.rule} {l.note}" for l in s.periodic_warnings]),
            ("notes on TRAP", [f"{f.path}:{f.line} {f.rule} {l.note}" for f, l in s.noted_traps]),
            ("unjudged (findings on unlabeled lines)",
             [f"{f.path}:{f.line} {f.rule} {f.level}: {f.message}" for f in s.unjudged]),
        ]
        for title, lines in sections:
            if lines:
                out.write(f"\n[{s.name}] {title}: {len(lines)}\n")
                for line in sorted(lines, key=_natural):
                    out.write(f"  {line}\n")
    return all(met.values())


def _natural(text):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--projects", required=True)
    parser.add_argument("--labels", required=True, help="folder of <name>.tsv label files")
    parser.add_argument("--results", required=True, help="folder of <name>.sarif reports")
    parser.add_argument("--sources", help="folder of <name>/ laid-out sources to check the labels against")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    try:
        scores = []
        for project in read_projects(args.projects):
            name = project["name"]
            sarif = os.path.join(args.results, f"{name}.sarif")
            if not os.path.exists(sarif):
                print(f"score: {name}: no report, skipped", file=sys.stderr)
                continue
            label_file = os.path.join(args.labels, f"{name}.tsv")
            labels = read_labels(label_file, project["repo"], project["commit"])
            if args.sources:
                check_label_sites(labels, os.path.join(args.sources, name))
            scores.append(score(name, labels, read_sarif(sarif)))
    except InputError as e:
        print(f"score: {e}", file=sys.stderr)
        return 2
    if not scores:
        print("score: no project was checked", file=sys.stderr)
        return 0
    met = report(scores, sys.stdout)
    return 1 if args.check and not met else 0


if __name__ == "__main__":
    sys.exit(main())
