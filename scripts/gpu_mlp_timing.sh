#!/usr/bin/env bash
# Issue 17 (mlp part) in one device call: the ping-pong MLP rung (smoke, GPU tests, recordings with
# counters at GPT's 8192 x 4096 x 16384 beside unfused, the epilogue rung and cuBLASLt's GELU, tile
# variants), compute-sanitizer on the new rung, then the timing check: the same five rungs as
# docs/tuning/timing.md with events, CUPTI (KIND_KERNEL, the engine's default, and
# CONCURRENT_KERNEL) and ncu --clock-control none; tables last.
#   scripts/gpu_mlp_timing.sh <carry folder> <device tag> [parts]
# parts: a word list of mlp, tests, san, timing (default: all four).
# The carry folder holds kladder (stripped kladder-core), test_gpu_mlp, kernels/, lessons/,
# merge_results.py, mlp_table.py, timing_table.py. Results under $OUT: <tag>_mlp_pingpong.json,
# <tag>_timeline_check.json (the timeline runs), timing_ncu.csv.tgz and logs.tgz.
set -uo pipefail
C=${1:?carry folder}; TAG=${2:?device tag}; PARTS=${3:-"mlp tests san timing"}
OUT=${OUT:-/tmp/kl-out}; P=$OUT/parts; mkdir -p "$P"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
say() { echo "$*" | tee -a "$P/summary.txt"; }
has() { [[ " $PARTS " == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader |
  tee "$P/nvidia-smi.txt"
$K calibrate --force > "$P/calibrate.txt" 2>&1; say "calibrate: exit $? ($(grep -m1 -i copy "$P/calibrate.txt"))"

# 0. A pipeline that deadlocks would eat the call: the new rung once, small, with a short limit.
# One tile per block, then several (the consumers take turns only there).
PP=0
for s in T=256,D=256,F=512 T=2048,D=512,F=4096; do
  timeout 30 $K run mlp --rung gelu_pingpong --size $s > "$P/smoke_$s.txt" 2>&1
  rc=$?; [ $rc -le 1 ] || PP=1
  say "ping-pong smoke $s: exit $rc ($(grep -m1 gelu_pingpong "$P/smoke_$s.txt"))"
done

rec() {  # rec <part> <kladder run arguments...>
  local name=$1; shift
  timeout 120 $K run "$@" --json "$P/rec_$name.json" > "$P/rec_$name.txt" 2>&1; say "run $name: exit $?"
}
if has mlp && [ $PP -eq 0 ]; then
  # 1. Recordings, cold L2: the whole ladder with counters, then the unfused and the top rung
  # again (the spread between passes), then the ping-pong rung's tile and raster variants.
  rec mlp mlp --counters
  rec mlp2_unfused mlp --rung unfused
  rec mlp2_pp mlp --rung gelu_pingpong
  for g in 8 32; do rec pp_g$g mlp --rung gelu_pingpong -p GROUP_M=$g; done
  rec pp_128 mlp --rung gelu_pingpong -p BM=128 -p BN=128 -p STAGES=6
  python3 "$C/merge_results.py" "$OUT/${TAG}_mlp_pingpong.json" "$P"/rec_mlp.json "$P"/rec_mlp2_*.json \
    "$P"/rec_pp_*.json
fi
if has tests; then
  filter='GpuMlp.*'; [ $PP -eq 0 ] || filter='GpuMlp.Qkv*'
  timeout 150 "$C/test_gpu_mlp" --gtest_filter="$filter" > "$P/test_gpu_mlp.txt" 2>&1
  say "test_gpu_mlp ($filter): exit $?"
  grep -E "^\[  (FAILED|  OK|SKIPPED|  PASSED) |counters:|Failure" "$P/test_gpu_mlp.txt" | head -30 | tee -a "$P/summary.txt"
fi
if has san && [ $PP -eq 0 ]; then
  for tool in memcheck racecheck; do
    for s in T=127,D=65,F=259 T=1100,D=72,F=2056 T=1100,D=65,F=2055; do
      [ "$SECONDS" -lt "${SAN_BUDGET:-300}" ] || { say "sanitizer $tool $s: not run (time budget)"; continue; }
      timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $K run mlp --rung gelu_pingpong --size $s \
        --warmup 0 --reps 1 --warm-l2 > "$P/san_${tool}_$s.txt" 2>&1
      say "sanitizer $tool gelu_pingpong $s: exit $? ($(tail -1 "$P/san_${tool}_$s.txt"))"
    done
  done
fi
if has timing; then
  # 2. Timing check. Each case: events + CUPTI KIND_KERNEL; CUPTI CONCURRENT_KERNEL; ncu, warm L2
  # on every side, ncu at the boosting clock; the kernels ncu profiles are the timeline's names.
  NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null)
  while read -r name ladder rung size extra; do
    [ "$SECONDS" -lt "${TIMING_BUDGET:-500}" ] || { say "timing $name: not run (time budget)"; continue; }
    args="$ladder --rung $rung --size $size $extra --warm-l2"
    timeout 60 $K run $args --timeline --json "$P/tlk_$name.json" > "$P/tlk_$name.txt" 2>&1
    say "timeline kernel $name: exit $?"
    KL_TIMELINE_KIND=concurrent timeout 60 $K run $args --timeline --json "$P/tlc_$name.json" > "$P/tlc_$name.txt" 2>&1
    say "timeline concurrent $name: exit $?"
    names=$(python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['runs'][0]['timeline']; print('|'.join(sorted({k['name'] for k in t['kernels']})))" "$P/tlk_$name.json" 2>/dev/null)
    [ -n "$names" ] || { say "ncu $name: no kernel names"; continue; }
    timeout 120 "$NCU" --clock-control none --cache-control none --metrics gpu__time_duration.sum --print-units base --csv \
      -k "regex:^($names)\$" $K run $args --warmup 0 --reps 3 --no-check > "$P/ncu_$name.csv" 2> "$P/ncu_$name.err"
    say "ncu $name: exit $?"
  done <<'CASES'
gelu_fused elementwise gelu_fused n=268435456
gelu_unfused elementwise gelu_unfused n=268435456
vector_add elementwise vector_add n=268435456
naive_multi softmax naive_multi rows=16384,cols=16384
reg_2d matmul reg_2d M=4096,N=4096,K=4096
vector_add_ept1 elementwise vector_add n=268435456 -p EPT=1
CASES
  python3 "$C/merge_results.py" "$OUT/${TAG}_timeline_check.json" "$P"/tlk_*.json "$P"/tlc_*.json
  (cd "$P" && tar czf "$OUT/timing_ncu.csv.tgz" ncu_*.csv ncu_*.err)
  python3 "$C/timing_table.py" "$P" | tee "$OUT/timing_table.txt"
fi
[ -f "$OUT/${TAG}_mlp_pingpong.json" ] && python3 "$C/mlp_table.py" "$OUT" "$TAG" | tee "$OUT/mlp_table.txt"
cat "$P/summary.txt"
(cd "$P" && tar czf ../logs.tgz ./* 2>/dev/null)
rm -rf "$P"
