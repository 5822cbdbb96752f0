#!/usr/bin/env bash
# Forms of a matmul rung (rung 18 unless RUNG says) against cuBLAS in one device call: smoke runs of PARAMS (a deadlock must
# not eat the call), the cluster rungs' GPU tests and the stream-K test, compute-sanitizer memcheck
# and racecheck of PARAMS at odd sizes, then alternated rounds at SIZES: cuBLAS first in every
# round, then FORMS, each run with a CUPTI timeline for the kernel's own time; the table last
# (alternate_table.py). First used for LAG (2026-11-25, docs/tuning/matmul.md, ninth session).
#   [env] scripts/gpu_gemm/alternate.sh <carry folder> <device tag> [name]
# Environment:
#   PARAMS        the new form's kladder parameters for the smoke runs and sanitizers (-p LAG=2)
#   FORMS         "label:kladder arguments" separated by ";" (default: LAG 0 to 3)
#   SIZES         cube sizes, space separated (4096 8192)
#   ROUNDS_UNTIL  seconds after which no new round starts (420)
#   SKIP_CHECKS   non-empty: no tests, no sanitizers (timing only)
#   RUNG, DTYPE   the rung of the smoke runs and sanitizers, and the dtype of every run
#                 (wgmma_tma_store_bf16, bf16)
#   PEER          the library rung timed first in every round, labelled cublas (cublas_bf16)
#   TESTS         test_gpu's filter (the cluster and stream-K tests)
#   SAN_SIZES     the sanitizers' sizes (four odd ones)
# The carry folder holds kladder (stripped kladder-core), test_gpu, merge_results.py and
# alternate_table.py. Results under $OUT: <tag>_matmul_<name>.json (every timed run; name: lag),
# table.txt, logs.tgz.
set -uo pipefail
C=${1:?carry folder}; TAG=${2:?device tag}; NAME=${3:-lag}
PARAMS=${PARAMS:-"-p LAG=2"}
RUNG=${RUNG:-wgmma_tma_store_bf16}; DTYPE=${DTYPE:-bf16}; PEER=${PEER:-cublas_bf16}
TESTS=${TESTS:-'GpuStreamK.*:GpuLadders.ClusterRungCorrectAcrossPairsTilesAndOddSizes'}
SAN_SIZES=${SAN_SIZES:-"M=8192,N=1024,K=192 M=8191,N=1004,K=383 M=1793,N=1793,K=1793 M=1000,N=700,K=100"}
FORMS=${FORMS:-"L0:-r wgmma_tma_store_bf16;L1:-r wgmma_tma_store_bf16 -p LAG=1;L2:-r wgmma_tma_store_bf16 -p LAG=2;L3:-r wgmma_tma_store_bf16 -p LAG=3"}
SIZES=${SIZES:-"4096 8192"}
OUT=${OUT:-/tmp/kl-out}; P=$OUT/parts; mkdir -p "$P"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
say() { echo "$*" | tee -a "$P/summary.txt"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit \
  --format=csv,noheader | tee "$P/nvidia-smi.txt"
date -u +%FT%TZ > "$P/date.txt"

OK=0
for s in M=1024,N=1024,K=1024 M=8192,N=1024,K=192 M=1000,N=1000,K=64; do
  # shellcheck disable=SC2086 # PARAMS are kladder arguments
  timeout 30 "$K" run matmul -r "$RUNG" $PARAMS --dtype "$DTYPE" -s $s > "$P/smoke_${s// /_}.txt" 2>&1
  rc=$?; [ $rc -le 1 ] || OK=1
  say "smoke $s: exit $rc ($(grep -m1 "$RUNG" "$P/smoke_${s// /_}.txt"))"
done
if [ -z "${SKIP_CHECKS:-}" ] && [ $OK -eq 0 ]; then
  timeout 300 "$C/test_gpu" --gtest_filter="$TESTS" > "$P/test_gpu.txt" 2>&1
  say "test_gpu: exit $? $(grep -E '^\[  (PASSED|FAILED)' "$P/test_gpu.txt" | tr '\n' ' ')"
  grep -B2 -A6 "Failure" "$P/test_gpu.txt" | head -30
  for tool in memcheck racecheck; do
    for s in $SAN_SIZES; do
      f="$P/san_${tool}_$s.txt"
      # shellcheck disable=SC2086
      timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$K" run matmul -r "$RUNG" $PARAMS \
        -s $s --dtype "$DTYPE" --reps 2 --warmup 1 > "$f" 2>&1
      say "sanitizer $tool $PARAMS $s: exit $? ($(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' "$f"))"
    done
  done
fi
[ $OK -eq 0 ] || { say "smoke failed: no timing"; FORMS=""; }
"$K" calibrate --force > "$P/calibrate.txt" 2>&1

IFS=';' read -r -a forms <<< "$FORMS"
for f in "${forms[@]}"; do  # compile every form once, untimed
  # shellcheck disable=SC2086
  "$K" run matmul ${f#*:} -s M=1024,N=1024,K=1024 --dtype "$DTYPE" --reps 1 --no-check > /dev/null 2>&1
done
letters=(b c d e f g h i)
for round in 1 2 3 4 5 6; do
  [ ${#forms[@]} -gt 0 ] || break
  [ "$round" -le 2 ] || [ "$SECONDS" -lt "${ROUNDS_UNTIL:-420}" ] || break
  for n in $SIZES; do
    timeout 100 "$K" run matmul -r "$PEER" -s "M=$n,N=$n,K=$n" --dtype "$DTYPE" --timeline \
      --json "$P/rec_${n}_r${round}_a_cublas.json" > "$P/rec_${n}_r${round}_a_cublas.txt" 2>&1
    for i in "${!forms[@]}"; do
      # shellcheck disable=SC2086
      timeout 100 "$K" run matmul ${forms[$i]#*:} -s "M=$n,N=$n,K=$n" --dtype "$DTYPE" --timeline \
        --json "$P/rec_${n}_r${round}_${letters[$i]}_${forms[$i]%%:*}.json" \
        > "$P/rec_${n}_r${round}_${letters[$i]}_${forms[$i]%%:*}.txt" 2>&1
    done
    say "round $round $n done (${SECONDS} s)"
  done
done
ls "$P"/rec_*.json > /dev/null 2>&1 && python3 "$C/merge_results.py" "$OUT/${TAG}_matmul_${NAME}.json" "$P"/rec_*.json
(cd "$P" && tar czf ../logs.tgz ./* 2>/dev/null)
python3 "$C/alternate_table.py" "$P" | tee "$OUT/table.txt"
cat "$P/summary.txt"
rm -rf "$P"
