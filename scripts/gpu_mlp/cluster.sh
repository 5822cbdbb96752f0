#!/usr/bin/env bash
# mlp rung 5 (gelu_cluster) in one device call: a smoke run (a deadlock must not eat the call), the
# mlp GPU tests, compute-sanitizer memcheck and racecheck of rung 5 at odd sizes, then alternated
# rounds at GPT's 8192 x 4096 x 16384 (cold L2, each run with a CUPTI timeline for the kernels' own
# times): unfused first in every round, then FORMS, as many rounds as ROUNDS_UNTIL allows (at
# least two); runs with counters last; the table (cluster_table.py).
#   [env] scripts/gpu_mlp/cluster.sh <carry folder> <device tag> [name]
# Environment (the defaults are the first call of 2026-11-24; docs/tuning/mlp.md, "Rung 5"):
#   TESTS      gtest filter of test_gpu_mlp (GpuMlp.*)
#   SAN        sanitizer cases of rung 5, "size params" separated by ";" (empty: none)
#   FORMS      "label:kladder arguments" separated by ";" (rung 4, rung 5, rung 5 unpaired, cuBLASLt)
#   COUNTERS   the same form, each run once with --counters (rung 5, unfused)
#   ROUNDS_UNTIL  seconds after which no new round starts (380)
# The carry folder holds kladder (stripped kladder-core), test_gpu_mlp, merge_results.py
# (scripts/) and cluster_table.py. Results under $OUT: <tag>_mlp_<name>.json (name:
# cluster), table.txt, logs.tgz.
set -uo pipefail
C=${1:?carry folder}; TAG=${2:?device tag}; NAME=${3:-cluster}
TESTS=${TESTS:-GpuMlp.*}
SAN=${SAN-"T=127,D=65,F=259;T=1100,D=72,F=2056;T=1100,D=64,F=2055;T=1100,D=72,F=2056 -p CLUSTER=1"}
FORMS=${FORMS:-"r4:--rung gelu_tma_store;r5:--rung gelu_cluster;r5_unpaired:--rung gelu_cluster -p CLUSTER=1;lt:--rung cublaslt_gelu"}
COUNTERS=${COUNTERS-"r5:--rung gelu_cluster;unfused:--rung unfused"}
OUT=${OUT:-/tmp/kl-out}; P=$OUT/parts; mkdir -p "$P"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
say() { echo "$*" | tee -a "$P/summary.txt"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader |
  tee "$P/nvidia-smi.txt"
"$K" calibrate --force > "$P/calibrate.txt" 2>&1; say "calibrate: exit $? ($(grep -m1 -i copy "$P/calibrate.txt"))"

OK=0
for s in "T=256,D=256,F=512" "T=2048,D=512,F=4096" "T=2048,D=512,F=4096 -p CLUSTER=1"; do
  # shellcheck disable=SC2086 # s is a size and kladder arguments
  timeout 30 "$K" run mlp --rung gelu_cluster --size $s > "$P/smoke_${s// /_}.txt" 2>&1
  rc=$?; [ $rc -le 1 ] || OK=1
  say "smoke $s: exit $rc ($(grep -m1 gelu_cluster "$P/smoke_${s// /_}.txt"))"
done

filter=$TESTS; [ $OK -eq 0 ] || filter='GpuMlp.Qkv*'
timeout 170 "$C/test_gpu_mlp" --gtest_filter="$filter" > "$P/test_gpu_mlp.txt" 2>&1
say "test_gpu_mlp ($filter): exit $?"
grep -E "^\[ +(FAILED|OK|SKIPPED|PASSED) |counters:|Failure" "$P/test_gpu_mlp.txt" | head -30 | tee -a "$P/summary.txt"
[ $OK -eq 0 ] || { say "smoke failed: no timing, no sanitizers"; SAN=""; FORMS=""; COUNTERS=""; }

IFS=';' read -r -a cases <<< "$SAN"
for tool in memcheck racecheck; do
  for c in "${cases[@]}"; do
    f="$P/san_${tool}_${c// /_}.txt"
    # shellcheck disable=SC2086 # c is a size and kladder arguments
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "$K" run mlp --rung gelu_cluster --size $c \
      --warmup 0 --reps 1 --warm-l2 > "$f" 2>&1
    say "sanitizer $tool gelu_cluster $c: exit $? ($(tail -1 "$f")) $(grep -m1 -o 'Race reported between [A-Za-z]* access at [A-Za-z0-9_]*' "$f")"
  done
done

rec() {  # rec <part> <kladder arguments...>
  local name=$1; shift
  timeout 100 "$K" "$@" --json "$P/rec_$name.json" > "$P/rec_$name.txt" 2>&1; say "run $name: exit $? (${SECONDS} s)"
}
# shellcheck disable=SC2054 # the commas are inside one --size argument
R=(run mlp --size T=8192,D=4096,F=16384)
IFS=';' read -r -a forms <<< "$FORMS"
letters=(b c d e f g h i)
for round in 1 2 3 4 5 6; do
  [ ${#forms[@]} -gt 0 ] || break
  [ "$round" -le 2 ] || [ "$SECONDS" -lt "${ROUNDS_UNTIL:-380}" ] || break
  rec "r${round}_a_unfused" "${R[@]}" --timeline --rung unfused
  for i in "${!forms[@]}"; do
    # shellcheck disable=SC2086 # the form's arguments are a list
    rec "r${round}_${letters[$i]}_${forms[$i]%%:*}" "${R[@]}" --timeline ${forms[$i]#*:}
  done
done
IFS=';' read -r -a counted <<< "$COUNTERS"
for form in "${counted[@]}"; do
  # shellcheck disable=SC2086
  rec "x_counters_${form%%:*}" "${R[@]}" --counters ${form#*:}
done
ls "$P"/rec_*.json > /dev/null 2>&1 && python3 "$C/merge_results.py" "$OUT/${TAG}_mlp_${NAME}.json" "$P"/rec_*.json
python3 "$C/cluster_table.py" "$P" | tee "$OUT/table.txt"
cat "$P/summary.txt"
(cd "$P" && tar czf ../logs.tgz ./* 2>/dev/null)
rm -rf "$P"
