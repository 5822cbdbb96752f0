#!/usr/bin/env bash
# Records the sweeps the lessons bind to (issue 21), in one device call:
#   - vector add over n with L2 warm and cold (lesson 0, "warm L2"), TPB=256, EPT=1;
#   - every softmax rung over cols = 256 .. 65,536 at rows = 4096 (lesson 4, "every shape").
# Run on the GPU machine from the carry folder that holds kladder, kernels/ and lessons/
# (scripts/pack_for_gpu.sh, then copy kernels/ and lessons/ beside it). Writes one archive,
# $OUT/lessons_record.tgz (the device tool brings back only a few files per call).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
k="$here/kladder"
final=${OUT:-/tmp/out}
out=$(mktemp -d)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
ns=2^16,2^17,2^18,2^19,2^20,2^21,2^22,2^23,2^24,2^25
"$k" sweep elementwise --rung vector_add --axis n --values $ns --param TPB=256 --param EPT=1 --warm-l2 \
  --json "$out/h100_vector_add_warm_l2.json" > "$out/warm.txt" 2>&1
"$k" sweep elementwise --rung vector_add --axis n --values $ns --param TPB=256 --param EPT=1 \
  --json "$out/h100_vector_add_cold_l2.json" > "$out/cold.txt" 2>&1
for r in naive_multi block_smem warp_shuffle online online_vec warp_rows; do
  "$k" sweep softmax --rung $r --axis cols --values 256,512,1024,2048,4096,8192,16384,32768,65536 \
    --size rows=4096 --json "$out/softmax_cols_$r.json" > "$out/softmax_$r.txt" 2>&1
done
tar czf "$final/lessons_record.tgz" -C "$out" .
tail -n 12 "$out"/warm.txt "$out"/cold.txt "$out"/softmax_online_vec.txt
