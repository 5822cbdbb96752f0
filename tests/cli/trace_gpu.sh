#!/bin/sh
# `kladder trace` on a GPU (label gpu, issue 39's address view): the instrumented kernels run and
# their warp accesses show what the lesson says. Block 0, warp 0, at the lesson's parameters:
# the row-walk copy loads 4 sectors per warp (ideal 4), the column walk 32; the naive transpose
# loads 4 and stores 32; the shared tile read of transpose_smem is a 32-way bank conflict and
# padding makes it conflict-free; the --json file is written.
# Usage: trace_gpu.sh KLADDER
set -u
kladder=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
fail() { echo "FAIL: $*"; exit 1; }
run() {  # run NAME ARGS...: the trace's text in $tmp/NAME
  name=$1; shift
  "$kladder" trace "$@" > "$tmp/$name" 2>&1 || { cat "$tmp/$name"; fail "$name: kladder trace $* exited $?"; }
}
expect() {  # expect NAME REGEX: a line of the trace matches
  grep -Eq "$2" "$tmp/$1" || { cat "$tmp/$1"; fail "$1: no line matches '$2'"; }
}
run row transpose copy_row_walk -s rows=1024 -s cols=1024
expect row '^#0 ld\.global 4 B .*: 4 sectors \(ideal 4\)'
run col transpose copy_col_walk -s rows=1024 -s cols=1024
expect col '^#0 ld\.global 4 B .*: 32 sectors \(ideal 4\)'
run naive transpose transpose_naive -s rows=1024 -s cols=1024
expect naive 'ld\.global 4 B .*: 4 sectors \(ideal 4\)'
expect naive 'st\.global 4 B .*: 32 sectors \(ideal 4\)'
run smem transpose transpose_smem -p TILE=32 -p ROWS_PER_PASS=8 -s rows=1024 -s cols=1024 --json "$tmp/smem.json"
expect smem 'ld\.shared 4 B .*bank conflict degree 32 \(ideal 1\)'
grep -q '"kind": "address_trace"' "$tmp/smem.json" || fail "smem.json: not written"
run padded transpose transpose_padded -p TILE=32 -p ROWS_PER_PASS=8 -s rows=1024 -s cols=1024 --block 3,2 --warp 5
expect padded 'ld\.shared 4 B .*bank conflict degree 1 \(ideal 1\)'
expect padded 'block \(3, 2, 0\) warp 5'
# A block outside the grid is refused in one line, exit 2.
"$kladder" trace transpose transpose_smem -s rows=64 -s cols=64 --block 9 > "$tmp/out" 2>&1
code=$?
[ $code -eq 2 ] && grep -q 'outside the grid' "$tmp/out" || { cat "$tmp/out"; fail "--block 9: expected exit 2, got $code"; }
echo "trace_gpu: all passed"
