#!/usr/bin/env bash
# Session 13, call 4: what the epilogue costs rung 18 at 4096^3, with a temporary measuring
# parameter (EPI_SKIP, in the working tree only): 1 = no epilogue at all, 2 = the shared-memory
# writes without TMA stores. Unchecked (C is not written), timed with the timeline, three rounds;
# then the block timelines (cycles per tile) of the three forms.
K=.carry-s13/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | tee "$OUT/nvidia-smi.txt"
for r in 1 2 3; do
  for f in 0 1 2; do
    "$K" run matmul -r wgmma_tma_store_bf16 -p EPI_SKIP=$f --dtype bf16 -s M=4096,N=4096,K=4096 --no-check \
      --timeline > "$OUT/t_e${f}_r$r.txt" 2>&1
    echo "round $r EPI_SKIP=$f:"
    grep -E '^wgmma_tma_store_bf16|kernel|traced' "$OUT/t_e${f}_r$r.txt" | cut -c1-220 | head -4
  done
done
R18="run matmul -r wgmma_tma_store_bf16 --dtype bf16 -s M=4096,N=4096,K=4096"
mkdir -p /tmp/st4
OUT=/tmp/st4 FORMS="e0:$R18;e1:$R18 -p EPI_SKIP=1;e2:$R18 -p EPI_SKIP=2" bash scripts/gpu_gemm/stamps.sh .carry-s13 > /tmp/st4/log 2>&1
cp /tmp/st4/table.txt "$OUT/stamps_table.txt"
grep -E "^==|cycles per unit|span" "$OUT/stamps_table.txt"
(cd /tmp/st4 && tar czf "$OUT/stamps.tgz" ./*)
(cd "$OUT" && tar czf logs.tgz ./t_*.txt && rm -f ./t_*.txt)
