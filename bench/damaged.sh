#!/usr/bin/env bash
# usage: [COUNT=1000] [SEED=1] [JOBS=2] [SOURCE=DIR] [BUILD=build] bench/damaged.sh
# Damaged-input benchmark: COUNT mutations of real training code (bench/damaged_gen.py, fixed seed; by
# default from Debian's python3-torch sources) checked with `synclint check --format json -jJOBS`; prints
# wall time, peak memory (GNU time) and the exit status. The run must end well under 60 s and 1 GB.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-1000}
SEED=${SEED:-1}
JOBS=${JOBS:-2}
SOURCE=${SOURCE:-/usr/lib/python3/dist-packages/torch}
BUILD=${BUILD:-build}
[[ -d $SOURCE ]] || SOURCE=fixtures
work=$(mktemp -d "${TMPDIR:-/tmp}/synclint-damaged.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 bench/damaged_gen.py "$SOURCE" "$work/files" "$COUNT" "$SEED"
rc=0
/usr/bin/time -f "%e %M" -o "$work/time" "$BUILD/tools/synclint/synclint" check --format json -j"$JOBS" "$work/files" \
  >"$work/report.json" 2>"$work/err" || rc=$?
read -r wall kb < <(tail -n 1 "$work/time")
errors=$(grep -c "error:" "$work/err" || true)
echo "damaged: $COUNT files (seed $SEED, from $SOURCE), -j$JOBS: ${wall} s, $((kb / 1024)) MB peak, exit $rc, $errors file errors"
((rc <= 2)) || { echo "damaged: synclint crashed or was killed (exit $rc)" >&2; exit 1; }
