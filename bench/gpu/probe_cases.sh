#!/usr/bin/env bash
# The probe on a GPU machine in the cases the validation benchmark does not cover, plus full recordings
# for checking the what-if replay offline. Run from the repository root (with .carry/ as for
# run_validation.sh); everything goes to $OUT (default bench/results/local-cases):
#
#   workers   synclint probe on a loop whose spawned DataLoader workers use CUDA: one report per process
#   ranks     synclint probe on torch.distributed.run with 2 ranks (gloo, both on GPU 0): a report per
#             rank, merged
#   trace     --trace on 2,500 steps of the CNN (batch 16, 22 reads per step): the trace's size bound
#   sigterm   SIGTERM sent to synclint once a long run has printed its first repetition (CUDA is in use
#             by then): the program's report must still be written
#   record    full tracing with SYNCLINT_PROBE_RECORD=1 of the CNN's modes none, loss, norms and compute at
#             batch 128 in one process (Python and C++): the raw streams (gzip) and the step times
#             measured in that process, for `synclint probe analyze`
#
#   CASES="workers ranks trace sigterm record" TIME_BUDGET_S=400 bench/gpu/probe_cases.sh
#
# The device tool returns at most 8 files: everything but the trace is archived as $OUT/cases.tar.gz,
# the trace (gzip) beside it.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
OUT="${OUT:-$root/bench/results/local-cases}"
CASES="${CASES:-workers ranks trace sigterm record}"
deadline=$((SECONDS + ${TIME_BUDGET_S:-100000}))
mkdir -p "$OUT"
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/run.log"; }
left() { local l=$((deadline - SECONDS - 5)); ((l < 0)) && l=0; echo $((l < ${1:-120} ? l : ${1:-120})); }

source bench/gpu/build_gpu.sh
build_gpu "$OUT" || { log "synclint build FAILED"; tail -30 "$OUT/build-synclint.log"; exit 1; }
log "built; $(git log --oneline -1 2>/dev/null)"

for c in $CASES; do
  ((SECONDS < deadline - 10)) || { log "time budget spent: skipped $c and the rest"; break; }
  d="$OUT/$c"; mkdir -p "$d"
  log "case $c"
  case $c in
    workers)
      timeout "$(left)" "$synclint" probe -o "$d/report.json" --keep-dir "$d/kept" --top 0 -- \
        python3 bench/gpu/processes_smoke.py workers --steps 200 >"$d/out.txt" 2>&1
      echo "rc=$?" >>"$d/out.txt"; ls -la "$d/kept" >>"$d/out.txt" 2>&1 ;;
    ranks)
      timeout "$(left)" "$synclint" probe -o "$d/report.json" --keep-dir "$d/kept" --top 0 -- \
        python3 -m torch.distributed.run --nproc_per_node=2 bench/gpu/processes_smoke.py ranks --steps 300 >"$d/out.txt" 2>&1
      echo "rc=$?" >>"$d/out.txt"; ls -la "$d/kept" >>"$d/out.txt" 2>&1
      # merging the kept per-rank reports by hand must give the same report
      "$synclint" probe merge -o "$d/merged-by-hand.json" "$d"/kept/report-*.json >>"$d/out.txt" 2>&1
      echo "merge rc=$?" >>"$d/out.txt" ;;
    trace)
      /usr/bin/time -v timeout "$(left)" "$synclint" probe -o "$d/report.json" --trace "$d/trace.json" -- \
        python3 bench/gpu/cnn_bench.py --mode norms --batch 16 --steps 2500 --reps 1 --warmup 20 >"$d/out.txt" 2>&1
      echo "rc=$?" >>"$d/out.txt"; ls -la "$d" >>"$d/out.txt"
      python3 - "$d/trace.json" >>"$d/out.txt" 2>&1 <<'PY'
import json, sys, collections
t = json.load(open(sys.argv[1]))
ev = t["traceEvents"] if isinstance(t, dict) else t
print("trace events", len(ev), collections.Counter(e.get("ph") for e in ev).most_common(),
      "metadata", {k: v for k, v in t.items() if k != "traceEvents"} if isinstance(t, dict) else {})
PY
      gzip -9 "$d/trace.json" ;;
    sigterm)
      "$synclint" probe -o "$d/report.json" -- python3 bench/gpu/cnn_bench.py --mode loss --batch 16 --steps 300 \
        --reps 100000 --warmup 20 >"$d/out.txt" 2>&1 &
      pid=$!
      for ((i = 0; i < 120; i++)); do grep -q 'rep=0' "$d/out.txt" && break; sleep 0.5; done
      sleep 1; echo "sending SIGTERM to synclint after $((i / 2)) s" >>"$d/signal.txt"; kill -TERM $pid
      wait $pid; echo "rc=$? (the program's: 143 = killed by SIGTERM)" >>"$d/signal.txt"; ls -la "$d" >>"$d/signal.txt" ;;
    record)
      for lang in py cpp; do
        if [[ $lang == py ]]; then cmd=(python3 bench/gpu/cnn_bench.py --mode none loss norms compute)
        else cmd=("$root/build-gpu-train/train_cpp" --mode none,loss,norms,compute); fi
        cmd+=(--batch 128 --steps 100 --reps 3 --warmup 20 --json "$d/$lang-steps.json")
        SYNCLINT_PROBE_SAMPLE=1 SYNCLINT_PROBE_RECORD=1 SYNCLINT_PROBE_RECORD_MAX=400000 timeout "$(left 150)" \
          "$synclint" probe -o "$d/$lang-report.json" --keep-dir "$d/$lang-kept" --top 0 -- "${cmd[@]}" >"$d/$lang-out.txt" 2>&1
        echo "rc=$?" >>"$d/$lang-out.txt"
        gzip -9 "$d/$lang-kept"/stream-*.json 2>/dev/null
      done ;;
    *) log "unknown case $c" ;;
  esac
done
log "done"
mv "$OUT/trace/trace.json.gz" "$OUT/trace.json.gz" 2>/dev/null
tmp="$(mktemp -d)"
tar -czf "$tmp/cases.tar.gz" --exclude=trace.json.gz -C "$OUT" . &&
  find "$OUT" -mindepth 1 -maxdepth 1 ! -name trace.json.gz ! -name run.log -exec rm -rf {} + &&
  mv "$tmp/cases.tar.gz" "$OUT/cases.tar.gz"
ls -la "$OUT"
