#!/usr/bin/env bash
# Session 5, call 5: which kernel cuBLAS runs for bf16 at 4096^3 and 8192^3 (name, grid, block,
# cluster, registers, shared memory) and the same for rung 18, from Nsight Compute's launch
# statistics; one launch each, no timing.
set -u
C=$PWD/.carry-lead; K=$C/kladder; W=/tmp/s5; R=$W/s5; mkdir -p $R
export XDG_CACHE_HOME=/tmp/kl-s5-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; date -u +%FT%TZ > $R/date.txt
for sz in 4096 8192; do for r in cublas_bf16 wgmma_tma_store_bf16; do
  f=$R/ncu_${r}_$sz.txt
  timeout 120 ncu --section LaunchStats --section Occupancy --clock-control none --kernel-name regex:'nvjet|sm90|matmul_wgmma' --launch-count 2 \
    $K run matmul -r $r -s M=$sz,N=$sz,K=$sz --dtype bf16 --reps 1 --warmup 0 --no-check > $f 2>&1
  echo "== $r $sz"; grep -E "^  [a-zA-Z_0-9]+.*\(|Grid Size|Block Size|Cluster Size|Registers Per|Dynamic Shared|Waves Per SM|Duration" $f | head -24
done; done
tar -C $W -czf $OUT/s5.tgz s5; echo "total $SECONDS s"
