#!/usr/bin/env bash
# Real-world precision benchmark: lays out the pinned sources of every project in
# bench/realworld/projects.tsv from the local git mirrors, runs synclint on each, and scores the
# findings against bench/realworld/labels/ (format and meaning: bench/realworld/README.md).
# usage: bench/realworld/score.sh              SYNCLINT=/path/to/synclint bench/realworld/score.sh
#   MIRRORS=/other/mirrors bench/realworld/score.sh --check     (exit 1 when a target is missed)
#   KEEP=/tmp/rw bench/realworld/score.sh    (keep the laid-out sources and reports in /tmp/rw)
#   ALL=0 bench/realworld/score.sh           (score a default run: no once-only notes of --all)
# A project whose mirror is absent is skipped; with no mirror at all the script exits 0.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
MIRRORS=${MIRRORS:-/work/.mirror}
SYNCLINT=${SYNCLINT:-$root/build/tools/synclint/synclint}

if [[ -n ${KEEP:-} ]]; then
  work=$KEEP
  rm -rf "$work/src" "$work/results"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/src" "$work/results"
all_flag=--all
[[ ${ALL:-1} == 0 ]] && all_flag=

# mirror_of OWNER/NAME: the git directory of the project's mirror, or nothing.
mirror_of() {
  local base=$MIRRORS/${1/\//+}
  for dir in "$base/repo" "$base"; do
    if git --git-dir="$dir" rev-parse --git-dir >/dev/null 2>&1; then
      echo "$dir"
      return
    fi
  done
}

checked=0
while IFS=$'\t' read -r name repo commit paths || [[ -n $name ]]; do
  [[ $name == name ]] && continue
  [[ -z $name ]] && continue
  git_dir=$(mirror_of "$repo")
  if [[ -z $git_dir ]] || ! git --git-dir="$git_dir" cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "realworld: $name: no mirror of $repo at $commit under $MIRRORS, skipped" >&2
    continue
  fi
  if [[ ! -x $SYNCLINT ]]; then
    echo "realworld: synclint not found at $SYNCLINT (set SYNCLINT)" >&2
    exit 2
  fi
  dest=$work/src/$name
  mkdir -p "$dest"
  read -ra path_list <<<"$paths"
  # git archive reports unrelated missing large-file objects on stderr; keep it for real failures.
  if ! git --git-dir="$git_dir" archive "$commit" -- "${path_list[@]}" 2>"$work/archive.err" | tar -x -C "$dest"; then
    cat "$work/archive.err" >&2
    echo "realworld: $name: could not lay out $paths at $commit" >&2
    exit 2
  fi
  rc=0
  (cd "$dest" && "$SYNCLINT" check $all_flag --format sarif --exit-zero --no-progress .) \
    >"$work/results/$name.sarif" 2>"$work/$name.err" || rc=$?
  if ((rc != 0)); then
    cat "$work/$name.err" >&2
    echo "realworld: $name: synclint exited $rc" >&2
    exit 2
  fi
  checked=$((checked + 1))
done <"$here/projects.tsv"

if ((checked == 0)); then
  echo "realworld: no project mirror present, nothing scored" >&2
  exit 0
fi
python3 "$here/score.py" --projects "$here/projects.tsv" --labels "$here/labels" --results "$work/results" \
  --sources "$work/src" "$@"
