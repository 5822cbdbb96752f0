#!/usr/bin/env bash
# mlp rung 5's variants in one device call, after scripts/gpu_mlp/cluster.sh: the variants' GPU
# test (ClusterRungVariantsCorrect), then alternated rounds at GPT's 8192 x 4096 x 16384 with a
# CUPTI timeline: unfused, rung 5 at its defaults, TANH = 16, GROUP_M = 8, 256 x 128 tiles; the
# table last (cluster_table.py).
#   scripts/gpu_mlp/cluster_variants.sh <carry folder> <device tag>
# Results under $OUT: <tag>_mlp_cluster_variants.json, table.txt, logs.tgz.
set -uo pipefail
C=${1:?carry folder}; TAG=${2:?device tag}
OUT=${OUT:-/tmp/kl-out}; P=$OUT/parts; mkdir -p "$P"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
say() { echo "$*" | tee -a "$P/summary.txt"; }
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader | tee "$P/nvidia-smi.txt"
$K calibrate --force > "$P/calibrate.txt" 2>&1; say "calibrate: exit $? ($(grep -m1 -i copy "$P/calibrate.txt"))"
timeout 120 "$C/test_gpu_mlp" --gtest_filter='GpuMlp.ClusterRungVariantsCorrect' > "$P/test_gpu_mlp.txt" 2>&1
say "test_gpu_mlp (ClusterRungVariantsCorrect): exit $?"
grep -E "^\[  (FAILED|  OK|SKIPPED|  PASSED) |Failure" "$P/test_gpu_mlp.txt" | head -20 | tee -a "$P/summary.txt"
rec() {  # rec <part> <kladder arguments...>
  local name=$1; shift
  timeout 100 $K "$@" --json "$P/rec_$name.json" > "$P/rec_$name.txt" 2>&1; say "run $name: exit $? (${SECONDS} s)"
}
R="run mlp --size T=8192,D=4096,F=16384 --timeline"
for round in 1 2 3 4 5; do
  [ "$round" -le 2 ] || [ "$SECONDS" -lt "${ROUNDS_UNTIL:-240}" ] || break
  rec "r${round}_a_unfused" $R --rung unfused
  rec "r${round}_b_r5" $R --rung gelu_cluster
  rec "r${round}_c_r5_tanh16" $R --rung gelu_cluster -p TANH=16
  rec "r${round}_d_r5_group8" $R --rung gelu_cluster -p GROUP_M=8
  rec "r${round}_e_r5_256x128" $R --rung gelu_cluster -p BM=256 -p BN=128 -p STAGES=3
done
python3 "$C/merge_results.py" "$OUT/${TAG}_mlp_cluster_variants.json" "$P"/rec_*.json
python3 "$C/cluster_table.py" "$P" | tee "$OUT/table.txt"
cat "$P/summary.txt"
(cd "$P" && tar czf ../logs.tgz ./* 2>/dev/null)
rm -rf "$P"
