#!/usr/bin/env bash
# The 16-bit LayerNorm 90% line, second device call: layernorm rung 7 (row_regs_tail) against
# rung 4 at the same shapes, in the same call as the copy line (`kladder calibrate`) and torch's
# layer_norm / rms_norm; the layernorm GPU tests (odd sizes, every dtype, rung 7 included) and
# compute-sanitizer memcheck and racecheck of rung 7 at small odd sizes; a table last.
#   scripts/gpu_precision_tail.sh <carry folder> <device tag>
# Carry folder as for gpu_precision_record.sh. Results under $OUT: <tag>_layernorm_tail.json,
# <tag>_peers_norms.json, logs.tgz.
# Rung 7 was removed after this call (no gain, docs/tuning/layernorm.md): its runs and sanitizer
# passes need the tree of commit f548c86; on later trees they fail with 'unknown rung'.
set -uo pipefail
C=${1:?carry folder}; TAG=${2:?device tag}
OUT=${OUT:-/tmp/kl-out}; P=$OUT/parts; mkdir -p "$P"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache; mkdir -p $XDG_CACHE_HOME
say() { echo "$*" | tee -a "$P/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$P/nvidia-smi.txt"
$K calibrate --force > "$P/calibrate.txt" 2>&1; say "calibrate: exit $? $(grep -i copy "$P/calibrate.txt" | head -1)"

timeout 150 "$C/test_gpu_live" --gtest_filter='GpuLive.LayerNorm*:GpuLive.ErrorReport*' > "$P/test_gpu_live.txt" 2>&1
say "test_gpu_live (layernorm): exit $?"
grep -E "^\[  (FAILED|  OK|SKIPPED) |rel_l2:|Failure|refused" "$P/test_gpu_live.txt" | head -30 | tee -a "$P/summary.txt"

rec() {  # rec <part> <kladder arguments...>
  local name=$1; shift
  $K "$@" --json "$P/rec_$name.json" > "$P/rec_$name.txt" 2>&1; say "$name: exit $?"
}
for v in "" rms_; do
  for g in row_regs_vec row_regs_tail; do
    rec ${g}_${v}4096_fp32 run layernorm --rung ${v}$g --size rows=4096,cols=4096 --dtype fp32
    for dt in bf16 fp16; do
      rec ${g}_${v}4096_$dt run layernorm --rung ${v}$g --size rows=4096,cols=4096 --dtype $dt -p TPB=256 -p MAXV=2
    done
    rec ${g}_${v}32768_fp32 run layernorm --rung ${v}$g --size rows=32768,cols=1024 --dtype fp32 -p TPB=256 -p MAXV=1
    rec ${g}_${v}32768_bf16 run layernorm --rung ${v}$g --size rows=32768,cols=1024 --dtype bf16 -p TPB=128 -p MAXV=1
  done
done
for dt in bf16 fp16; do
  rec tail_store0_$dt run layernorm --rung row_regs_tail --size rows=4096,cols=4096 --dtype $dt -p TPB=256 -p MAXV=2 -p STORE=0
done
rec tail_128x4_bf16 run layernorm --rung row_regs_tail --size rows=4096,cols=4096 --dtype bf16 -p TPB=128 -p MAXV=4
rec tail_512x1_bf16 run layernorm --rung row_regs_tail --size rows=4096,cols=4096 --dtype bf16 -p TPB=512 -p MAXV=1
python3 "$C/merge_results.py" "$OUT/${TAG}_layernorm_tail.json" "$P"/rec_*.json

timeout 100 python3 "$C/peers_precision.py" --norms-only --out "$OUT/${TAG}_peers_norms.json" > "$P/peers.log" 2>&1; say "peers: exit $?"

san() {  # san <name> <tool> <kladder run arguments...>
  local name=$1 tool=$2; shift 2
  timeout 40 compute-sanitizer --tool "$tool" --error-exitcode 9 $K run "$@" --warmup 0 --reps 1 --warm-l2 \
    > "$P/san_${tool}_$name.txt" 2>&1
  say "sanitizer $tool $name: exit $? ($(tail -1 "$P/san_${tool}_$name.txt"))"
}
for tool in memcheck racecheck; do
  san tail_bf16 $tool layernorm --rung row_regs_tail --size rows=5,cols=1001 --dtype bf16
  san tail_fp16 $tool layernorm --rung row_regs_tail --size rows=7,cols=1024 --dtype fp16 -p MAXV=2
  san tail_rms_fp32 $tool layernorm --rung rms_row_regs_tail --size rows=3,cols=999 --dtype fp32
done

python3 "$C/precision_table.py" "$OUT/${TAG}_peers_norms.json" "$OUT/${TAG}_layernorm_tail.json"
cat "$P/summary.txt"
(cd "$P" && tar czf ../logs.tgz ./* 2>/dev/null)
rm -rf "$P"
