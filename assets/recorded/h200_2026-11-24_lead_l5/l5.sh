#!/usr/bin/env bash
# Lead call 5: the launch GPU test after its DRAM bound was fixed; five more alternated MLP triples.
set -u
C=$PWD/.carry-lead; K=$C/kladder; W=/tmp/l5; R=$W/l5; mkdir -p $R/json
export XDG_CACHE_HOME=/tmp/kl-l5-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; date -u +%FT%TZ > $R/date.txt
timeout 120 $C/test_gpu_launch > $R/test_gpu_launch.txt 2>&1; echo "test_gpu_launch: exit $?" | tee $R/tests.txt
grep -E "^\[  (PASSED|FAILED|SKIPPED)" $R/test_gpu_launch.txt
$K calibrate --force > $R/calibrate.txt 2>&1
row() { grep -E "^ *$1 " "$2" | head -1 | tr -s ' ' | cut -c1-110; }
for i in 1 2 3 4 5; do for r in unfused gelu_tma_store cublaslt_gelu; do
  $K run mlp -r $r --json $R/json/mlp_${r}_$i.json > $R/mlp_${r}_$i.txt 2>&1
  echo "mlp #$i: $(row $r $R/mlp_${r}_$i.txt)" | tee -a $R/summary.txt
done; done
tar -C $W -czf $OUT/l5.tgz l5; echo "total $SECONDS s"
