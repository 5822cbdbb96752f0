#!/usr/bin/env bash
# Issue 17, the 16-bit LayerNorm 90% line, third attempt: the diagnosis call (first of two).
#   scripts/ln_diag/call1.sh <carry folder>
# The carry folder holds kladder, ln_diag (scripts/ln_diag/ln_diag.cu built here with nvcc for
# sm_90) and kernels/ and lessons/ of the branch. Under $OUT: diag.tgz (everything), a table last.
# In one call, so that every figure shares the copy line: `kladder calibrate`; rung 4 at the
# recorded 16-bit shape through kladder; the transpose ladder's copy of the same bytes (fp32
# 4096 x 4096: 64 MiB read, 64 MiB written) through kladder; ln_diag (copies of exactly the
# LayerNorm's bytes and rung 4's variants under three flushes, per-block traces); ncu on one
# launch of each kernel (DRAM bytes, throughput, time with ncu's clean cache flush) and
# `--set full` on rung 4.
set -uo pipefail
C=$(cd "${1:?carry folder}" && pwd); OUT=${OUT:-/tmp/kl-out}; P=$OUT/p; mkdir -p "$P"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache; mkdir -p $XDG_CACHE_HOME
say() { echo "$*" | tee -a "$P/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$P/nvidia-smi.txt"
date -u | tee -a "$P/summary.txt"
$K calibrate --force > "$P/calibrate.txt" 2>&1; say "calibrate: exit $? $(grep -i copy "$P/calibrate.txt" | head -1)"
rec() { local name=$1; shift; $K "$@" --json "$P/rec_$name.json" > "$P/rec_$name.txt" 2>&1; say "$name: exit $? $(grep -E 'GB/s' "$P/rec_$name.txt" | head -2 | tr -s ' ' | tr '\n' ' ')"; }
for dt in bf16 fp16; do
  rec ln4_$dt run layernorm --rung row_regs_vec --size rows=4096,cols=4096 --dtype $dt -p TPB=256 -p MAXV=2
  rec ln4_rms_$dt run layernorm --rung rms_row_regs_vec --size rows=4096,cols=4096 --dtype $dt -p TPB=256 -p MAXV=2
done
rec copy_4096_fp32 run transpose --rung copy_row_walk --size rows=4096,cols=4096 --dtype fp32
rec copy_8192_fp32 run transpose --rung copy_row_walk --size rows=8192,cols=8192 --dtype fp32
rec ln4_bf16_counters run layernorm --rung row_regs_vec --size rows=4096,cols=4096 --dtype bf16 -p TPB=256 -p MAXV=2 --counters
# rung 7 (L2 policy per stream) through kladder: each store policy of y and of s, and both kept
L7="layernorm --rung row_regs_l2 --size rows=4096,cols=4096 -p TPB=256 -p MAXV=2"
for dt in bf16 fp16; do
  rec l2_y_$dt sweep $L7 --dtype $dt --axis YSTORE --values 0,1,2,3
  rec l2_s_$dt sweep $L7 --dtype $dt --axis SSTORE --values 0,1,2,3
done
rec l2_load_bf16 sweep $L7 --dtype bf16 --axis LOAD --values 0,1,2
rec l2_keep_bf16_counters sweep $L7 --dtype bf16 -p SSTORE=2 --axis YSTORE --values 1,2 --counters
(cd "$P" && timeout 240 "$C/ln_diag" 4096 4096 > diag.txt 2>&1; echo "ln_diag: exit $?" >> summary.txt)
command -v ncu >/dev/null || export PATH=$PATH:$(ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null | tail -1)
NCU="ncu --clock-control none --target-processes all"
(cd "$P" && timeout 150 $NCU --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_write.sum \
   "$C/ln_diag" --ncu > ncu_metrics.txt 2>&1; echo "ncu metrics: exit $?" >> summary.txt)
(cd "$P" && timeout 100 $NCU --set full -k regex:ln_t --launch-skip 3 --launch-count 1 -o rung4_full "$C/ln_diag" --ncu > ncu_full.log 2>&1;
  echo "ncu full: exit $?" >> summary.txt;
  ncu --import rung4_full.ncu-rep --page details --print-details all > ncu_full_details.txt 2>&1;
  ncu --import rung4_full.ncu-rep --page raw --print-metric-instances values > ncu_full_raw.txt 2>&1)
(cd "$P" && tar czf "$OUT/diag.tgz" ./*)
grep -E "^(copy line|bf16|fp16) " "$P/diag.txt" | grep -v " none " 
grep -E "^trace" "$P/diag.txt" | cut -c1-230
cat "$P/summary.txt"
