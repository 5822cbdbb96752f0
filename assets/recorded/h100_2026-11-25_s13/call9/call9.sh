#!/usr/bin/env bash
# Session 13, call 9: WARP_STORE = 1 (each warp stores its own 16 rows of a sub-tile, __syncwarp
# instead of the warpgroup's barriers) against the default: the cluster rung test with its
# WARP_STORE variants, memcheck and racecheck at three sizes, alternated rounds with cuBLAS first,
# then the block timelines (cycles per tile) at 4096^3.
C=.carry-s13
R="-r wgmma_tma_store_bf16"
export PARAMS="-p WARP_STORE=1"
export TESTS='GpuLadders.ClusterRungCorrectAcrossPairsTilesAndOddSizes'
export SAN_SIZES="M=1000,N=700,K=100 M=515,N=1004,K=200 M=8191,N=1004,K=383"
export FORMS="d:$R;w:$R -p WARP_STORE=1"
export SIZES="4096 8192"
export ROUNDS_UNTIL=215
bash scripts/gpu_gemm/alternate.sh $C h100 warp_store_s13 > "$OUT"/alternate.log 2>&1
R18="run matmul -r wgmma_tma_store_bf16 --dtype bf16 -s M=4096,N=4096,K=4096"
mkdir -p /tmp/st9
OUT=/tmp/st9 FORMS="d:$R18;w:$R18 -p WARP_STORE=1" bash scripts/gpu_gemm/stamps.sh $C > /tmp/st9/log 2>&1
cp /tmp/st9/table.txt "$OUT"/stamps_table.txt
(cd /tmp/st9 && tar czf "$OUT"/stamps.tgz ./*)
tail -22 "$OUT"/alternate.log
grep -E "^==|cycles per unit" "$OUT"/stamps_table.txt
