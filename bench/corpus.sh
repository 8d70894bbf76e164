#!/usr/bin/env bash
# usage: [RUNS=3] [JOBS=2] [CORPUS=DIR] [BUILD=build] bench/corpus.sh
# Corpus benchmark: the Python sources of Debian's python3-torch (about 1,100 files, 380k lines).
# Measures, in one run, wall time and peak memory (GNU time -v) of
#   (a) synclint check --format json -j2 on the corpus,
#   (b) the parse-only floor: the same files parsed by the same tree-sitter build, 2 threads,
#   (c) flake8 -j2 (Debian's) on the same files,
# RUNS times each (default 3), and prints a markdown table of the medians.
# Installs what it needs (python3-torch flake8 time) and builds synclint in $BUILD (default build/).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
JOBS=${JOBS:-2}
CORPUS=${CORPUS:-/usr/lib/python3/dist-packages/torch}
BUILD=${BUILD:-build}

missing=()
for p in python3-torch flake8 time; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "corpus: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
[[ -d $CORPUS ]] || { echo "corpus: $CORPUS is not a folder" >&2; exit 2; }

echo "corpus: building synclint and the parse-only floor" >&2
cmake -S . -B "$BUILD" -G Ninja >/dev/null
cmake --build "$BUILD" --target synclint synclint-parse-only >&2

synclint=$BUILD/tools/synclint/synclint
parse_only=$BUILD/bench/synclint-parse-only
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

source bench/lib/measure.sh  # measure, median (the working folder is the repository root)


load_before=$(cut -d' ' -f1 /proc/loadavg)
files=$(find "$CORPUS" -name '*.py' -type f | wc -l)
lines=$(find "$CORPUS" -name '*.py' -type f -print0 | xargs -0 cat | wc -l)
for ((r = 1; r <= RUNS; r++)); do
  echo "corpus: run $r/$RUNS" >&2
  measure synclint "$synclint" check --format json -j"$JOBS" --no-progress "$CORPUS"
  cp "$out/stdout" "$out/synclint.json"
  measure parse_only "$parse_only" -j "$JOBS" "$CORPUS"
  measure flake8 flake8 -j"$JOBS" "$CORPUS"
done

checked=$(grep -o '"files_checked": *[0-9]*' "$out/synclint.json" | grep -o '[0-9]*$' || echo "?")
sl=$(median 1 "$out/synclint"); po=$(median 1 "$out/parse_only"); fl=$(median 1 "$out/flake8")
echo
echo "Corpus: $CORPUS ($files files, $lines lines; synclint checked $checked), $JOBS threads/processes," \
     "medians of $RUNS runs, $(nproc) cores, load average $load_before before and $(cut -d' ' -f1 /proc/loadavg) after" \
     "(wall times are only comparable on an otherwise idle machine; CPU times much less affected)."
echo
echo "| run | command | wall time (s) | CPU time, user + sys (s) | peak memory (MB) |"
echo "|---|---|---:|---:|---:|"
row() {
  printf '| %s | `%s` | %.2f | %.2f | %.0f |\n' "$1" "$2" "$(median 1 "$out/$3")" "$(median 4 "$out/$3")" \
    "$(median 2 "$out/$3" | awk '{ print $1 / 1024 }')"
}
row "synclint" "synclint check --format json -j$JOBS" synclint
row "parse-only floor" "synclint-parse-only -j $JOBS" parse_only
row "flake8" "flake8 -j$JOBS" flake8
echo
awk -v s="$sl" -v p="$po" -v f="$fl" 'BEGIN {
  printf "Wall time: synclint / parse-only %.2fx (target <= 1.5x); flake8 / synclint %.1fx (target >= 10x)\n",
         (p > 0 ? s / p : 0), (s > 0 ? f / s : 0) }'
awk -v s="$(median 4 "$out/synclint")" -v p="$(median 4 "$out/parse_only")" -v f="$(median 4 "$out/flake8")" 'BEGIN {
  printf "CPU time:  synclint / parse-only %.2fx; flake8 / synclint %.1fx\n", (p > 0 ? s / p : 0), (s > 0 ? f / s : 0) }'
echo "synclint exit status: $(median 3 "$out/synclint") (1 = findings, 2 = some file had an error, e.g. a syntax error;" \
     "above 128 = killed by a signal)"
