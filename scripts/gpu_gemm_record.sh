#!/usr/bin/env bash
# Issue 20 in one device call: correctness of the new matmul rungs (GPU test, then
# compute-sanitizer memcheck and racecheck at a small odd size), then recordings, each size set
# with the cuBLAS rungs in the same call: 4096^3, 8192^3, the odd sizes (2047 x 2049 x 1023,
# 4097^3) and lesson 5's cliff (1792, 1793, 2048, 2049). From the repo root there, with the
# programs, kernels/, lessons/ and assets/ in $CARRY (default .carry). Results under $OUT; a
# table last.
set -uo pipefail
OUT=${OUT:-/tmp/kl-out}; mkdir -p "$OUT/parts"
C=${CARRY:-.carry}
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
BF16_NEW=${BF16_NEW:-"wgmma_streamk_bf16"}
FP32_NEW=${FP32_NEW:-"double_buffer_streamk"}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/nvidia-smi.txt"
timeout 300 $C/test_gpu --gtest_filter="${TEST_FILTER:-*StreamK*:*DoubleBufferRungs*}" > "$OUT/test_gpu.log" 2>&1
echo "test_gpu: exit $?" | tee -a "$OUT/summary.txt"
for r in $BF16_NEW $FP32_NEW; do
  for tool in memcheck racecheck; do
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $K run matmul --rung "$r" --size M=257,N=513,K=127 \
      --warmup 0 --reps 1 > "$OUT/sanitizer_${tool}_$r.txt" 2>&1
    echo "compute-sanitizer $tool $r 257x513x127: exit $?" | tee -a "$OUT/summary.txt"
  done
done
run() {  # group rung size [params...]
  local g=$1 r=$2 s=$3; shift 3
  local name="${g}_$(echo "$s" | tr -d 'MNK=' | tr ',' 'x')_${r}$(echo "$*" | sed 's/-p STREAMK=/_sk/')"
  $K run matmul --rung "$r" --size "$s" "$@" --json "$OUT/parts/$name.json" >> "$OUT/run_$g.txt" 2>&1 ||
    echo "$g $s $r $*: failed" | tee -a "$OUT/summary.txt"
}
set_for() {  # group size [bf16]
  run "$1" cublas_bf16 "$2"; run "$1" wgmma_tma_bf16 "$2"
  for r in $BF16_NEW; do run "$1" "$r" "$2"; run "$1" "$r" "$2" -p STREAMK=0; run "$1" "$r" "$2" -p STREAMK=2; done
  [ "${3:-}" = bf16 ] && return
  run "$1" cublas_fp32 "$2"; run "$1" double_buffer "$2"
  for r in $FP32_NEW; do run "$1" "$r" "$2"; run "$1" "$r" "$2" -p STREAMK=0; run "$1" "$r" "$2" -p STREAMK=2; done
}
set_for big M=4096,N=4096,K=4096
set_for big8 M=8192,N=8192,K=8192
set_for odd M=2047,N=2049,K=1023
set_for odd M=4097,N=4097,K=4097
for n in 1792 1793 2048 2049; do set_for cliff "M=$n,N=$n,K=$n" bf16; done
python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
cmd = "scripts/gpu_gemm_record.sh (one device call): kladder run matmul --rung R [--param STREAMK=0|2] --size S --json ..., merged; "
def merge(group, name, what):
    files = sorted(glob.glob(os.path.join(out, "parts", group + "_*.json")))
    if not files: return
    doc = json.load(open(files[0]))
    for f in files[1:]: doc["runs"] += json.load(open(f))["runs"]
    doc["command"] = cmd + what
    json.dump(doc, open(os.path.join(out, name), "w"), indent=1)
merge("big", "h100_matmul_streamk_4096.json", "S = 4096^3")
merge("big8", "h100_matmul_streamk_8192.json", "S = 8192^3")
merge("odd", "h100_matmul_streamk_odd.json", "S = 2047 x 2049 x 1023 and 4097^3")
merge("cliff", "h100_matmul_streamk_cliff.json", "S = 1792^3, 1793^3, 2048^3, 2049^3")
for name in ("h100_matmul_streamk_4096.json", "h100_matmul_streamk_8192.json", "h100_matmul_streamk_odd.json", "h100_matmul_streamk_cliff.json"):
    p = os.path.join(out, name)
    if not os.path.exists(p): print(name, "missing"); continue
    print("==", name)
    ref = {}
    runs = json.load(open(p))["runs"]
    for r in runs:
        s = r["sizes"]; t = r.get("timing") or {}
        r["_tf"] = 2 * s["M"] * s["N"] * s["K"] / t["median_ms"] / 1e9 if t.get("median_ms") else 0
        if r["rung"].startswith("cublas"): ref[(s["M"], s["N"], s["K"], r["dtype"])] = r["_tf"]
    for r in runs:
        s = r["sizes"]; c = r.get("correctness") or {}; t = r.get("timing") or {}
        base = ref.get((s["M"], s["N"], s["K"], r["dtype"])) or float("nan")
        extra = " STREAMK=%d" % r["params"]["STREAMK"] if "STREAMK" in r.get("params", {}) else ""
        print(f"{s['M']}x{s['N']}x{s['K']} {r['dtype']:4s} {r['rung'] + extra:30s} {t.get('median_ms', float('nan')):9.4f} ms {r['_tf']:7.1f} TFLOP/s {r['_tf'] / base:6.3f}x spread {t.get('spread_pct', float('nan')) if isinstance(t.get('spread_pct'), float) else '':} {'PASS' if c.get('passed') else 'FAIL ' + str(c.get('summary', r.get('error', '')))[:80]}")
PY
(cd "$OUT" && tar czf logs.tgz ./*.txt ./*.log 2>/dev/null; rm -rf parts)
cat "$OUT/summary.txt"
tail -5 "$OUT/test_gpu.log"
