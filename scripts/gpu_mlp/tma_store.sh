#!/usr/bin/env bash
# mlp rung 4 (gelu_tma_store) in one device call: smoke (a deadlock must not eat the call), the
# GPU tests, then GPT's 8192 x 4096 x 16384, cold L2, each run with a CUPTI timeline (the first
# product's own kernel time beside cuBLAS's plain GEMM in the unfused rung): unfused first and
# last (its spread), the whole ladder at its defaults with counters, rung 4's variants, rung 4
# and rung 2 again; then compute-sanitizer on rung 4 at small odd sizes; a table last.
#   scripts/gpu_mlp/tma_store.sh <carry folder> <device tag> [parts]
# parts: a word list of tests, sweep, san (default: all three).
# The carry folder holds kladder (stripped kladder-core), test_gpu_mlp, kernels/, lessons/,
# merge_results.py and tma_store_table.py. Results under $OUT: <tag>_mlp_tma_store.json (every
# timed run), table.txt, logs.tgz.
set -uo pipefail
C=${1:?carry folder}; TAG=${2:?device tag}; PARTS=${3:-"tests sweep san"}
OUT=${OUT:-/tmp/kl-out}; P=$OUT/parts; mkdir -p "$P"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
say() { echo "$*" | tee -a "$P/summary.txt"; }
has() { [[ " $PARTS " == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader |
  tee "$P/nvidia-smi.txt"
$K calibrate --force > "$P/calibrate.txt" 2>&1; say "calibrate: exit $? ($(grep -m1 -i copy "$P/calibrate.txt"))"

# 0. Smoke: one tile per block, then several, then two accumulator sets, then three consumers.
OK=0
for s in "T=256,D=256,F=512" "T=2048,D=512,F=4096" "T=2048,D=512,F=4096 -p OVERLAP=1" "T=2048,D=512,F=4096 -p BM=192 -p STAGES=3"; do
  timeout 30 $K run mlp --rung gelu_tma_store --size $s > "$P/smoke_${s// /_}.txt" 2>&1
  rc=$?; [ $rc -le 1 ] || OK=1
  say "smoke $s: exit $rc ($(grep -m1 gelu_tma_store "$P/smoke_${s// /_}.txt"))"
done

if has tests; then
  filter='GpuMlp.*'; [ $OK -eq 0 ] || filter='GpuMlp.Qkv*'
  timeout 150 "$C/test_gpu_mlp" --gtest_filter="$filter" > "$P/test_gpu_mlp.txt" 2>&1
  say "test_gpu_mlp ($filter): exit $?"
  grep -E "^\[  (FAILED|  OK|SKIPPED|  PASSED) |counters:|Failure" "$P/test_gpu_mlp.txt" | head -30 | tee -a "$P/summary.txt"
fi
rec() {  # rec <part> <kladder run or sweep, and its arguments...>
  local name=$1; shift
  timeout 120 $K "$@" --json "$P/rec_$name.json" > "$P/rec_$name.txt" 2>&1; say "run $name: exit $?"
}
G="mlp --size T=8192,D=4096,F=16384 --timeline"; R="run $G"; S="sweep $G"
if has sweep && [ $OK -eq 0 ]; then
  # unfused first and last (its spread); the whole ladder at its defaults with counters between
  rec a_unfused1 $R --rung unfused
  rec b_ladder run mlp --counters --timeline
  rec c_overlap1 $R --counters --rung gelu_tma_store -p OVERLAP=1
  rec c_bm192 $R --counters --rung gelu_tma_store -p BM=192 -p STAGES=3
  rec c_overlap2 $R --rung gelu_tma_store -p OVERLAP=2
  rec c_epilogue0 $R --rung gelu_tma_store -p EPILOGUE=0
  rec c_group8 $R --rung gelu_tma_store -p GROUP_M=8
  rec c_group8_overlap1 $R --rung gelu_tma_store -p GROUP_M=8 -p OVERLAP=1
  rec c_bn256 $R --rung gelu_tma_store -p BN=256 -p STAGES=3
  rec d_r4 $R --rung gelu_tma_store
  rec d_r4_overlap1 $R --rung gelu_tma_store -p OVERLAP=1
  rec e_r2 $R --rung gemm_gelu_epilogue -p GROUP_M=16
  rec f_unfused2 $R --rung unfused
  python3 "$C/merge_results.py" "$OUT/${TAG}_mlp_tma_store.json" "$P"/rec_[a-f]_*.json
fi
if has san && [ $OK -eq 0 ]; then
  for tool in memcheck racecheck; do
    for c in "T=127,D=65,F=259" "T=1100,D=72,F=2056" "T=1100,D=64,F=2055" "T=1100,D=72,F=2056 -p OVERLAP=1" \
             "T=127,D=65,F=259 -p OVERLAP=1" "T=1100,D=72,F=2056 -p BM=192 -p STAGES=3"; do
      [ "$SECONDS" -lt "${SAN_BUDGET:-300}" ] || { say "sanitizer $tool $c: not run (time budget)"; continue; }
      f="$P/san_${tool}_${c// /_}.txt"
      timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $K run mlp --rung gelu_tma_store --size $c \
        --warmup 0 --reps 1 --warm-l2 > "$f" 2>&1
      say "sanitizer $tool gelu_tma_store $c: exit $? ($(tail -1 "$f")) $(grep -m1 -o 'Race reported between [A-Za-z]* access at [A-Za-z0-9_]*' "$f")"
    done
  done
fi
python3 "$C/tma_store_table.py" "$P" | tee "$OUT/table.txt"
cat "$P/summary.txt"
(cd "$P" && tar czf ../logs.tgz ./* 2>/dev/null)
rm -rf "$P"
