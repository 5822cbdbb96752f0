#!/usr/bin/env bash
# Session 5, call 1: measurement only, alone on the GPU. Issue 20: rung 18's tile order (GROUP_M)
# and pairing (CLUSTER) against cuBLAS at 4096^3 and 8192^3, alternated run by run, three rounds;
# counters (DRAM, L2) of each form once. Issue 17: the MLP's unfused plan, rung 4 and its
# OVERLAP forms, alternated, three rounds, with the CUPTI timeline (each kernel's own time).
set -u
C=$PWD/.carry-lead; K=$C/kladder; W=/tmp/s1; R=$W/s1; mkdir -p $R/json $R/txt
export XDG_CACHE_HOME=/tmp/kl-s1-cache
fin() { tar -C $W -czf $OUT/s1.tgz s1; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $R/device.txt; date -u +%FT%TZ > $R/date.txt
$K calibrate --force > $R/calibrate.txt 2>&1
summ() { python3 $C/summ.py "$@" | tee -a $R/summary.txt; }
declare -A F=( [cublas]="-r cublas_bf16" [g8c2]="-r wgmma_tma_store_bf16"
  [g16c2]="-r wgmma_tma_store_bf16 -p GROUP_M=16" [g16c1]="-r wgmma_tma_store_bf16 -p GROUP_M=16 -p CLUSTER=1"
  [g8c1]="-r wgmma_tma_store_bf16 -p CLUSTER=1" )
ORDER="cublas g8c2 g16c2 g16c1 g8c1"
# warm the kernel cache once (compiles), untimed
for f in $ORDER; do $K run matmul ${F[$f]} -s M=1024,N=1024,K=1024 --dtype bf16 --reps 1 --no-check > /dev/null 2>&1; done
for sz in 4096 8192; do for i in 1 2 3; do for f in $ORDER; do
  j=$R/json/mm_${f}_${sz}_$i.json
  $K run matmul ${F[$f]} -s M=$sz,N=$sz,K=$sz --dtype bf16 --json $j > $R/txt/mm_${f}_${sz}_$i.txt 2>&1
  summ "mm $sz #$i $f" $j
done; done; done; fin
for sz in 4096 8192; do for f in $ORDER; do
  j=$R/json/cnt_${f}_$sz.json
  $K run matmul ${F[$f]} -s M=$sz,N=$sz,K=$sz --dtype bf16 --reps 5 --no-check --counters --json $j > $R/txt/cnt_${f}_$sz.txt 2>&1
  summ "cnt $sz $f" $j
done; done; fin
declare -A G=( [unfused]="-r unfused" [ts]="-r gelu_tma_store" [ov1]="-r gelu_tma_store -p OVERLAP=1"
  [ov1g8]="-r gelu_tma_store -p OVERLAP=1 -p GROUP_M=8" [lt]="-r cublaslt_gelu" )
for i in 1 2 3; do for f in unfused ts ov1 ov1g8 lt; do
  j=$R/json/mlp_${f}_$i.json
  $K run mlp ${G[$f]} --timeline --json $j > $R/txt/mlp_${f}_$i.txt 2>&1
  summ "mlp #$i $f" $j
done; done; fin
echo "total $SECONDS s" | tee -a $R/summary.txt; fin
