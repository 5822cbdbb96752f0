#!/usr/bin/env bash
# Session 5, call 6: rung 18 with CROWS = 128 (cuBLAS's arrangement at 4096^3: 256 x 128 tiles,
# two consumer warpgroups of 128 x 128, two m64n128 wgmmas each per step). GPU tests, sanitizers,
# then cuBLAS, rung 18's default and the CROWS = 128 forms alternated, three rounds at 4096^3 and
# 8192^3.
set -u
C=$PWD/.carry-lead; K=$C/kladder; W=/tmp/s6; R=$W/s6; rm -rf $R; mkdir -p $R/json $R/txt
export XDG_CACHE_HOME=/tmp/kl-s6-cache
fin() { tar -C $W -czf $OUT/s6.tgz s6; }
summ() { python3 $C/summ.py "$@" | tee -a $R/summary.txt; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $R/device.txt; date -u +%FT%TZ > $R/date.txt
timeout 300 $C/test_gpu --gtest_filter='GpuStreamK.*:GpuLadders.ClusterRungCorrectAcrossPairsTilesAndOddSizes' > $R/test_gpu.txt 2>&1
echo "test_gpu: exit $? $(grep -E '^\[  (PASSED|FAILED)' $R/test_gpu.txt | tr '\n' ' ')" | tee -a $R/summary.txt
grep -B2 -A8 "Failure" $R/test_gpu.txt | head -30; fin
P="-p BM=256 -p BN=128 -p CROWS=128"
for tool in memcheck racecheck; do for s in M=8191,N=1004,K=383 M=1793,N=1793,K=1793; do
  f=$R/txt/san_${tool}_$s.txt
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $K run matmul -r wgmma_tma_store_bf16 $P -s $s --dtype bf16 --reps 2 --warmup 1 > $f 2>&1
  echo "compute-sanitizer $tool CROWS=128 $s: exit $? ($(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' $f); $(grep -m1 -oE 'PASS|FAIL' $f))" | tee -a $R/summary.txt
done; done; fin
$K calibrate --force > $R/calibrate.txt 2>&1
declare -A F=( [cublas]="-r cublas_bf16" [r18]="-r wgmma_tma_store_bf16" [coop]="-r wgmma_tma_store_bf16 $P" [coop1]="-r wgmma_tma_store_bf16 $P -p CLUSTER=1" )
ORDER="cublas r18 coop coop1"
for f in $ORDER; do $K run matmul ${F[$f]} -s M=1024,N=1024,K=1024 --dtype bf16 --reps 1 --no-check > /dev/null 2>&1; done
for sz in 4096 8192; do for i in 1 2 3; do for f in $ORDER; do
  j=$R/json/mm_${sz}_${i}_$f.json
  $K run matmul ${F[$f]} -s M=$sz,N=$sz,K=$sz --dtype bf16 --json $j > $R/txt/mm_${sz}_${i}_$f.txt 2>&1
  summ "mm $sz #$i $f" $j
done; done; done; fin
for sz in 4096; do for f in $ORDER; do
  j=$R/json/cnt_${sz}_$f.json
  $K run matmul ${F[$f]} -s M=$sz,N=$sz,K=$sz --dtype bf16 --reps 5 --no-check --counters --json $j > $R/txt/cnt_${sz}_$f.txt 2>&1
  summ "cnt $sz $f" $j
done; done
echo "total $SECONDS s" | tee -a $R/summary.txt; fin
