#!/usr/bin/env bash
# usage: bench/gpu/prepare_carry.sh   (from anywhere; writes .carry/ in the repository root)
# Fills .carry/ (git-ignored) with what the GPU machine lacks to build the synclint CLI: the toml++,
# nlohmann-json and CLI11 headers from this machine's /usr/include, and the pinned tree-sitter sources from
# node_modules/. Run it here, in the repository root, before a device call that names `.carry` in carry;
# there, configure with
#   -DSYNCLINT_HEADER_DEPS_DIR=$PWD/.carry/include -DSYNCLINT_NODE_MODULES=$PWD/.carry/node_modules
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
dest=.carry
rm -rf "$dest"
mkdir -p "$dest/include" "$dest/node_modules/tree-sitter/vendor/tree-sitter" "$dest/node_modules/tree-sitter-python"
for h in nlohmann CLI toml++; do
  [[ -d /usr/include/$h ]] || { echo "prepare_carry: /usr/include/$h is missing (run scripts/setup)" >&2; exit 1; }
  cp -r "/usr/include/$h" "$dest/include/"
done
nm=node_modules
for f in "$nm/tree-sitter/vendor/tree-sitter/lib" "$nm/tree-sitter-python/src"; do
  [[ -d $f ]] || { echo "prepare_carry: $f is missing (run scripts/setup)" >&2; exit 1; }
done
cp -r "$nm/tree-sitter/vendor/tree-sitter/lib" "$dest/node_modules/tree-sitter/vendor/tree-sitter/"
cp -r "$nm/tree-sitter-python/src" "$dest/node_modules/tree-sitter-python/"
cp "$nm/tree-sitter/package.json" "$dest/node_modules/tree-sitter/"
cp "$nm/tree-sitter-python/package.json" "$dest/node_modules/tree-sitter-python/"
du -sh "$dest"
