#!/usr/bin/env python3
"""Writes COUNT damaged Python files into OUT: real source files (from SOURCE, a folder, each at most once
and at its own path under OUT/<name of SOURCE>/, so that their imports still link) mutated with a fixed seed: lines deleted or duplicated, truncation, random bytes, unbalanced brackets, deep nesting and
mixed line endings, one to four mutations per file. The same SOURCE, COUNT and SEED give the same files.

usage: damaged_gen.py SOURCE OUT [COUNT=1000] [SEED=1]
"""
import os
import random
import sys


def sources(root):
    found = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                if 200 < os.path.getsize(path) < 200_000:
                    found.append(path)
    return found


def delete_lines(rng, lines):
    for _ in range(rng.randint(1, 5)):
        if lines:
            del lines[rng.randrange(len(lines))]


def duplicate_lines(rng, lines):
    for _ in range(rng.randint(1, 5)):
        if lines:
            i = rng.randrange(len(lines))
            lines[i:i] = lines[i:i + rng.randint(1, 10)]


def truncate(rng, lines):
    text = "".join(lines)
    lines[:] = [text[: rng.randrange(len(text) + 1)]]


def random_bytes(rng, lines):
    text = "".join(lines)
    for _ in range(rng.randint(1, 20)):
        i = rng.randrange(len(text) + 1)
        text = text[:i] + "".join(chr(rng.choice([rng.randrange(32, 127), rng.randrange(160, 0x3000)]))
                                  for _ in range(rng.randint(1, 8))) + text[i:]
    lines[:] = [text]


def unbalance(rng, lines):
    text = "".join(lines)
    for _ in range(rng.randint(1, 10)):
        i = rng.randrange(len(text) + 1)
        text = text[:i] + rng.choice("([{)]}\"'") + text[i:]
    lines[:] = [text]


def deep_nesting(rng, lines):
    depth = rng.randint(50, 400)
    kind = rng.randrange(3)
    if kind == 0:
        block = "x = " + "(" * depth + "1" + ")" * rng.randint(0, depth) + "\n"
    elif kind == 1:
        block = "".join(" " * d + "if x:\n" for d in range(depth)) + " " * depth + "pass\n"
    else:
        block = "y = " + "[f(" * depth + "\n"
    i = rng.randrange(len(lines) + 1)
    lines[i:i] = [block]


def line_endings(rng, lines):
    for i in range(len(lines)):
        if lines[i].endswith("\n") and rng.random() < 0.3:
            lines[i] = lines[i][:-1] + rng.choice(["\r", "\r\n"])


MUTATIONS = [delete_lines, duplicate_lines, truncate, random_bytes, unbalance, deep_nesting, line_endings]


def main():
    root, out = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    pool = sources(root)
    if not pool:
        sys.exit(f"damaged_gen: no Python files under {root}")
    os.makedirs(out, exist_ok=True)
    picked = rng.sample(pool, count) if count <= len(pool) else [rng.choice(pool) for _ in range(count)]
    base = os.path.basename(os.path.normpath(root))
    for n, path in enumerate(picked):
        with open(path, encoding="utf-8", errors="replace", newline="") as f:
            lines = f.read().splitlines(keepends=True)
        for mutate in rng.sample(MUTATIONS, rng.randint(1, 4)):
            mutate(rng, lines)
        rel = os.path.relpath(path, root)
        if count > len(pool):
            rel = rel[:-3] + f"_{n}.py"
        target = os.path.join(out, base, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8", newline="") as f:
            f.write("".join(lines))


if __name__ == "__main__":
    main()
