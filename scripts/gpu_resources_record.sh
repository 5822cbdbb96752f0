#!/usr/bin/env bash
# Issue 15 in one device call per GPU kind: every ladder with its per-launch resources
# (registers, shared memory, spills, occupancy; schema v2), the launch refusal the issue names,
# and on request Nsight Compute's launch statistics for three rungs to compare with.
#   scripts/gpu_resources_record.sh <carry folder> <device tag> [--ncu] [--peers]
# From the repo root on the GPU machine. The carry folder holds kladder (stripped
# kladder-core), kernels/, lessons/ and assets/ (the program finds them beside itself) and
# peers.py. Results under $OUT (<tag>_<ladder>.json, logs in one archive); a table last.
set -uo pipefail
C=${1:?carry folder}; TAG=${2:?device tag}; shift 2
OUT=${OUT:-/tmp/kl-out}; mkdir -p "$OUT/parts"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/parts/nvidia-smi.txt"
$K calibrate --force > "$OUT/parts/calibrate.txt" 2>&1; echo "calibrate: exit $?" | tee -a "$OUT/parts/summary.txt"
run() {  # run <name> <kladder run arguments...>
  local name=$1; shift
  $K run "$@" --json "$OUT/${TAG}_$name.json" > "$OUT/parts/$name.txt" 2>&1
  echo "run $name: exit $?" | tee -a "$OUT/parts/summary.txt"
}
run elementwise elementwise
run transpose transpose
run softmax softmax
run matmul matmul --size M=4096,N=4096,K=4096
run attention attention --dtype bf16 --size B=8,H=16,N=4096,d=64
run attention_fp32 attention --dtype fp32 --size B=8,H=16,N=4096,d=64
# A legal slider setting that cannot launch: refused before it runs, exit 2, one line.
$K run elementwise --rung gelu_fused_vec -p TPB=1024 -p VPT=8 > "$OUT/parts/refusal.txt" 2>&1
echo "refusal TPB=1024 VPT=8: exit $? (2 expected)" | tee -a "$OUT/parts/summary.txt"
for a in "$@"; do
  if [ "$a" = --ncu ]; then
    # Nsight Compute's view of the same launches: registers, shared memory, block limits, occupancy.
    ncu_run() {  # ncu_run <name> <kernel> <kladder run arguments...>
      local name=$1 kernel=$2; shift 2
      timeout 120 ncu --clock-control none --section LaunchStats --section Occupancy -k "regex:^$kernel\$" --launch-count 1 \
        $K run "$@" --warmup 0 --reps 1 --json "$OUT/parts/ncu_$name.json" > "$OUT/parts/ncu_$name.txt" 2>&1
      echo "ncu $name: exit $?" | tee -a "$OUT/parts/summary.txt"
    }
    ncu_run gelu_fused_vec gelu_fused_vec elementwise --rung gelu_fused_vec
    ncu_run reg_2d matmul_reg_2d matmul --rung reg_2d --size M=4096,N=4096,K=4096
    ncu_run mma_bf16 matmul_mma_bf16 matmul --rung mma_bf16 --size M=4096,N=4096,K=4096
  fi
  if [ "$a" = --peers ] && [ -f "$C/peers.py" ]; then
    timeout 300 python3 "$C/peers.py" --quick --out "$OUT/${TAG}_peers.json" > "$OUT/parts/peers.log" 2>&1
    echo "peers: exit $?" | tee -a "$OUT/parts/summary.txt"
  fi
done
python3 "$C/resources_table.py" "$OUT" "$TAG"
cat "$OUT/parts/refusal.txt"
cat "$OUT/parts/summary.txt"
(cd "$OUT/parts" && tar czf ../logs.tgz ./* 2>/dev/null)
rm -rf "$OUT/parts"
