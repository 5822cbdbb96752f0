#!/usr/bin/env bash
# Session 13, call 5: rung 18's epilogue in pairs of sub-tiles (SUB_PAIR = 1, four fences and barrier
# pairs per tile instead of eight), which needs 32 KB more shared memory (STAGES 3, or BK 32 with 6),
# against the default and the default at STAGES 3; smoke-checked at three sizes, then six alternated
# rounds with cuBLAS first, then the block timelines (cycles per tile).
C=.carry-s13
R="-r wgmma_tma_store_bf16"
export PARAMS="-p SUB_PAIR=1 -p STAGES=3"
export SKIP_CHECKS=1
export FORMS="d:$R;s3:$R -p STAGES=3;p3:$R -p SUB_PAIR=1 -p STAGES=3;p6:$R -p SUB_PAIR=1 -p BK=32 -p STAGES=6"
export SIZES="4096 8192"
export ROUNDS_UNTIL=200
bash scripts/gpu_gemm/alternate.sh $C h100 sub_pair_s13 > "$OUT"/alternate.log 2>&1
R18="run matmul -r wgmma_tma_store_bf16 --dtype bf16 -s M=4096,N=4096,K=4096"
mkdir -p /tmp/st5
OUT=/tmp/st5 FORMS="d:$R18;s3:$R18 -p STAGES=3;p3:$R18 -p SUB_PAIR=1 -p STAGES=3;p6:$R18 -p SUB_PAIR=1 -p BK=32 -p STAGES=6" \
  bash scripts/gpu_gemm/stamps.sh $C > /tmp/st5/log 2>&1
cp /tmp/st5/table.txt "$OUT"/stamps_table.txt
(cd /tmp/st5 && tar czf "$OUT"/stamps.tgz ./*)
tail -40 "$OUT"/alternate.log
grep -E "^==|cycles per unit" "$OUT"/stamps_table.txt
