#!/usr/bin/env bash
# The block timeline (STAMPS = 3: the third launch's records) of persistent GEMM forms, each run
# twice, then the tables (stamps_table.py): when each block started, its tile times, when its
# last tile ended, its exit.
#   [FORMS=...] scripts/gpu_gemm/stamps.sh <carry folder>   (holds kladder, the stripped kladder-core, and stamps_table.py)
# FORMS: "label:kladder arguments" separated by ";". The default: mlp rung 5 with TAIL 0, 1 and 2
# at 8192 x 4096 x 16384, matmul rung 18 at 4096^3 and 8192^3.
set -u
C=${1:?carry folder}; K=$C/kladder; export XDG_CACHE_HOME=/tmp/kl-cache-stamps
OUT=${OUT:-/tmp/kl-out}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,power.draw --format=csv,noheader | tee "$OUT/nvidia-smi.txt"
G="T=8192,D=4096,F=16384"
R18="run matmul -r wgmma_tma_store_bf16 --dtype bf16 -s"
FORMS=${FORMS:-"mlp5_tail0:run mlp -r gelu_cluster -p TAIL=0 -s $G;mlp5_tail1:run mlp -r gelu_cluster -p TAIL=1 -s $G;mlp5_tail2:run mlp -r gelu_cluster -p TAIL=2 -s $G;r18_4096:$R18 M=4096,N=4096,K=4096;r18_8192:$R18 M=8192,N=8192,K=8192"}
files=()
stamp() { # label, kladder args...
  local label=$1; shift
  timeout 90 "$K" "$@" -p STAMPS=3 --warmup 2 --reps 3 --no-check > "$OUT/$label.txt" 2>&1
  echo "$label: exit $? ($(grep -c '^stamp ' "$OUT/$label.txt") blocks)"
  files+=("$OUT/$label.txt")
}
IFS=';' read -r -a forms <<< "$FORMS"
for run in a b; do
  for f in "${forms[@]}"; do
    # shellcheck disable=SC2086 # the form's arguments are a list
    stamp "${f%%:*}_$run" ${f#*:}
  done
done
python3 "$C/stamps_table.py" "${files[@]}" | tee "$OUT/table.txt"
