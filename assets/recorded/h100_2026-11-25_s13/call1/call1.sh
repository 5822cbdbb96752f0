#!/usr/bin/env bash
# Session 13, call 1: NARROW (the last round re-cut into narrow pieces) against the default and
# FULL_ROUNDS = 0, cuBLAS first in every round; the GPU tests and sanitizers of NARROW; then the
# block timelines of NARROW and FULL_ROUNDS 0/1 at 4096^3.
C=.carry-s13
R="-r wgmma_tma_store_bf16"
export PARAMS="-p NARROW=1 -p FULL_ROUNDS=0"
export TESTS='GpuStreamK.*:GpuLadders.ClusterRungCorrectAcrossPairsTilesAndOddSizes'
export SAN_SIZES="M=1000,N=1000,K=100 M=640,N=1000,K=96 M=2048,N=2312,K=200 M=1792,N=1792,K=256"
export FORMS="fr1:$R;fr0:$R -p FULL_ROUNDS=0;narrow:$R -p NARROW=1 -p FULL_ROUNDS=0"
export SIZES="4096 8192"
export ROUNDS_UNTIL=380
bash scripts/gpu_gemm/alternate.sh $C h100 narrow_s13 > "$OUT"/alternate.log 2>&1
R18="run matmul -r wgmma_tma_store_bf16 --dtype bf16 -s M=4096,N=4096,K=4096"
mkdir -p /tmp/st
OUT=/tmp/st FORMS="fr1_4096:$R18;fr0_4096:$R18 -p FULL_ROUNDS=0;narrow_4096:$R18 -p NARROW=1 -p FULL_ROUNDS=0" \
  bash scripts/gpu_gemm/stamps.sh $C > /tmp/st/stamps.log 2>&1
cp /tmp/st/table.txt "$OUT"/stamps_table.txt
(cd /tmp/st && tar czf "$OUT"/stamps.tgz ./*)
tail -45 "$OUT"/alternate.log
grep -E "^==|span|exit \(us\)|end of the last|tile time" "$OUT"/stamps_table.txt | head -40
