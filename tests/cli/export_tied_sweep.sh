#!/bin/sh
# A sweep along N with M and K tied to it (M = N = K, as the cliff recording varies them) draws
# every recorded size, not the single point a sweep with M and K held fixed finds.
set -u
kladder=$1
recorded=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$kladder" export --results "$recorded/h100_matmul_cliff.json" --plot sweep --rung cublas_bf16 --axis N --tie M,K \
  -o "$out/cliff.csv" || { echo "export failed"; exit 1; }
points=$(grep -c '^matmul_sweep_N,cuBLAS bf16' "$out/cliff.csv")
[ "$points" -eq 4 ] || { echo "expected 4 cuBLAS points (1792, 1793, 2048, 2049), got $points"; exit 1; }
"$kladder" export --results "$recorded/h100_matmul_cliff.json" --plot sweep --rung cublas_bf16 --axis N \
  -o "$out/untied.csv" >/dev/null 2>&1
untied=$(grep -c '^matmul_sweep_N,cuBLAS bf16' "$out/untied.csv" 2>/dev/null || echo 0)
[ "$untied" -lt 4 ] || { echo "without --tie the sweep should not find all four sizes"; exit 1; }
echo "tied: $points points, untied: $untied"
