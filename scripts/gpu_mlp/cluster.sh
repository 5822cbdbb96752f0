#!/usr/bin/env bash
# mlp rung 5 (gelu_cluster) in one device call: a smoke run (a deadlock must not eat the call),
# the mlp GPU tests, then alternated rounds at GPT's 8192 x 4096 x 16384 (cold L2, each run with
# a CUPTI timeline for the kernels' own times): unfused, rung 4, rung 5, rung 5 unpaired
# (CLUSTER = 1) and cuBLASLt's GELU epilogue, one after the other per round, as many rounds as
# the time allows (at least two); DRAM counters of rung 5 and unfused once; compute-sanitizer
# memcheck and racecheck on rung 5 at odd sizes; the table last.
#   scripts/gpu_mlp/cluster.sh <carry folder> <device tag>
# The carry folder holds kladder (stripped kladder-core), test_gpu_mlp, merge_results.py and
# cluster_table.py. Results under $OUT: <tag>_mlp_cluster.json (every timed run), table.txt,
# logs.tgz. Time guards (seconds since start): ROUNDS_UNTIL (380), SAN_UNTIL (540).
set -uo pipefail
C=${1:?carry folder}; TAG=${2:?device tag}
OUT=${OUT:-/tmp/kl-out}; P=$OUT/parts; mkdir -p "$P"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
say() { echo "$*" | tee -a "$P/summary.txt"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader |
  tee "$P/nvidia-smi.txt"
$K calibrate --force > "$P/calibrate.txt" 2>&1; say "calibrate: exit $? ($(grep -m1 -i copy "$P/calibrate.txt"))"

OK=0
for s in "T=256,D=256,F=512" "T=2048,D=512,F=4096" "T=2048,D=512,F=4096 -p CLUSTER=1"; do
  timeout 30 $K run mlp --rung gelu_cluster --size $s > "$P/smoke_${s// /_}.txt" 2>&1
  rc=$?; [ $rc -le 1 ] || OK=1
  say "smoke $s: exit $rc ($(grep -m1 gelu_cluster "$P/smoke_${s// /_}.txt"))"
done

filter='GpuMlp.*'; [ $OK -eq 0 ] || filter='GpuMlp.Qkv*'
timeout 170 "$C/test_gpu_mlp" --gtest_filter="$filter" > "$P/test_gpu_mlp.txt" 2>&1
say "test_gpu_mlp ($filter): exit $?"
grep -E "^\[  (FAILED|  OK|SKIPPED|  PASSED) |counters:|Failure" "$P/test_gpu_mlp.txt" | head -30 | tee -a "$P/summary.txt"

rec() {  # rec <part> <kladder arguments...>
  local name=$1; shift
  timeout 100 $K "$@" --json "$P/rec_$name.json" > "$P/rec_$name.txt" 2>&1; say "run $name: exit $? (${SECONDS} s)"
}
R="run mlp --size T=8192,D=4096,F=16384"
if [ $OK -eq 0 ]; then
  for round in 1 2 3 4 5 6; do
    [ "$round" -le 2 ] || [ "$SECONDS" -lt "${ROUNDS_UNTIL:-380}" ] || break
    rec "r${round}_a_unfused" $R --timeline --rung unfused
    rec "r${round}_b_r4" $R --timeline --rung gelu_tma_store
    rec "r${round}_c_r5" $R --timeline --rung gelu_cluster
    rec "r${round}_d_r5_unpaired" $R --timeline --rung gelu_cluster -p CLUSTER=1
    rec "r${round}_e_lt" $R --timeline --rung cublaslt_gelu
  done
  rec "x_counters_r5" $R --counters --rung gelu_cluster
  rec "x_counters_unfused" $R --counters --rung unfused
  python3 "$C/merge_results.py" "$OUT/${TAG}_mlp_cluster.json" "$P"/rec_*.json
  for tool in memcheck racecheck; do
    for c in "T=127,D=65,F=259" "T=1100,D=72,F=2056" "T=1100,D=64,F=2055" "T=1100,D=72,F=2056 -p CLUSTER=1"; do
      [ "$SECONDS" -lt "${SAN_UNTIL:-540}" ] || { say "sanitizer $tool $c: not run (time budget)"; continue; }
      f="$P/san_${tool}_${c// /_}.txt"
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $K run mlp --rung gelu_cluster --size $c \
        --warmup 0 --reps 1 --warm-l2 > "$f" 2>&1
      say "sanitizer $tool gelu_cluster $c: exit $? ($(tail -1 "$f")) $(grep -m1 -o 'Race reported between [A-Za-z]* access at [A-Za-z0-9_]*' "$f")"
    done
  done
fi
python3 "$C/cluster_table.py" "$P" | tee "$OUT/table.txt"
cat "$P/summary.txt"
(cd "$P" && tar czf ../logs.tgz ./* 2>/dev/null)
rm -rf "$P"
