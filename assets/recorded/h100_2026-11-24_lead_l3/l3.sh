#!/usr/bin/env bash
# Lead call 3 (merged tree): timing only, alone on the GPU. Lesson 0's power step recordings;
# issue 17's LayerNorm line (rung 7 at its defaults beside rung 4, the copy line and torch's norms)
# and the MLP line (unfused and rung 4 alternated); issue 19's top rung against SDPA timed like the
# runner; issue 20's top bf16 rung against cuBLAS, alternated. Then the layernorm sanitizers.
set -u
C=$PWD/.carry-lead; K=$C/kladder; W=/tmp/l3; R=$W/l3; mkdir -p $R/json
export XDG_CACHE_HOME=/tmp/kl-l3-cache
fin() { tar -C $W -czf $OUT/l3.tgz l3; }
say() { echo "$*" | tee -a $R/summary.txt; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; date -u +%FT%TZ > $R/date.txt
$K calibrate --force > $R/calibrate.txt 2>&1; say "calibrate: $(grep -i -m1 copy $R/calibrate.txt)"
row() { grep -E "^ *$1 " "$2" | head -1 | tr -s ' ' | cut -c1-150; }
# 1. Lesson 0: the power cap (short burst against the runner's 400 ms).
$K run matmul -r cublas_bf16 -s M=8192,N=8192,K=8192 --dtype bf16 --mode short_burst --json $R/json/p1.json > $R/p1.txt 2>&1
say "burst cublas_bf16 8192: $(grep -iE 'short_burst|mode|clock' $R/p1.txt | head -3 | tr '\n' ' ')"
$K run elementwise -r vector_add -p TPB=256 -p EPT=1 -s n=268435456 --mode short_burst --json $R/json/p2.json > $R/p2.txt 2>&1
say "burst vector_add 2^28: $(grep -iE 'short_burst|mode|clock' $R/p2.txt | head -3 | tr '\n' ' ')"
python3 $C/merge_results.py $R/h100_modes_power.json $R/json/p1.json $R/json/p2.json; fin
# 2. Attention: the top rung and SDPA, both timed by the runner's protocol.
for d in 64 128; do for cz in 0 1; do
  S="B=8,H=16,N=4096,d=$d,causal=$cz"
  $K run attention -r flash_fa3 -s $S --dtype bf16 --json $R/json/fa3_${d}_$cz.json > $R/fa3_${d}_$cz.txt 2>&1
  timeout 120 python3 $C/sdpa_peers.py $R/sdpa_${d}_$cz.json 8 16 $d $cz 4096 > $R/sdpa_${d}_$cz.txt 2>&1
  say "attn d=$d c=$cz: $(row flash_fa3 $R/fa3_${d}_$cz.txt | cut -d' ' -f1,8-13) | $(python3 -c "import json;print(*[(r['backend'],round(r.get('tflops',0)),r.get('reps')) for r in json.load(open('$R/sdpa_${d}_$cz.json')) if r['backend']=='cudnn'])")"
done; done; fin
# 3. Matmul bf16: the top rungs and cuBLAS, alternated.
for sz in 4096 8192; do for i in 1 2; do for r in cublas_bf16 wgmma_tma_store_bf16 wgmma_cluster_bf16; do
  $K run matmul -r $r -s M=$sz,N=$sz,K=$sz --dtype bf16 --json $R/json/mm_${r}_${sz}_$i.json > $R/mm_${r}_${sz}_$i.txt 2>&1
  say "mm $sz #$i: $(row $r $R/mm_${r}_${sz}_$i.txt | cut -c1-120)"
done; done; done; fin
# 4. MLP: unfused and rung 4 alternated, three times.
for i in 1 2 3; do for r in unfused gelu_tma_store cublaslt_gelu; do
  $K run mlp -r $r --json $R/json/mlp_${r}_$i.json > $R/mlp_${r}_$i.txt 2>&1
  say "mlp #$i: $(row $r $R/mlp_${r}_$i.txt | cut -c1-110)"
done; done; fin
# 5. LayerNorm line (issue 17), after the heavy parts so the GPU is at its usual clock for all.
OUT=$W/lnout bash $C/ln_accept.sh $C h100 > $R/ln_accept.txt 2>&1; tail -25 $R/ln_accept.txt
cp -r $W/lnout $R/ln
fin; echo "total $SECONDS s"
