#!/usr/bin/env bash
# Records the matmul ladder on the GPU machine in one device call (what assets/recorded/
# h100_matmul{,_8192,_cliff}.json and docs/benchmarks.md hold): the GPU tests, calibration, the
# whole ladder at 4096^3, every rung but naive at 8192^3, the size cliff for cuBLAS and the best
# rungs, and the PyTorch peers in the same call. From the repo root there, after
# scripts/pack_for_gpu.sh here, with carry [".carry"]. Results under $OUT; a table last.
set -uo pipefail
OUT=${OUT:-/tmp/kl-out}; mkdir -p "$OUT/parts"
K=.carry/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/nvidia-smi.txt"
.carry/test_gpu --gtest_filter='*Matmul*:*EveryRung*' > "$OUT/test_gpu.log" 2>&1; echo "test_gpu: exit $?" | tee -a "$OUT/summary.txt"
$K calibrate --force > "$OUT/calibrate.txt" 2>&1
cube() { echo "M=$1,N=$1,K=$1"; }
$K run matmul --size "$(cube 4096)" --json "$OUT/h100_matmul.json" > "$OUT/run_4096.txt" 2>&1; echo "run 4096: exit $?" | tee -a "$OUT/summary.txt"
rungs=$($K list rungs --ladder matmul 2>/dev/null | awk '$1 ~ /^[0-9]+$/ {print $2}')
rungs_8192=$(echo "$rungs" | grep -vx naive)
for r in $rungs_8192; do
  $K run matmul --rung "$r" --size "$(cube 8192)" --json "$OUT/parts/8192_$r.json" >> "$OUT/run_8192.txt" 2>&1 || echo "8192 $r: failed" | tee -a "$OUT/summary.txt"
done
# Correctness at the odd and mixed sizes the issue names (1^3, 127x255x63, 1000^3 are in test_gpu).
for size in M=4097,N=4097,K=4097 M=1024,N=2048,K=512; do
  name=$(echo "$size" | tr -d 'MNK=' | tr ',' 'x')  # 4097x4097x4097: letters, digits and x only (the device tool's rule)
  $K run matmul --size "$size" --warmup 0 --reps 1 --json "$OUT/parts/check_$name.json" > "$OUT/check_$name.txt" 2>&1; echo "check $size: exit $?" | tee -a "$OUT/summary.txt"
done
for n in 1792 1793 2048 2049; do
  for r in cublas_bf16 wgmma_bf16 wgmma_tma_bf16 cublas_fp32 double_buffer; do
    $K run matmul --rung "$r" --size "$(cube $n)" --json "$OUT/parts/cliff_${n}_$r.json" >> "$OUT/run_cliff.txt" 2>&1 || echo "cliff $n $r: failed" | tee -a "$OUT/summary.txt"
  done
done
# The memory refusal lesson 8 quotes (naive attention at N = 32,768 needs S and P: 96 GiB).
for dt in bf16 fp32; do
  $K run attention --rung naive --size B=1,H=16,N=32768,d=64 --dtype $dt > "$OUT/refusal_$dt.txt" 2>&1; echo "naive attention N=32768 $dt: exit $? (2 expected)" | tee -a "$OUT/summary.txt"
done
[ -f .carry/peers.py ] && { timeout 300 python3 .carry/peers.py --quick --out "$OUT/peers.json" > "$OUT/peers.log" 2>&1; echo "peers: exit $?" >> "$OUT/summary.txt"; }
python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def merge(pattern, name, command):
    files = sorted(glob.glob(os.path.join(out, "parts", pattern)))
    if not files: return
    doc = json.load(open(files[0]))
    for f in files[1:]: doc["runs"] += json.load(open(f))["runs"]
    doc["command"] = command
    json.dump(doc, open(os.path.join(out, name), "w"), indent=1)
merge("8192_*.json", "h100_matmul_8192.json", "for r in <every rung but naive>: kladder run matmul --rung $r --size M=8192,N=8192,K=8192 --json ... (scripts/gpu_matmul_record.sh, one device call, merged; naive skipped: ~2.2 s per repetition)")
merge("cliff_*.json", "h100_matmul_cliff.json", "for n in 1792 1793 2048 2049; for r in cublas_bf16 wgmma_bf16 wgmma_tma_bf16 cublas_fp32 double_buffer: kladder run matmul --rung $r --size M=$n,N=$n,K=$n --json ... (scripts/gpu_matmul_record.sh, one device call, merged)")
def table(name):
    p = os.path.join(out, name)
    if not os.path.exists(p): print(name, "missing"); return
    runs = json.load(open(p))["runs"]
    print(f"== {name}")
    for r in runs:
        t = r.get("timing") or {}
        c = r.get("correctness") or {}
        size = r.get("sizes", {}).get("M")
        s = r.get("sizes", {})
        tflops = 2 * s.get("M", 0) * s.get("N", 0) * s.get("K", 0) / t["median_ms"] / 1e9 if t.get("median_ms") else 0
        print(f"{r['rung']:16s} {size!s:>5} {r.get('dtype',''):5s} {t.get('median_ms', float('nan')):9.4f} ms {tflops:8.1f} TFLOP/s  {'PASS' if c.get('passed') else (c or r.get('error',''))}")
for n in ("h100_matmul.json", "h100_matmul_8192.json", "h100_matmul_cliff.json"): table(n)
for f in sorted(glob.glob(os.path.join(out, "parts", "check_*.json"))):
    runs = json.load(open(f))["runs"]
    bad = [r["rung"] for r in runs if not (r.get("correctness") or {}).get("passed")]
    print(os.path.basename(f), f"{len(runs)} rungs,", "all PASS" if not bad else "FAIL: " + ", ".join(bad))
try:
    for r in json.load(open(os.path.join(out, "peers.json"))):
        if r.get("what") == "gemm": print("peer torch gemm", r["dtype"], r["n"], "%.1f TFLOP/s" % r["tflops"])
except Exception as e: print("peers:", e)
PY
(cd "$OUT" && tar czf logs.tgz ./*.txt ./*.log 2>/dev/null; rm -rf parts)
cat "$OUT"/refusal_*.txt
cat "$OUT/summary.txt"
