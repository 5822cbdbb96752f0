#!/usr/bin/env bash
# Session 5, call 2 (recording): rung 18 with GROUP_M = 16 as its default. test_gpu's cluster-rung
# test (now with GROUP_M = 8 as a variant), compute-sanitizer memcheck and racecheck of the new
# default, then the recordings: cuBLAS bf16 and rung 18 (GROUP_M 16 and 8) alternated run by run,
# five rounds at 4096^3 and 8192^3; their DRAM counters; the MLP's unfused plan, rung 4 (and
# OVERLAP = 1) and cuBLASLt's GELU alternated, five rounds, with CUPTI timelines.
set -u
C=$PWD/.carry-lead; K=$C/kladder; W=/tmp/s2; R=$W/s2; mkdir -p $R/json $R/txt
export XDG_CACHE_HOME=/tmp/kl-s2-cache
fin() { tar -C $W -czf $OUT/s2.tgz s2; }
summ() { python3 $C/summ.py "$@" | tee -a $R/summary.txt; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $R/device.txt; date -u +%FT%TZ > $R/date.txt
timeout 240 $C/test_gpu --gtest_filter='GpuLadders.ClusterRungCorrectAcrossPairsTilesAndOddSizes' > $R/test_gpu.txt 2>&1
echo "test_gpu cluster rungs: exit $? $(grep -E '^\[  (PASSED|FAILED)' $R/test_gpu.txt | tr '\n' ' ')" | tee -a $R/summary.txt; fin
for tool in memcheck racecheck; do for s in M=8192,N=1024,K=192 M=8191,N=1004,K=383; do
  f=$R/txt/san_${tool}_$s.txt
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $K run matmul -r wgmma_tma_store_bf16 -s $s --dtype bf16 --reps 1 --warmup 0 > $f 2>&1
  echo "compute-sanitizer $tool rung 18 defaults $s: exit $? ($(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' $f); $(grep -m1 -oE 'PASS|FAIL' $f))" | tee -a $R/summary.txt
done; done; fin
$K calibrate --force > $R/calibrate.txt 2>&1
declare -A F=( [cublas]="-r cublas_bf16" [g16]="-r wgmma_tma_store_bf16" [g8]="-r wgmma_tma_store_bf16 -p GROUP_M=8" )
for f in cublas g16 g8; do $K run matmul ${F[$f]} -s M=1024,N=1024,K=1024 --dtype bf16 --reps 1 --no-check > /dev/null 2>&1; done
for sz in 4096 8192; do for i in 1 2 3 4 5; do for f in cublas g16 g8; do
  j=$R/json/mm_${sz}_${i}_$f.json
  $K run matmul ${F[$f]} -s M=$sz,N=$sz,K=$sz --dtype bf16 --json $j > $R/txt/mm_${sz}_${i}_$f.txt 2>&1
  summ "mm $sz #$i $f" $j
done; done
python3 $C/merge_results.py $R/h100_matmul_tile_order_$sz.json $R/json/mm_${sz}_*.json; done; fin
for sz in 4096 8192; do for f in cublas g16 g8; do
  j=$R/json/cnt_${sz}_$f.json
  $K run matmul ${F[$f]} -s M=$sz,N=$sz,K=$sz --dtype bf16 --reps 5 --no-check --counters --json $j > $R/txt/cnt_${sz}_$f.txt 2>&1
  summ "cnt $sz $f" $j
done; done
python3 $C/merge_results.py $R/h100_matmul_tile_order_counters.json $R/json/cnt_*.json; fin
declare -A G=( [unfused]="-r unfused" [ts]="-r gelu_tma_store" [ov1]="-r gelu_tma_store -p OVERLAP=1" [lt]="-r cublaslt_gelu" )
for i in 1 2 3 4 5; do for f in unfused ts ov1 lt; do
  j=$R/json/mlp_${i}_$f.json
  $K run mlp ${G[$f]} --timeline --json $j > $R/txt/mlp_${i}_$f.txt 2>&1
  summ "mlp #$i $f" $j
done; done
python3 $C/merge_results.py $R/h100_mlp_alternated.json $R/json/mlp_*.json
echo "total $SECONDS s" | tee -a $R/summary.txt; fin
