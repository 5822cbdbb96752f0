#!/bin/sh
# `kladder serve` finds a learner's rung in the workspace ($XDG_DATA_HOME/kernel-ladder/
# workspace/<ladder>/, docs/formats.md section 5) when the ladder has no rung of that id: the
# request resolves (without a GPU it ends in the "no GPU" reply, so the reply says how far it
# got), the learner rung's parameters are checked like any rung's, and a broken workspace
# manifest is answered with its file, line and field. No GPU needed.
# Usage: serve_learner.sh KLADDER SOURCE_DIR
set -u
kladder=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ws="$tmp/data/kernel-ladder/workspace/elementwise"
mkdir -p "$ws"
cp "$src/kernels/elementwise/01_vector_add.cu" "$ws/mine_vector_add.cu"
manifest() {  # manifest FORKED_FROM
  cat > "$ws/manifest.toml" <<TOML
[workspace]
ladder = "elementwise"

[[rung]]
id = "mine_vector_add"
title = "mine: Vector add"
file = "mine_vector_add.cu"
forked_from = "$1"
operation = "vector_add"
  [rung.params.TPB]
  default = 256
  values = [128, 256]
  [rung.params.EPT]
  default = 4
  values = [4]
  [[rung.launch]]
  entry = "vector_add"
  grid = ["cdiv(n, TPB * EPT)"]
  block = ["TPB"]
  args = ["c", "a", "b", "n:i64"]
TOML
}
fail() { echo "FAIL: $*"; cat "$tmp/out"; exit 1; }
export XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache" CUDA_VISIBLE_DEVICES=
manifest vector_add
printf '%s\n' '{"type":"run","id":1,"ladder":"elementwise","rung":"mine_vector_add","sizes":{"n":4097}}' \
  '{"type":"run","id":2,"ladder":"elementwise","rung":"mine_vector_add","params":{"TPB":64}}' \
  '{"type":"run","id":3,"ladder":"elementwise","rung":"mine_nothing"}' | "$kladder" serve > "$tmp/out" 2>/dev/null
grep '"id":1' "$tmp/out" | grep -q '"kind":"gpu"' || fail "request 1: the learner's rung did not resolve"
grep '"id":2' "$tmp/out" | grep -q 'TPB=64' || fail "request 2: the learner's parameter was not checked"
grep '"id":3' "$tmp/out" | grep -q "has no rung 'mine_nothing'" || fail "request 3: an unknown rung was not refused"
manifest nope
printf '%s\n' '{"type":"run","id":4,"ladder":"elementwise","rung":"mine_vector_add"}' |
  "$kladder" serve > "$tmp/out" 2>/dev/null
grep '"id":4' "$tmp/out" | grep -q 'manifest.toml:[0-9]*: rung .mine_vector_add..forked_from' ||
  fail "request 4: a broken workspace was not named by file, line and field"
echo "serve_learner.sh: all checks passed"
