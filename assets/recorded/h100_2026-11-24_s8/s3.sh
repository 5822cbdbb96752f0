#!/usr/bin/env bash
# Session 5, call 3: rung 18's STREAMK = 1 (the remainder's K-tiles dealt out evenly, cut tiles
# joined by TMA reduce-adds). Correctness (test_gpu: the new GpuStreamK test and the cluster
# rungs' test), compute-sanitizer memcheck and racecheck, then cuBLAS, rung 18 (STREAMK 0) and
# rung 18 (STREAMK 1) alternated run by run, three rounds at 4096^3 and 8192^3, the odd sizes once.
set -u
C=$PWD/.carry-lead; K=$C/kladder; W=/tmp/s3; R=$W/s3; mkdir -p $R/json $R/txt
export XDG_CACHE_HOME=/tmp/kl-s3-cache
fin() { tar -C $W -czf $OUT/s3.tgz s3; }
summ() { python3 $C/summ.py "$@" | tee -a $R/summary.txt; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $R/device.txt; date -u +%FT%TZ > $R/date.txt
[ -n "${SKIP_TEST:-}" ] || timeout 300 $C/test_gpu --gtest_filter='GpuStreamK.*:GpuLadders.ClusterRungCorrectAcrossPairsTilesAndOddSizes' > $R/test_gpu.txt 2>&1
echo "test_gpu: exit $? $(grep -E '^\[  (PASSED|FAILED)' $R/test_gpu.txt | tr '\n' ' ')" | tee -a $R/summary.txt
grep -B2 -A6 "Failure" $R/test_gpu.txt | head -40; fin
for tool in memcheck racecheck; do for s in M=1792,N=1792,K=1792 M=1793,N=1793,K=1793 M=1024,N=1024,K=4096; do
  f=$R/txt/san_${tool}_$s.txt
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $K run matmul -r wgmma_tma_store_bf16 -p STREAMK=1 -s $s --dtype bf16 --reps 2 --warmup 1 > $f 2>&1
  echo "compute-sanitizer $tool STREAMK=1 $s: exit $? ($(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' $f); $(grep -m1 -oE 'PASS|FAIL' $f))" | tee -a $R/summary.txt
done; done; fin
$K calibrate --force > $R/calibrate.txt 2>&1
declare -A F=( [cublas]="-r cublas_bf16" [sk0]="-r wgmma_tma_store_bf16" [sk1]="-r wgmma_tma_store_bf16 -p STREAMK=1" )
for f in cublas sk0 sk1; do $K run matmul ${F[$f]} -s M=1024,N=1024,K=1024 --dtype bf16 --reps 1 --no-check > /dev/null 2>&1; done
for sz in 4096 8192; do for i in 1 2 3; do for f in cublas sk0 sk1; do
  j=$R/json/mm_${sz}_${i}_$f.json
  $K run matmul ${F[$f]} -s M=$sz,N=$sz,K=$sz --dtype bf16 --json $j > $R/txt/mm_${sz}_${i}_$f.txt 2>&1
  summ "mm $sz #$i $f" $j
done; done; done; fin
for s in M=4097,N=4097,K=4097 M=2047,N=2049,K=1023 M=2048,N=2048,K=2048; do for f in cublas sk0 sk1; do
  j=$R/json/odd_${s//[=,]/_}_$f.json
  $K run matmul ${F[$f]} -s $s --dtype bf16 --json $j > $R/txt/odd_${s//[=,]/_}_$f.txt 2>&1
  summ "odd $s $f" $j
done; done; fin
for sz in 4096; do for f in sk1; do
  j=$R/json/cnt_${sz}_$f.json
  $K run matmul ${F[$f]} -s M=$sz,N=$sz,K=$sz --dtype bf16 --reps 5 --no-check --counters --json $j > $R/txt/cnt_${sz}_$f.txt 2>&1
  summ "cnt $sz $f" $j
done; done
echo "total $SECONDS s" | tee -a $R/summary.txt; fin
