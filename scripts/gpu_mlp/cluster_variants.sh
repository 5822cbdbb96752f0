#!/usr/bin/env bash
# mlp rung 5's variants in one device call, after scripts/gpu_mlp/cluster.sh: the GPU tests
# (TESTS, a gtest filter; default ClusterRungVariantsCorrect), compute-sanitizer memcheck and
# racecheck at odd sizes with SAN_PARAMS (none by default: skipped), then alternated rounds at
# GPT's 8192 x 4096 x 16384 with a CUPTI timeline, unfused first in each round, then FORMS
# ("label:kladder params" separated by ";"; default: rung 5 at its defaults, TANH = 16,
# GROUP_M = 8, 256 x 128 tiles); the table last (cluster_table.py).
#   scripts/gpu_mlp/cluster_variants.sh <carry folder> <device tag> [name]
# Results under $OUT: <tag>_mlp_<name>.json (name: cluster_variants), table.txt, logs.tgz.
set -uo pipefail
C=${1:?carry folder}; TAG=${2:?device tag}; NAME=${3:-cluster_variants}
FORMS=${FORMS:-"r5:;r5_tanh16:-p TANH=16;r5_group8:-p GROUP_M=8;r5_256x128:-p BM=256 -p BN=128 -p STAGES=3"}
OUT=${OUT:-/tmp/kl-out}; P=$OUT/parts; mkdir -p "$P"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
say() { echo "$*" | tee -a "$P/summary.txt"; }
nvidia-smi --query-gpu=name,uuid,clocks.sm,temperature.gpu,power.draw --format=csv,noheader | tee "$P/nvidia-smi.txt"
$K calibrate --force > "$P/calibrate.txt" 2>&1; say "calibrate: exit $? ($(grep -m1 -i copy "$P/calibrate.txt"))"
timeout 170 "$C/test_gpu_mlp" --gtest_filter="${TESTS:-GpuMlp.ClusterRungVariantsCorrect}" > "$P/test_gpu_mlp.txt" 2>&1
say "test_gpu_mlp (${TESTS:-GpuMlp.ClusterRungVariantsCorrect}): exit $?"
grep -E "^\[  (FAILED|  OK|SKIPPED|  PASSED) |Failure" "$P/test_gpu_mlp.txt" | head -20 | tee -a "$P/summary.txt"
rec() {  # rec <part> <kladder arguments...>
  local name=$1; shift
  timeout 100 $K "$@" --json "$P/rec_$name.json" > "$P/rec_$name.txt" 2>&1; say "run $name: exit $? (${SECONDS} s)"
}
R="run mlp --size T=8192,D=4096,F=16384 --timeline"
if [ -n "${SAN_PARAMS+set}" ]; then
  for tool in memcheck racecheck; do
    for c in "T=127,D=65,F=259" "T=1000,D=264,F=1032" "T=1100,D=64,F=2055"; do
      f="$P/san_${tool}_${c}.txt"
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $K run mlp --rung gelu_cluster --size $c $SAN_PARAMS \
        --warmup 0 --reps 1 --warm-l2 > "$f" 2>&1
      say "sanitizer $tool gelu_cluster $c $SAN_PARAMS: exit $? ($(tail -1 "$f")) $(grep -m1 -o 'Race reported between [A-Za-z]* access at [A-Za-z0-9_]*' "$f")"
    done
  done
fi
IFS=';' read -r -a forms <<< "$FORMS"
for round in 1 2 3 4 5 6; do
  [ "$round" -le 2 ] || [ "$SECONDS" -lt "${ROUNDS_UNTIL:-240}" ] || break
  rec "r${round}_a_unfused" $R --rung unfused
  letters=(b c d e f g h)
  for i in "${!forms[@]}"; do
    label=${forms[$i]%%:*}; params=${forms[$i]#*:}
    # shellcheck disable=SC2086 # params is a list of kladder arguments
    rec "r${round}_${letters[$i]}_${label}" $R --rung gelu_cluster $params
  done
done
python3 "$C/merge_results.py" "$OUT/${TAG}_mlp_${NAME}.json" "$P"/rec_*.json
python3 "$C/cluster_table.py" "$P" | tee "$OUT/table.txt"
cat "$P/summary.txt"
(cd "$P" && tar czf ../logs.tgz ./* 2>/dev/null)
rm -rf "$P"
