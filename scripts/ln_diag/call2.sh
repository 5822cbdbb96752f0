#!/usr/bin/env bash
# Issue 17, the 16-bit LayerNorm 90% line, third attempt: the second call (recordings, tests,
# sanitizers). rung 7 (row_regs_l2, s stored with an L2::evict_first policy) beside rung 4 at the
# recorded shapes, both norms, in the same call as the copy line (`kladder calibrate`) and
# torch's layer_norm / rms_norm; the policy grid at 4096 x 4096 in bf16 and fp16; DRAM counters;
# ln_diag --second (the policies one stream at a time under three flushes) and ncu DRAM bytes with
# the runner's flush state left in place (--cache-control none); the layernorm GPU tests;
# compute-sanitizer memcheck and racecheck of rung 7 at small odd sizes in every dtype.
#   scripts/ln_diag/call2.sh <carry folder> <device tag>
# The carry folder holds kladder, test_gpu_live, ln_diag, kernels/, lessons/, the files of
# scripts/gpu_precision/ and /work/shared/tools/peers.py (peers_precision.py imports it: the call of
# 12:43 UTC lacked it, so its peers step failed and took no figures). Under $OUT: <tag>_layernorm_l2.json, <tag>_peers_norms.json, logs.tgz.
set -uo pipefail
C=$(cd "${1:?carry folder}" && pwd); TAG=${2:?device tag}
OUT=${OUT:-/tmp/kl-out}; P=$OUT/p; mkdir -p "$P"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache; mkdir -p $XDG_CACHE_HOME
say() { echo "$*" | tee -a "$P/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$P/nvidia-smi.txt"
date -u | tee -a "$P/summary.txt"
$K calibrate --force > "$P/calibrate.txt" 2>&1; say "calibrate: exit $? $(grep -i copy "$P/calibrate.txt" | head -1)"
rec() { local name=$1; shift; $K "$@" --json "$P/rec_$name.json" > "$P/rec_$name.txt" 2>&1; say "$name: exit $?"; }
for v in "" rms_; do
  for g in row_regs_vec row_regs_l2; do
    rec ${g}_${v}4096_fp32 run layernorm --rung ${v}$g --size rows=4096,cols=4096 --dtype fp32
    for dt in bf16 fp16; do
      rec ${g}_${v}4096_$dt run layernorm --rung ${v}$g --size rows=4096,cols=4096 --dtype $dt -p TPB=256 -p MAXV=2
    done
    rec ${g}_${v}32768_fp32 run layernorm --rung ${v}$g --size rows=32768,cols=1024 --dtype fp32 -p TPB=256 -p MAXV=1
    rec ${g}_${v}32768_bf16 run layernorm --rung ${v}$g --size rows=32768,cols=1024 --dtype bf16 -p TPB=128 -p MAXV=1
  done
done
python3 "$C/merge_results.py" "$OUT/${TAG}_layernorm_l2.json" "$P"/rec_*.json
L7="layernorm --rung row_regs_l2 --size rows=4096,cols=4096 -p TPB=256 -p MAXV=2"
for dt in bf16 fp16; do
  for ys in 0 1 3; do rec grid_y${ys}_$dt sweep $L7 --dtype $dt -p YSTORE=$ys --axis SSTORE --values 0,3; done
  rec grid_load_$dt sweep $L7 --dtype $dt --axis LOAD --values 0,1
done
rec counters_4_bf16 run layernorm --rung row_regs_vec --size rows=4096,cols=4096 --dtype bf16 -p TPB=256 -p MAXV=2 --counters
rec counters_7_bf16 run $L7 --dtype bf16 --counters
rec counters_7s0_bf16 run $L7 --dtype bf16 -p SSTORE=0 -p YSTORE=3 --counters
python3 "$C/merge_results.py" "$OUT/${TAG}_layernorm_l2_grid.json" "$P"/rec_grid_*.json "$P"/rec_counters_*.json
timeout 100 python3 "$C/peers_precision.py" --norms-only --out "$OUT/${TAG}_peers_norms.json" > "$P/peers.log" 2>&1; say "peers: exit $?"
(cd "$P" && timeout 100 "$C/ln_diag" --second 4096 4096 > diag.txt 2>&1; echo "ln_diag: exit $?" >> summary.txt)
command -v ncu >/dev/null || export PATH=$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -1)
(cd "$P" && timeout 60 ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
   "$C/ln_diag" --ncu --second > ncu_nocc.txt 2>&1; echo "ncu: exit $?" >> summary.txt)
timeout 200 "$C/test_gpu_live" --gtest_filter='GpuLive.LayerNorm*:GpuLive.ErrorReport*' > "$P/test_gpu_live.txt" 2>&1
say "test_gpu_live (layernorm): exit $?"
grep -E "^\[  (FAILED|  OK|SKIPPED|  PASSED) |rel_l2:|Failure|refused" "$P/test_gpu_live.txt" | head -30 | tee -a "$P/summary.txt"
san() {  # san <name> <tool> <kladder run arguments...>
  local name=$1 tool=$2; shift 2
  if [ "$SECONDS" -gt "${BUDGET:-520}" ]; then say "sanitizer $tool $name: not run (time budget)"; return; fi
  timeout 40 compute-sanitizer --tool "$tool" --error-exitcode 9 $K run "$@" --warmup 0 --reps 1 --warm-l2 \
    > "$P/san_${tool}_$name.txt" 2>&1
  say "sanitizer $tool $name: exit $? ($(tail -1 "$P/san_${tool}_$name.txt"))"
}
for tool in memcheck racecheck; do
  san l2_bf16 $tool layernorm --rung row_regs_l2 --size rows=5,cols=1001 --dtype bf16
  san l2_fp16_vec $tool layernorm --rung row_regs_l2 --size rows=7,cols=1024 --dtype fp16 -p MAXV=2
  san l2_fp32_vec $tool layernorm --rung row_regs_l2 --size rows=3,cols=1028 --dtype fp32 -p MAXV=2
  san l2_rms_fp32 $tool layernorm --rung rms_row_regs_l2 --size rows=3,cols=999 --dtype fp32
done
python3 "$C/precision_table.py" "$OUT/${TAG}_peers_norms.json" "$OUT/${TAG}_layernorm_l2.json" 2>&1 | tail -40
grep -E "memset" "$P/diag.txt" | cut -c1-110
cat "$P/summary.txt"
(cd "$P" && tar czf ../logs.tgz ./* 2>/dev/null)
rm -rf "$P"
