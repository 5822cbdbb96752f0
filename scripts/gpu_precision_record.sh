#!/usr/bin/env bash
# Issue 17 item 6 (precision live) and the 16-bit LayerNorm 90% line in one device call: GPU tests
# (test_gpu_live: odd sizes in every dtype, the error-report order), recordings (cold L2) of the
# elementwise, softmax and layernorm rungs in fp32, bf16 and fp16, the persistent LayerNorm rung's
# shapes against rung 4 in the same call as the copy line (`kladder calibrate`) and the torch
# peers, then compute-sanitizer memcheck and racecheck at small odd sizes; a table last.
#   scripts/gpu_precision_record.sh <carry folder> <device tag>
# The carry folder holds kladder, test_gpu_live, kernels/, lessons/, assets/, peers.py, the files
# of scripts/gpu_precision/ and optionally cache/ (a kernel cache compiled here for sm_90 by
# NVRTC 13.0: the same key there, so the machine compiles only what it lacks).
# Results under $OUT: <tag>_precision_elementwise.json, <tag>_precision_softmax.json,
# <tag>_precision_layernorm.json, <tag>_layernorm_persistent.json, <tag>_peers_precision.json, logs.tgz.
set -uo pipefail
C=${1:?carry folder}; TAG=${2:?device tag}
OUT=${OUT:-/tmp/kl-out}; P=$OUT/parts; mkdir -p "$P"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache; mkdir -p $XDG_CACHE_HOME
[ -d "$C/cache" ] && cp -r "$C/cache/." $XDG_CACHE_HOME/
say() { echo "$*" | tee -a "$P/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$P/nvidia-smi.txt"
$K calibrate --force > "$P/calibrate.txt" 2>&1; say "calibrate: exit $? $(grep -i copy "$P/calibrate.txt" | head -1)"

# 1. GPU tests: odd sizes in every dtype, the error report's order, the layernorm rungs.
timeout 200 "$C/test_gpu_live" --gtest_filter='GpuLive.*-GpuLive.*Counters*:GpuLive.FusedNorm*:GpuLive.Recompute*' > "$P/test_gpu_live.txt" 2>&1; say "test_gpu_live: exit $?"
grep -E "^\[  (FAILED|  OK|SKIPPED) |counters:|rel_l2:|Failure|refused" "$P/test_gpu_live.txt" | head -60 | tee -a "$P/summary.txt"

# 2. Recordings, cold L2: one rung at a time, every dtype.
rec() {  # rec <part> <kladder run|sweep arguments...>
  local name=$1; shift
  $K "$@" --json "$P/rec_$name.json" > "$P/rec_$name.txt" 2>&1; say "$name: exit $?"
}
# (a whole-ladder run in bf16 or fp16 runs exactly the rungs that support it; fp32 one rung at a time)
for r in vector_add gelu_fused gelu_fused_vec sincos_fused; do rec ew_${r}_fp32 run elementwise --rung $r --dtype fp32; done
for r in block_smem warp_shuffle online online_vec warp_rows; do rec sm_${r}_fp32 run softmax --rung $r --dtype fp32; done
for dt in bf16 fp16; do
  rec ew_all_$dt run elementwise --dtype $dt
  rec sm_all_$dt run softmax --dtype $dt
done
for dt in fp32 bf16 fp16; do rec sm_warp_rows_1024_$dt run softmax --rung warp_rows --size rows=32768,cols=1024 --dtype $dt; done
# Layernorm: rung 4 (the recorded shapes) and rung 6 in the same call, both norms.
for v in "" rms_; do
  rec ln4_${v}4096_fp32 run layernorm --rung ${v}row_regs_vec --size rows=4096,cols=4096 --dtype fp32
  for dt in bf16 fp16; do
    rec ln4_${v}4096_$dt run layernorm --rung ${v}row_regs_vec --size rows=4096,cols=4096 --dtype $dt -p TPB=256 -p MAXV=2
  done
  rec ln4_${v}32768_fp32 run layernorm --rung ${v}row_regs_vec --size rows=32768,cols=1024 --dtype fp32 -p TPB=256 -p MAXV=1
  rec ln4_${v}32768_bf16 run layernorm --rung ${v}row_regs_vec --size rows=32768,cols=1024 --dtype bf16 -p TPB=128 -p MAXV=1
done
BPS="--axis BPS --values 1,2,3,4,8"
for v in "" rms_; do
  rec ln6_${v}4096_fp32 sweep layernorm --rung ${v}row_persistent --size rows=4096,cols=4096 --dtype fp32 $BPS
  for dt in bf16 fp16; do
    rec ln6_${v}4096_$dt sweep layernorm --rung ${v}row_persistent --size rows=4096,cols=4096 --dtype $dt -p MAXV=2 $BPS
  done
  rec ln6_${v}32768_fp32 sweep layernorm --rung ${v}row_persistent --size rows=32768,cols=1024 --dtype fp32 -p MAXV=1 $BPS
  rec ln6_${v}32768_bf16 sweep layernorm --rung ${v}row_persistent --size rows=32768,cols=1024 --dtype bf16 -p TPB=128 -p MAXV=1 $BPS
done
for sh in "TPB=128 -p MAXV=4" "TPB=512 -p MAXV=1"; do
  tag=$(echo "$sh" | tr -dc '0-9')
  rec ln6_shape${tag}_bf16 sweep layernorm --rung row_persistent --size rows=4096,cols=4096 --dtype bf16 -p $sh $BPS
done
for b in 2 4; do
  rec ln6_store_bps${b}_bf16 sweep layernorm --rung row_persistent --size rows=4096,cols=4096 --dtype bf16 -p MAXV=2 -p BPS=$b --axis STORE --values 0,1,2
done
M="python3 $C/merge_results.py"
$M "$OUT/${TAG}_precision_elementwise.json" "$P"/rec_ew_*.json
$M "$OUT/${TAG}_precision_softmax.json" "$P"/rec_sm_*.json
$M "$OUT/${TAG}_precision_layernorm.json" "$P"/rec_ln4_*.json
$M "$OUT/${TAG}_layernorm_persistent.json" "$P"/rec_ln6_*.json

# 3. torch peers in the same call.
timeout 150 python3 "$C/peers_precision.py" --out "$OUT/${TAG}_peers_precision.json" > "$P/peers.log" 2>&1; say "peers: exit $?"

# 4. compute-sanitizer at small odd sizes (warm L2: the flush is not under test); last, so that a
# call that runs out of time still brings the recordings back. Skipped past BUDGET seconds.
san() {  # san <name> <tool> <kladder run arguments...>
  local name=$1 tool=$2; shift 2
  if [ "$SECONDS" -gt "${BUDGET:-330}" ]; then say "sanitizer $tool $name: not run (time budget)"; return; fi
  timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 9 $K run "$@" --warmup 0 --reps 1 --warm-l2 \
    > "$P/san_${tool}_$name.txt" 2>&1
  say "sanitizer $tool $name: exit $? ($(tail -1 "$P/san_${tool}_$name.txt"))"
}
san ln6_bf16 memcheck layernorm --rung row_persistent --size rows=300,cols=1024 --dtype bf16 -p BPS=1
san ln6_fp16 racecheck layernorm --rung row_persistent --size rows=300,cols=1024 --dtype fp16 -p BPS=1
san ln6_fp32 memcheck layernorm --rung row_persistent --size rows=301,cols=999 --dtype fp32 -p BPS=1
san ln6_rms_fp32 racecheck layernorm --rung rms_row_persistent --size rows=301,cols=999 --dtype fp32 -p BPS=1
san ew_bf16 memcheck elementwise --size n=100003 --dtype bf16
san ew_fp16 memcheck elementwise --size n=100003 --dtype fp16
san sm_bf16 memcheck softmax --size rows=33,cols=1001 --dtype bf16
san sm_fp16 memcheck softmax --size rows=5,cols=4096 --dtype fp16
san sm_bf16 racecheck softmax --size rows=33,cols=1001 --dtype bf16
san sm_fp16 racecheck softmax --size rows=5,cols=4096 --dtype fp16
san ew_fp32 memcheck elementwise --rung gelu_fused_vec --size n=100003 --dtype fp32

python3 "$C/precision_table.py" "$OUT/${TAG}_peers_precision.json" "$OUT/${TAG}"_precision_*.json "$OUT/${TAG}_layernorm_persistent.json"
cat "$P/summary.txt"
(cd "$P" && tar czf ../logs.tgz ./* 2>/dev/null)
rm -rf "$P"
