#!/bin/sh
# `kladder try --sanitize` on a GPU (label gpu), with NVIDIA compute-sanitizer beside the toolkit
# or on PATH: vector_add without its bounds check, at a size that is not a whole number of
# blocks, is named by memcheck at the line of its load and store (exit 1); the rung as it is
# comes back clean (exit 0); matmul's shared-memory tiles without the barrier between filling
# and reading them are named by racecheck at the lines that write and read the tiles (exit 1),
# and with the barrier are clean. The lines are found here in the planted files, so a rung whose
# text moves cannot leave the test checking nothing. Without compute-sanitizer: exit 77 (skipped).
# Usage: try_sanitize_gpu.sh KLADDER SOURCE_DIR
set -u
kladder=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache"
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1

v="$src/kernels/elementwise/01_vector_add.cu"
cp "$v" "$tmp/clean.cu"
sed 's/if (i < n) c\[i\] = /c[i] = /' "$v" > "$tmp/mine.cu"
line=$(grep -n 'c\[i\] = kl_from_float' "$tmp/mine.cu" | cut -d: -f1)
grep -q 'if (i < n)' "$tmp/mine.cu" && fail "mine.cu: the bounds check was not removed (the rung's line changed?)"
[ -n "$line" ] || fail "mine.cu: no store line found"

"$kladder" try elementwise mine.cu --like vector_add --sanitize -s n=1000003 >"$tmp/out" 2>&1
code=$?; cat "$tmp/out"
# A machine without compute-sanitizer (beside the toolkit, on PATH, or KL_COMPUTE_SANITIZER) cannot
# run this test: skipped (CTest's SKIP_RETURN_CODE), never passed.
if [ $code -eq 3 ] && grep -q "needs NVIDIA compute-sanitizer" "$tmp/out"; then
  echo "SKIP: no compute-sanitizer on this machine"; exit 77
fi
[ $code -eq 1 ] || fail "mine.cu: expected exit 1 (findings), got $code"
grep -Eq "^mine.cu:$line:  memcheck: invalid global (read|write) of 4 bytes, thread \([0-9]+,0,0\) block \([0-9]+,0,0\)" \
  "$tmp/out" || fail "mine.cu: no memcheck finding at line $line"
"$kladder" try elementwise mine.cu --like vector_add --sanitize --json -s n=1000003 >"$tmp/out" 2>&1
tr -d ' \n' < "$tmp/out" | grep -q "\"file\":\"mine.cu\",\"hazards\":0,\"kernel\":\"[^\"]*\",\"line\":$line" ||
  { cat "$tmp/out"; fail "mine.cu --json: no finding at line $line"; }

"$kladder" try elementwise clean.cu --like vector_add --sanitize -s n=1000003 >"$tmp/out" 2>&1
code=$?; cat "$tmp/out"
[ $code -eq 0 ] || fail "clean.cu: expected exit 0, got $code"
grep -q "compute-sanitizer memcheck on clean.cu: no errors; the check run: passed" "$tmp/out" || fail "clean.cu: not clean"

m="$src/kernels/matmul/03_smem_tiles.cu"
cp "$m" "$tmp/tiles.cu"
sed 's|__syncthreads();  // the tiles are complete|/* no barrier */;  // the tiles are complete|' "$m" > "$tmp/race.cu"
grep -q 'no barrier' "$tmp/race.cu" || fail "race.cu: the barrier was not removed (the rung's line changed?)"
write_a=$(grep -n 'As\[ty\]\[tx\] = ' "$tmp/race.cu" | cut -d: -f1)
write_b=$(grep -n 'Bs\[ty\]\[tx\] = ' "$tmp/race.cu" | cut -d: -f1)
read=$(grep -n 'acc += As\[ty\]\[k\]' "$tmp/race.cu" | cut -d: -f1)
[ -n "$write_a" ] && [ -n "$write_b" ] && [ -n "$read" ] || fail "race.cu: the tile lines were not found"

"$kladder" try matmul race.cu --like smem_tiles --sanitize=racecheck -s M=64 -s N=64 -s K=64 >"$tmp/out" 2>&1
code=$?; cat "$tmp/out"
[ $code -eq 1 ] || fail "race.cu: expected exit 1 (findings), got $code"
# A race between a tile's write and its read, named from either end.
grep -Eq "^race.cu:($write_a|$write_b):  racecheck: race between a write here and .*read at line $read" "$tmp/out" ||
  grep -Eq "^race.cu:$read:  racecheck: race between a read here and .*write at line ($write_a|$write_b)" "$tmp/out" ||
  fail "race.cu: no race between lines $write_a/$write_b and $read"

"$kladder" try matmul tiles.cu --like smem_tiles --sanitize=racecheck -s M=64 -s N=64 -s K=64 >"$tmp/out" 2>&1
code=$?; cat "$tmp/out"
[ $code -eq 0 ] || fail "tiles.cu: expected exit 0, got $code"
echo "try_sanitize_gpu.sh: all checks passed"
