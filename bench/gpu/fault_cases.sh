#!/usr/bin/env bash
# usage: [MODES="plain int ..."] bench/gpu/fault_cases.sh
# The probe's fault-injection matrix on a real GPU with the real CUPTI: bench/gpu/fault_program.py ends in
# each of the ways of tests/probe_inject/fault_host.cpp, once unprobed and once under `synclint probe`.
# Each case checks that the program's output and exit status are the unprobed run's, that it ends within
# 60 s, and prints what the per-process reports say. Run from the repository root on a GPU machine (with
# .carry/ as for run_validation.sh); everything goes to $OUT (default bench/out/faults):
#
#   MODES="plain exit3 fork-run ..." bench/gpu/fault_cases.sh      (default: every mode)
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
OUT="${OUT:-$root/bench/out/faults}"
MODES="${MODES:-plain exit3 fork-run fork-exit fork-exec exec thread-exit segv kill term int term-twice group-term fsize rmdir threads64 init-twice}"
mkdir -p "$OUT"
if [[ -z ${synclint:-} ]]; then
  source bench/gpu/build_gpu.sh
  build_gpu "$OUT" || { echo "synclint build FAILED"; tail -30 "$OUT/build-synclint.log"; exit 1; }
fi
program=(python3 bench/gpu/fault_program.py)
failed=0
printf '%-12s %-9s %-9s %-6s %s\n' mode unprobed probed same reports
for m in $MODES; do
  d="$OUT/$m"; rm -rf "$d"; mkdir -p "$d"
  steps=200; [[ $m == threads64 ]] && steps=20
  # setsid: group-term signals its own process group, not this script's
  start=$SECONDS
  timeout -k 5 60 setsid "${program[@]}" "$m" "$steps" >"$d/unprobed.out" 2>"$d/unprobed.err"; u=$?
  timeout -k 5 60 setsid "$synclint" probe -o "$d/report.json" --keep-dir "$d/kept" --top 3 -- \
    "${program[@]}" "$m" "$steps" >"$d/probed.out" 2>"$d/probed.err"; p=$?
  secs=$((SECONDS - start))
  same=yes
  [[ $u == "$p" ]] || same=no
  head -n "$(wc -l <"$d/unprobed.out")" "$d/probed.out" | cmp -s - "$d/unprobed.out" || same=no
  ((u == 124 || p == 124)) && same=hang
  [[ $same == yes ]] || failed=1
  reports="$(python3 - "$d/kept" <<'PY'
import glob, json, sys
out = []
for f in sorted(glob.glob(sys.argv[1] + "/report-*.json")):
    try:
        r = json.load(open(f))
    except Exception as e:
        out.append(f"{f.split('/')[-1]}: unreadable ({e.__class__.__name__})")
        continue
    reads = sum(s["calls"] for s in r["sites"] if s["function"] in ("steps",))
    status = r["run"]["status"]
    out.append(f"{'ok' if status == 'ok' else status[:60]} ({reads} reads)")
print("; ".join(out) or "none")
PY
)"
  printf '%-12s %-9s %-9s %-6s %s [%ss]\n' "$m" "$u" "$p" "$same" "$reports" "$secs"
  grep -h "synclint probe:" "$d/probed.err" | head -3 | sed 's/^/    /'
done
exit $failed
