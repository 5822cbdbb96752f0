#!/bin/sh
# `kladder tune` on a GPU (label gpu): one rung at a small size within a small budget finds and
# stores a setting that passed its check, `--list` shows it current, `run --tuned` runs it and
# records `settings.kind = "tuned"`, a changed source (a copy of the tree with one comment added)
# makes it stale (the defaults run, a line says why, the record says "default"), and Ctrl-C
# (SIGINT) during a tuning keeps what was found, marked partial.
# Usage: tune_gpu.sh KLADDER SOURCE_DIR
set -u
kladder=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache"
fail() { echo "FAIL: $*"; exit 1; }
store=$tmp/data/kernel-ladder/tuned.json

"$kladder" tune elementwise --rung gelu_fused_vec --size n=2^24 --budget 20 > "$tmp/out" 2> "$tmp/err"
code=$?; cat "$tmp/out" "$tmp/err"
[ $code -eq 0 ] || fail "tune: expected exit 0, got $code"
grep -q '"checked":true.*"rung":"gelu_fused_vec"' "$store" || fail "no checked setting stored in $store"
"$kladder" tune elementwise --list | grep -q 'gelu_fused_vec .* current' || fail "--list does not show it current"

"$kladder" run elementwise --rung gelu_fused_vec --size n=2^24 --tuned --json "$tmp/r.json" > "$tmp/out" 2>&1
code=$?; cat "$tmp/out"
[ $code -eq 0 ] || fail "run --tuned: expected exit 0, got $code"
grep -q 'tuned settings for gelu_fused_vec' "$tmp/out" || fail "run --tuned did not say it used tuned settings"
grep -q '"settings":{"kind":"tuned"' "$tmp/r.json" || fail "the record does not say tuned"

# The same tree with the rung's source changed by a comment: stale, so the defaults run.
mkdir -p "$tmp/root" && cp -r "$src/kernels" "$src/lessons" "$tmp/root/"
echo '// changed' >> "$tmp/root/kernels/elementwise/04_gelu_fused_vec.cu"
KLADDER_ROOT="$tmp/root" "$kladder" run elementwise --rung gelu_fused_vec --size n=2^24 --tuned \
    --json "$tmp/s.json" > "$tmp/out" 2>&1
code=$?; cat "$tmp/out"
[ $code -eq 0 ] || fail "stale run: expected exit 0, got $code"
grep -q 'are stale: its source changed' "$tmp/out" || fail "a changed source was not reported stale"
grep -q '"settings":{"kind":"default"}' "$tmp/s.json" || fail "the stale run's record does not say default"

# Ctrl-C once ten points are measured (progress in a log comes every tenth): exit 0, and what
# was found is stored (partial, unless the cancel fell between two rungs).
rm -f "$store"
"$kladder" tune elementwise --size n=2^24 --budget 60 > "$tmp/out" 2> "$tmp/err" &
pid=$!
i=0
while ! grep -q 'points' "$tmp/err" && [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done
kill -INT $pid
wait $pid
code=$?; cat "$tmp/out"
[ $code -eq 0 ] || fail "a cancelled tuning: expected exit 0, got $code"
grep -q '^cancelled: the settings found so far are stored' "$tmp/out" || fail "the cancel was not reported"
grep -q '"rung":' "$store" || fail "nothing stored after the cancel"
grep -q '"partial":true' "$store" || echo "note: the cancel fell between two rungs (no partial entry)"
echo "tune_gpu: all passed"
