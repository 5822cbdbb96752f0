#!/usr/bin/env bash
# Session 13, call 6: SUB_PAIR = 2 (one 16 KB buffer per consumer, pairs of sub-tiles, the default's shared memory)
C=.carry-s13
R="-r wgmma_tma_store_bf16"
export PARAMS="-p SUB_PAIR=2"
export SKIP_CHECKS=1
export FORMS="d:$R;q2:$R -p SUB_PAIR=2"
export SIZES="4096 8192"
export ROUNDS_UNTIL=200
bash scripts/gpu_gemm/alternate.sh $C h100 sub_pair2_s13 > "$OUT"/alternate.log 2>&1
R18="run matmul -r wgmma_tma_store_bf16 --dtype bf16 -s M=4096,N=4096,K=4096"
mkdir -p /tmp/st6
OUT=/tmp/st6 FORMS="d:$R18;q2:$R18 -p SUB_PAIR=2" \
  bash scripts/gpu_gemm/stamps.sh $C > /tmp/st6/log 2>&1
cp /tmp/st6/table.txt "$OUT"/stamps_table.txt
(cd /tmp/st6 && tar czf "$OUT"/stamps.tgz ./*)
tail -40 "$OUT"/alternate.log
grep -E "^==|cycles per unit" "$OUT"/stamps_table.txt
