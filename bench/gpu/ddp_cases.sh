#!/usr/bin/env bash
# usage: CASES="nccl1 rank0 all ab kill" BACKEND=gloo|nccl SAME_GPU=1|0 bench/gpu/ddp_cases.sh
# The probe on data-parallel training (bench/gpu/ddp_probe.py under torch.distributed.run, 2 ranks).
# Run from the repository root on a GPU machine (with .carry/ as for run_validation.sh); everything goes
# to $OUT (default bench/out/ddp):
#
#   nccl1     NCCL with both ranks on GPU 0: does NCCL accept it on this machine (it refuses duplicate GPUs)
#   rank0     rank 0 reads loss.item() every step, rank 1 never: merged report, per-rank sites, --trace
#   all       every rank reads every step
#   ab        in-process A/B of removing rank 0's read (--rounds blocks of each, alternating), probed: the
#             measured saving per step beside the report's predicted saving per call
#   kill      rank 1 is sent SIGKILL after step 100: rank 0's report is still written, the merge names rank 1
#
#   CASES="nccl1 rank0 all ab kill" BACKEND=gloo SAME_GPU=1 TIME_BUDGET_S=400 bench/gpu/ddp_cases.sh
#
# With two GPUs: BACKEND=nccl SAME_GPU=0.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
OUT="${OUT:-$root/bench/out/ddp}"
CASES="${CASES:-nccl1 rank0 all ab kill}"
BACKEND="${BACKEND:-gloo}"
SAME=()
[[ ${SAME_GPU:-1} == 1 ]] && SAME=(--same-gpu)
deadline=$((SECONDS + ${TIME_BUDGET_S:-100000}))
mkdir -p "$OUT"
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/run.log"; }
left() { local l=$((deadline - SECONDS - 5)); ((l < 0)) && l=0; echo $((l < ${1:-120} ? l : ${1:-120})); }
launch=(python3 -m torch.distributed.run --nproc_per_node=2 --master_port=29533 bench/gpu/ddp_probe.py)

if [[ -z ${synclint:-} ]]; then
  source bench/gpu/build_gpu.sh
  build_gpu "$OUT" || { log "synclint build FAILED"; tail -30 "$OUT/build-synclint.log"; exit 1; }
fi
log "built; $(git log --oneline -1 2>/dev/null); $(nvidia-smi --query-gpu=name,count --format=csv,noheader | head -1)"

summarize() {  # REPORT TRACE: the merged report's runs and sites by rank, the trace's processes and their spans
  python3 - "$@" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
print("status:", rep["run"]["status"], "| runs:", [(r.get("rank"), r.get("status")) for r in rep.get("runs", [])])
for s in rep["sites"][:6]:
    print(f"  {s['path'].split('/')[-1]}:{s['line']} {s['function']} calls={s['calls']} blocked={s['host_blocked_ms']:.1f} "
          f"saving={s['predicted_saving_ms']:.1f} ranks={s.get('ranks')}")
if len(sys.argv) > 2:
    t = json.load(open(sys.argv[2]))
    spans = {}
    for e in t["traceEvents"]:
        if e.get("ph") == "X":
            lo, hi = spans.get(e["pid"], (float("inf"), 0))
            spans[e["pid"]] = (min(lo, e["ts"]), max(hi, e["ts"] + e.get("dur", 0)))
    names = {e["pid"]: e["args"]["name"] for e in t["traceEvents"] if e.get("ph") == "M" and e.get("name") == "process_name"}
    for pid, (lo, hi) in sorted(spans.items()):
        print(f"  trace pid {pid} {names.get(pid, '')}: {lo/1e3:.1f} .. {hi/1e3:.1f} ms")
    if len(spans) > 1:
        lo = max(s[0] for s in spans.values()); hi = min(s[1] for s in spans.values())
        print(f"  processes overlap for {(hi - lo)/1e3:.1f} ms")
PY
}

for c in $CASES; do
  ((SECONDS < deadline - 10)) || { log "time budget spent: skipped $c and the rest"; break; }
  d="$OUT/$c"; mkdir -p "$d"
  log "case $c"
  case $c in
    nccl1)
      timeout "$(left 60)" "${launch[@]}" --backend nccl --same-gpu --steps 5 --warmup 1 >"$d/out.txt" 2>&1
      echo "rc=$?" >>"$d/out.txt"; grep -m3 -i "duplicate\|error" "$d/out.txt" | cut -c1-300; tail -1 "$d/out.txt" ;;
    rank0 | all)
      timeout "$(left)" "$synclint" probe -o "$d/report.json" --trace "$d/trace.json" --keep-dir "$d/kept" --top 8 -- \
        "${launch[@]}" --backend "$BACKEND" "${SAME[@]}" --reads "$c" --steps 300 >"$d/out.txt" 2>&1
      echo "rc=$?" >>"$d/out.txt"; grep "ms/step\|rc=" "$d/out.txt"; summarize "$d/report.json" "$d/trace.json"
      gzip -9 "$d/trace.json" ;;
    ab)
      timeout "$(left 200)" "$synclint" probe -o "$d/report.json" --keep-dir "$d/kept" --top 8 -- \
        "${launch[@]}" --backend "$BACKEND" "${SAME[@]}" --reads ab --rounds "${ROUNDS:-16}" --block 40 --json "$d/ab.json" >"$d/out.txt" 2>&1
      echo "rc=$?" >>"$d/out.txt"; grep "^ab:\|rc=" "$d/out.txt"; summarize "$d/report.json"
      python3 - "$d/report.json" "$d/ab.json" <<'PY'
import json, sys
rep, ab = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
site = next(s for s in rep["sites"] if s["function"] == "train_step")
per_call = site["predicted_saving_ms"] / site["calls"]
measured = ab["median_saving_ms_per_step"]
print(f"removing rank 0's read: predicted {per_call:.3f} ms per read ({site['calls']} reads, {site['predicted_saving_ms']:.1f} ms), "
      f"measured {measured:.3f} ms per step; predicted/measured = {per_call / measured:.2f}")
PY
      ;;
    kill)
      rm -rf "$d/pids"; mkdir -p "$d/pids"
      "$synclint" probe -o "$d/report.json" --keep-dir "$d/kept" --top 8 -- \
        "${launch[@]}" --backend "$BACKEND" "${SAME[@]}" --reads rank0 --steps 100000 --pid-dir "$d/pids" >"$d/out.txt" 2>&1 &
      pid=$!
      for ((i = 0; i < 240; i++)); do grep -q 'rank 1 step 100' "$d/out.txt" && break; sleep 0.5; done
      kill -KILL "$(cat "$d/pids/pid-rank1")" && echo "SIGKILL to rank 1 (pid $(cat "$d/pids/pid-rank1")) after $((i / 2)) s" >>"$d/signal.txt"
      for ((i = 0; i < 120; i++)); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
      kill -0 $pid 2>/dev/null && { echo "still running 60 s later: SIGTERM" >>"$d/signal.txt"; kill -TERM $pid; }
      wait $pid; echo "synclint rc=$?" >>"$d/signal.txt"; cat "$d/signal.txt"; ls "$d/kept" 2>/dev/null
      grep -i "partial\|synclint probe" "$d/out.txt" | head -5; summarize "$d/report.json" ;;
    *) log "unknown case $c" ;;
  esac
done
log "done"
