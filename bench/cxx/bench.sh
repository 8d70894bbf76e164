#!/usr/bin/env bash
# usage: [RUNS=3] [BUILD=build] [TU=examples/libtorch/train.cpp] [FLAGS="..."] bench/cxx/bench.sh
# C++ front-end benchmark on one LibTorch training translation unit (it includes <torch/torch.h>).
# Measures wall time, CPU time and peak memory (GNU time -v), RUNS times each, medians, of
#   (a) synclint check -j1 TU -- FLAGS
#   (b) the floor: clang++-19 -fsyntax-only FLAGS TU (the same parse, nothing else)
#   (c) clang-tidy-19 -checks=-*,performance-for-range-copy TU -- FLAGS (one AST-matcher check)
# and the throughput of synclint -j1 against -j2 over 8 copies of the TU. Prints markdown tables.
# Installs what it needs (clang-19 clang-tidy-19 time) and builds synclint in $BUILD (default build/).
set -euo pipefail
cd "$(dirname "$0")/../.."

RUNS=${RUNS:-3}
BUILD=${BUILD:-build}
TU=${TU:-examples/libtorch/train.cpp}

missing=()
for p in clang-19 clang-tidy-19 time; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bench: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
[[ -f $TU ]] || { echo "bench: $TU is not a file" >&2; exit 2; }
if [[ -z ${FLAGS:-} ]]; then
  api=""
  for d in /usr/include/torch/csrc/api/include /usr/local/include/torch/csrc/api/include; do
    [[ -f $d/torch/torch.h ]] && { api=$d; break; }
  done
  [[ -n $api ]] || { echo "bench: LibTorch headers not found (install libtorch-dev or set FLAGS)" >&2; exit 2; }
  FLAGS="-std=c++17 -isystem $api"
fi
read -r -a flags <<<"$FLAGS"

echo "bench: building synclint" >&2
cmake -S . -B "$BUILD" -G Ninja >/dev/null
cmake --build "$BUILD" --target synclint >&2
synclint=$BUILD/tools/synclint/synclint

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# 8 translation units for the -j1/-j2 throughput: copies of the TU under different names.
mkdir -p "$out/tus"
tus=()
for i in 1 2 3 4 5 6 7 8; do cp "$TU" "$out/tus/train_$i.cpp"; tus+=("$out/tus/train_$i.cpp"); done

source bench/lib/measure.sh  # measure, median (the working folder is the repository root)

load_before=$(cut -d' ' -f1 /proc/loadavg)
for ((r = 1; r <= RUNS; r++)); do
  echo "bench: run $r/$RUNS" >&2
  measure synclint "$synclint" check --no-progress -j1 "$TU" -- "${flags[@]}"
  measure clang clang++-19 -fsyntax-only "${flags[@]}" "$TU"
  measure tidy clang-tidy-19 -checks=-*,performance-for-range-copy --quiet "$TU" -- "${flags[@]}"
  measure j1 "$synclint" check --no-progress -j1 "${tus[@]}" -- "${flags[@]}"
  measure j2 "$synclint" check --no-progress -j2 "${tus[@]}" -- "${flags[@]}"
done

echo
echo "TU: $TU ($(wc -l <"$TU") lines, includes <torch/torch.h>), flags: \`$FLAGS\`; medians of $RUNS runs," \
     "$(nproc) cores, load average $load_before before and $(cut -d' ' -f1 /proc/loadavg) after."
echo
echo "| run | command | wall time (s) | CPU time, user + sys (s) | peak memory (MB) | exit |"
echo "|---|---|---:|---:|---:|---:|"
row() {
  printf '| %s | `%s` | %.2f | %.2f | %.0f | %s |\n' "$1" "$2" "$(median 1 "$out/$3")" "$(median 4 "$out/$3")" \
    "$(median 2 "$out/$3" | awk '{ print $1 / 1024 }')" "$(median 3 "$out/$3")"
}
row "synclint" "synclint check -j1 TU -- FLAGS" synclint
row "floor" "clang++-19 -fsyntax-only FLAGS TU" clang
row "clang-tidy" "clang-tidy-19 -checks=-*,performance-for-range-copy TU -- FLAGS" tidy
row "synclint, 8 TUs, -j1" "synclint check -j1 8xTU -- FLAGS" j1
row "synclint, 8 TUs, -j2" "synclint check -j2 8xTU -- FLAGS" j2
echo
awk -v s="$(median 1 "$out/synclint")" -v c="$(median 1 "$out/clang")" -v t="$(median 1 "$out/tidy")" \
    -v sm="$(median 2 "$out/synclint")" -v cm="$(median 2 "$out/clang")" \
    -v a="$(median 1 "$out/j1")" -v b="$(median 1 "$out/j2")" 'BEGIN {
  printf "| target | measured | verdict |\n|---|---|---|\n"
  r = c > 0 ? s / c : 0;    printf "| synclint <= 1.15x the floor (wall) | %.2fx | %s |\n", r, (r <= 1.15 ? "met" : "NOT met")
  r = s > 0 ? t / s : 0;    printf "| faster than clang-tidy | clang-tidy / synclint %.2fx | %s |\n", r, (r > 1 ? "met" : "NOT met")
  r = cm > 0 ? sm / cm : 0; printf "| peak memory <= 1.5x clang | %.2fx | %s |\n", r, (r <= 1.5 ? "met" : "NOT met")
  r = b > 0 ? a / b : 0;    printf "| -j2 >= 1.8x the -j1 throughput (8 TUs) | %.2fx | %s |\n", r, (r >= 1.8 ? "met" : "NOT met")
}'
awk -v s="$(median 4 "$out/synclint")" -v c="$(median 4 "$out/clang")" -v t="$(median 4 "$out/tidy")" \
    -v a="$(median 4 "$out/j1")" -v b="$(median 4 "$out/j2")" 'BEGIN {
  printf "\nCPU time (less affected by other load): synclint / floor %.2fx; clang-tidy / synclint %.2fx;", \
         (c > 0 ? s / c : 0), (s > 0 ? t / s : 0)
  printf " 8 TUs -j2 / -j1 %.2fx\n", (a > 0 ? b / a : 0) }'
echo
echo "synclint exit status: $(median 3 "$out/synclint") (1 = findings; 2 = a TU could not be analysed)"
if [[ $(median 3 "$out/synclint") -ge 2 ]]; then
  echo "synclint's stderr (last run):" && head -20 "$out/synclint.stderr"
fi
