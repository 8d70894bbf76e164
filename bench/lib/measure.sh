# usage: source bench/lib/measure.sh (with $out, a scratch folder, set), then: measure NAME CMD... and median COLUMN FILE
# Shared by the benchmarks' scripts: one run under GNU time, and the median of a column of the results.

# measure NAME CMD...: one run under GNU time; appends "wall_seconds peak_kb exit_status cpu_seconds" to
# $out/NAME, and keeps the run's output in $out/stdout and $out/stderr (copied to $out/NAME.stdout/.stderr).
measure() {
  local name=$1; shift
  /usr/bin/time -v -o "$out/time" "$@" >"$out/stdout" 2>"$out/stderr" || true
  awk -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; wall = s }
    /Maximum resident set size/ { rss = $2 }
    /Exit status/ { status = $2 }
    /User time/ { cpu += $2 }
    /System time/ { cpu += $2 }
    END { printf "%.2f %d %d %.2f\n", wall, rss, status, cpu }' "$out/time" >>"$out/$name"
  cp "$out/stdout" "$out/$name.stdout"; cp "$out/stderr" "$out/$name.stderr"
}

# median COLUMN FILE
median() { sort -n -k"$1","$1" "$2" | awk -v c="$1" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }
