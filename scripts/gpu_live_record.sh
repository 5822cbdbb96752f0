#!/usr/bin/env bash
# Issue 17 (items 1, 2, 9) in one device call: the new GPU tests (test_gpu_live), the recordings
# (cold L2, with counters) and the torch peers in the same call, then compute-sanitizer memcheck and
# racecheck of the new rungs at small odd sizes; a table last.
#   scripts/gpu_live_record.sh <carry folder> <device tag>
# From the repo root on the GPU machine. The carry folder holds kladder (stripped kladder-core),
# test_gpu_live, kernels/, lessons/, assets/ (found beside the programs), peers.py and the two
# helpers of scripts/gpu_live/. Results under $OUT: <tag>_recompute.json, <tag>_layernorm.json,
# <tag>_elementwise_sincos.json, <tag>_peers_live.json, logs.tgz.
set -uo pipefail
C=${1:?carry folder}; TAG=${2:?device tag}
OUT=${OUT:-/tmp/kl-out}; P=$OUT/parts; mkdir -p "$P"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
say() { echo "$*" | tee -a "$P/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$P/nvidia-smi.txt"
$K calibrate --force > "$P/calibrate.txt" 2>&1; say "calibrate: exit $?"

# 1. GPU tests of the new ladders (odd sizes, every dtype, counters against the models).
timeout 300 "$C/test_gpu_live" > "$P/test_gpu_live.txt" 2>&1; say "test_gpu_live: exit $?"
grep -E "^\[  (FAILED|  OK|SKIPPED) |counters:" "$P/test_gpu_live.txt" | tee -a "$P/summary.txt"

# 2. Recordings, cold L2; counters on the ladders' main runs.
rec() {  # rec <part> <kladder run arguments...>
  local name=$1; shift
  $K run "$@" --json "$P/rec_$name.json" > "$P/rec_$name.txt" 2>&1; say "run $name: exit $?"
}
rec recompute recompute --counters
rec recompute_ept8 recompute -p EPT=8
rec sincos_u elementwise --rung sincos_unfused --counters
rec sincos_f elementwise --rung sincos_fused --counters
for dt in fp32 bf16 fp16; do
  rec ln_4096_$dt layernorm --size rows=4096,cols=4096 --dtype $dt --counters
  rec ln_32768_$dt layernorm --size rows=32768,cols=1024 --dtype $dt --counters
done
# The register rung at the shape that fills each row exactly (the defaults, TPB=256 MAXV=4, fit
# 4096 fp32 columns; a first call of 2026-11-23 tried three shapes per case: docs/tuning/layernorm.md).
for r in row_regs_vec rms_row_regs_vec; do
  rec v_${r}_4096_bf16 layernorm --rung $r --size rows=4096,cols=4096 --dtype bf16 -p TPB=256 -p MAXV=2
  rec v_${r}_32768_fp32 layernorm --rung $r --size rows=32768,cols=1024 --dtype fp32 -p TPB=256 -p MAXV=1
  rec v_${r}_32768_bf16 layernorm --rung $r --size rows=32768,cols=1024 --dtype bf16 -p TPB=128 -p MAXV=1
done
python3 "$C/merge_results.py" "$OUT/${TAG}_recompute.json" "$P"/rec_recompute.json "$P"/rec_recompute_ept8.json
python3 "$C/merge_results.py" "$OUT/${TAG}_elementwise_sincos.json" "$P"/rec_sincos_u.json "$P"/rec_sincos_f.json
python3 "$C/merge_results.py" "$OUT/${TAG}_layernorm.json" "$P"/rec_ln_*.json "$P"/rec_v_*.json

# 3. torch peers in the same call.
timeout 240 python3 "$C/peers_live.py" --out "$OUT/${TAG}_peers_live.json" > "$P/peers.log" 2>&1; say "peers: exit $?"

# 5. compute-sanitizer at small odd sizes (warm L2: the flush kernel is not under test); last, so that a
# call that runs out of time still brings the recordings back. Skipped past BUDGET seconds.
san() {  # san <name> <tool> <kladder run arguments...>
  local name=$1 tool=$2; shift 2
  if [ "$SECONDS" -gt "${BUDGET:-400}" ]; then say "sanitizer $tool $name: not run (time budget)"; return; fi
  timeout 45 compute-sanitizer --tool "$tool" --error-exitcode 9 $K run "$@" --warmup 0 --reps 1 --warm-l2 \
    > "$P/san_${tool}_$name.txt" 2>&1
  say "sanitizer $tool $name: exit $? ($(tail -1 "$P/san_${tool}_$name.txt"))"
}
for tool in memcheck racecheck; do
  san recompute $tool recompute --size n=1000003
  san sincos_unfused $tool elementwise --rung sincos_unfused --size n=1000003
  san sincos_fused $tool elementwise --rung sincos_fused --size n=1000003
  san ln_fp32 $tool layernorm --size rows=7,cols=1001 --dtype fp32
done
for tool in memcheck racecheck; do
  san ln_bf16 $tool layernorm --size rows=5,cols=4096 --dtype bf16
  san ln_fp16 $tool layernorm --size rows=3,cols=999 --dtype fp16
done

python3 "$C/live_table.py" "$OUT" "$TAG"
cat "$P/summary.txt"
(cd "$P" && tar czf ../logs.tgz ./* 2>/dev/null)
rm -rf "$P"
