#!/bin/sh
# `kladder try` on a GPU (label gpu): a learner's copy of gelu_fused_vec checks and times within
# noise of the original (a speed ratio of 0.8 to 1.25: both run in the same process, cold L2),
# a deliberately wrong GeLU (0.49 instead of 0.5) fails its check with exit 1 and the mismatch
# count, a kernel that traps is exit 3 with the fault named, and one that never ends is stopped
# by --timeout (exit 3, one line saying so).
# Usage: try_gpu.sh KLADDER SOURCE_DIR
set -u
kladder=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache"
fail() { echo "FAIL: $*"; exit 1; }
g="$src/kernels/elementwise/04_gelu_fused_vec.cu"
cp "$g" "$tmp/mine.cu"
sed 's/return 0.5f \* x/return 0.49f * x/' "$g" > "$tmp/wrong.cu"
cmp -s "$g" "$tmp/wrong.cu" && fail "could not make wrong.cu"
sed 's/const long long nv = n \/ KL_VEC;/const long long nv = n \/ KL_VEC; if (blockIdx.x == 7) __trap();/' "$g" > "$tmp/trap.cu"
# The edit must have happened: a pattern that no longer matches the rung left trap.cu a plain copy,
# which then passed as "no fault" (the rung's line changed in e206604 and this test kept passing
# nothing).
grep -q '__trap()' "$tmp/trap.cu" || fail "trap.cu: the trap was not planted (the rung's line changed?)"
# A loop on clock64() never ends and cannot be optimised away (a loop on a local volatile was:
# NVRTC removed it and the "hang" ran in 0.73 ms on the H100).
sed 's/const long long nv = n \/ KL_VEC;/const long long nv = n \/ KL_VEC; if (blockIdx.x == 0) { while (clock64() >= 0) {} }/' \
  "$g" > "$tmp/hang.cu"
grep -q 'clock64' "$tmp/hang.cu" || fail "hang.cu: the endless loop was not planted"

"$kladder" try elementwise "$tmp/mine.cu" --like gelu_fused_vec > "$tmp/out" 2>&1
code=$?; cat "$tmp/out"
[ $code -eq 0 ] || fail "mine.cu: expected exit 0, got $code"
ratio=$(grep -o '[0-9.]*x *$' "$tmp/out" | tail -n 1 | tr -d 'x ')
awk -v r="$ratio" 'BEGIN { exit !(r >= 0.8 && r <= 1.25) }' || fail "mine.cu: speed ratio '$ratio' is not within 0.8..1.25"

"$kladder" try elementwise "$tmp/wrong.cu" --like gelu_fused_vec > "$tmp/out" 2>&1
code=$?; cat "$tmp/out"
[ $code -eq 1 ] || fail "wrong.cu: expected exit 1, got $code"
grep -Eq "wrong.cu: [1-9][0-9]* mismatches of [0-9]+ elements" "$tmp/out" || fail "wrong.cu: no mismatch count"

"$kladder" try elementwise "$tmp/trap.cu" --like gelu_fused_vec > "$tmp/out" 2>&1
code=$?; cat "$tmp/out"
[ $code -eq 3 ] || fail "trap.cu: expected exit 3, got $code"
grep -q "fault" "$tmp/out" || fail "trap.cu: the fault is not named"
"$kladder" try elementwise "$tmp/hang.cu" --like gelu_fused_vec --timeout 30 > "$tmp/out" 2>&1
code=$?; cat "$tmp/out"
[ $code -eq 3 ] || fail "hang.cu: expected exit 3, got $code"
grep -q "hang.cu did not finish within 30 s" "$tmp/out" || fail "hang.cu: the time-out is not said"
echo "try_gpu.sh: all checks passed"
