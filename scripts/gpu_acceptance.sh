#!/usr/bin/env bash
# One device call after a merge: the GPU tests, the top rungs against their library peers in the
# same call (matmul 4096^3, flash attention at the benchmarks' size), recordings a lesson needs,
# and compute-sanitizer on the newest rungs. Full logs under $OUT/acc (tarred); a table last.
#   scripts/gpu_acceptance.sh <carry folder>
# The carry folder holds kladder (a stripped kladder-core), test_gpu, test_gpu_live,
# test_gui_runner_gpu, and kernels/, lessons/, assets/ (found beside the programs). An extra
# ladder in its kernels/ (say the previous version of a rung, under another id) is timed too
# when named in EXTRA="ladder/rung:size-args ...".
set -u
C=$(cd "${1:?carry folder}" && pwd)
OUT=${OUT:-/tmp/kl-out}; R=$OUT/acc; mkdir -p "$R/json"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-acc-cache
say() { echo "$*" | tee -a "$R/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader > "$R/device.txt"
date -u +%FT%TZ > "$R/date.txt"
$K calibrate --force > "$R/calibrate.txt" 2>&1; say "calibrate: exit $?"

# 1. Tests (ctest gpu.ladders, gpu.live, gpu.gui_runner).
t=$SECONDS; timeout 300 "$C/test_gpu" > "$R/test_gpu.txt" 2>&1; say "test_gpu: exit $? ($((SECONDS - t)) s)"
t=$SECONDS; timeout 120 "$C/test_gpu_live" > "$R/test_gpu_live.txt" 2>&1; say "test_gpu_live: exit $? ($((SECONDS - t)) s)"
KLADDER_EXE=$K timeout 120 "$C/test_gui_runner_gpu" > "$R/test_gui_runner_gpu.txt" 2>&1; say "test_gui_runner_gpu: exit $?"
grep -h "^\[  FAILED  \]" "$R"/test_*.txt | sort -u | tee -a "$R/summary.txt"

# 2. Top rungs and their peers, twice each (the spread between passes is the noise).
run() {  # run <name> <kladder run arguments...>
  local name=$1; shift
  timeout 120 $K run "$@" --json "$R/json/$name.json" >> "$R/bench.txt" 2>&1 || say "run $name: exit $?"
}
for pass in 1 2; do
  for r in cublas_fp32 double_buffer_regs double_buffer cublas_bf16 wgmma_tma_bf16; do
    run "mm_${r}_$pass" matmul --rung $r --size M=4096,N=4096,K=4096
  done
  for d in 64 128; do for c in 0 1; do
    run "fa_d${d}_c${c}_$pass" attention --rung flash_bf16 --dtype bf16 --size B=8,H=16,N=4096,d=$d,causal=$c
  done; done
  for e in ${EXTRA:-}; do
    lr=${e%%:*}; sz=${e#*:}
    run "x_${lr//\//_}_${sz//[=,]/_}_$pass" "${lr%%/*}" --rung "${lr#*/}" --dtype bf16 --size "$sz"
  done
done
for bn in 32 64; do for bm in 64 128; do
  run "fa_d128_bm${bm}_bn${bn}" attention --rung flash_bf16 --dtype bf16 --size B=8,H=16,N=4096,d=128,causal=0 \
    -p BM128=$bm -p BN128=$bn
done; done

# 3. Recordings lessons ask for (their steps sweep these): lesson 2 step 7, lessons 0 and 3.
timeout 120 $K sweep transpose --rung transpose_padded --axis ROWS_PER_PASS --values 4,8,16,32 \
  --size rows=8192,cols=8192 --json "$R/json/rec_transpose_rows_per_pass.json" > "$R/rec.txt" 2>&1
say "sweep transpose_padded ROWS_PER_PASS: exit $?"
for r in gelu_unfused gelu_fused; do
  timeout 120 $K sweep elementwise --rung $r --axis n --values 2^16,2^18,2^20,2^22,2^24,2^26,2^28 \
    --json "$R/json/rec_${r}_n.json" >> "$R/rec.txt" 2>&1
  say "sweep $r n: exit $?"
done

# 4. compute-sanitizer on the newest rungs at small odd sizes (warm L2: the flush is not under test).
san() {  # san <name> <tool> <kladder run arguments...>
  local name=$1 tool=$2; shift 2
  timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 9 $K run "$@" --warmup 0 --reps 1 --warm-l2 \
    > "$R/san_${tool}_$name.txt" 2>&1
  say "sanitizer $tool $name: exit $? ($(tail -1 "$R/san_${tool}_$name.txt"))"
}
for tool in memcheck racecheck; do
  san recompute $tool recompute --size n=1000003
  san sincos $tool elementwise --rung sincos_fused --size n=1000003
  san sincos_u $tool elementwise --rung sincos_unfused --size n=1000003
  san welford $tool layernorm --rung welford --size rows=37,cols=1000
  san flash_d128 $tool attention --rung flash_bf16 --dtype bf16 --size B=1,H=3,N=97,d=128,causal=1
done
tar -C "$OUT" -czf "$OUT/acc.tgz" acc

# The table: median ms, TFLOP/s or GB/s, spread, correctness.
python3 - "$R" <<'PY'
import glob, json, os, sys
R = sys.argv[1]
for f in sorted(glob.glob(R + "/json/*.json")):
    for r in json.load(open(f)).get("runs", []):
        t = r.get("timing") or {}
        c = r.get("correctness") or {}
        rates = r.get("rates") or {}
        rate, unit = rates.get("tflops") or 0, "TF/s"
        if rate < 1 and rates.get("gbps"):
            rate, unit = rates["gbps"], "GB/s"
        sz = ",".join(f"{k}={v}" for k, v in r.get("sizes", {}).items())
        err = str((r.get("error") or {}).get("message", r.get("error")) if isinstance(r.get("error"), dict) else (r.get("error") or ""))[:60]
        print(f"{os.path.basename(f)[:-5][:30]:30} {r.get('rung','')[:18]:18} {sz[:34]:34} "
              f"{t.get('median_ms', 0):9.4f} ms {rate:8.1f} {unit} sp {100 * t.get('rel_spread', 0):4.1f}% "
              f"{'ok' if c.get('passed') else 'FAIL' if c else '-'} {err}")
PY
cat "$R/summary.txt"; cat "$R/device.txt"
