#!/usr/bin/env bash
# Issue 20, fp32 (seventh session), device call 2, from the repo root there ($CARRY as in
# scripts/gpu_fp32_profile.sh): the recording (each size set with cublas_fp32 first and last in
# the same call), then rung 19's GPU test and compute-sanitizer memcheck and racecheck at a small
# odd size. Results under $OUT, a table last. It ran with rung 19's first defaults (BN=128 WM=64
# WN=64 STREAMK=2 FMA_ORDER=2); "$NARROW" is today's default.
set -uo pipefail
C=${CARRY:-.carry-sgemm}; K=$C/kladder; export XDG_CACHE_HOME=/tmp/kl-cache
L=/tmp/kl-logs; mkdir -p $L/parts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $L/nvidia-smi.txt; date -u | tee -a $L/nvidia-smi.txt
N=0
run() {  # group size rung [kladder options...]
  local g=$1 s=$2 r=$3; shift 3; N=$((N + 1))
  $K run matmul --rung "$r" --size "$s" "$@" --json "$L/parts/${g}_$(printf %03d $N).json" >> "$L/run_$g.txt" 2>&1 ||
    echo "$g $s $r $*: exit $?" | tee -a $L/summary.txt
}
NARROW="-p BN=64 -p WM=32 -p WN=64 -p STREAMK=0"
# 1. recording first (the GPU is cool and idle), cuBLAS first and last in each set
S=M=4096,N=4096,K=4096
run r4096 $S cublas_fp32; run r4096 $S double_buffer_at; run r4096 $S double_buffer
run r4096 $S double_buffer_at_streamk; run r4096 $S double_buffer_at_streamk -p STREAMK=0
run r4096 $S double_buffer_at_streamk -p STREAMK=0 -p FMA_ORDER=0; run r4096 $S double_buffer_at_streamk -p STREAMK=1
run r4096 $S double_buffer_at_streamk $NARROW
run r4096 $S double_buffer_at_streamk -p STREAMK=0 -p FMA_ORDER=1; run r4096 $S double_buffer_at_streamk -p STREAMK=0 -p FMA_ORDER=3
run r4096 $S cublas_fp32; run r4096 $S double_buffer_at; run r4096 $S double_buffer_at_streamk -p STREAMK=0
S=M=2047,N=2049,K=1023
run rodd $S cublas_fp32; run rodd $S double_buffer_streamk; run rodd $S double_buffer_at_streamk --timeline
run rodd $S double_buffer_at_streamk -p FMA_ORDER=0; run rodd $S double_buffer_at_streamk $NARROW --timeline
run rodd $S double_buffer_at_streamk -p BN=64 -p WM=64 -p WN=32 -p STREAMK=0 -p FMA_ORDER=0
run rodd $S double_buffer_at_streamk -p BN=64 -p WM=32 -p WN=64 -p TM=4 -p TN=8 -p STREAMK=0 -p FMA_ORDER=0
run rodd $S cublas_fp32; run rodd $S double_buffer_at_streamk $NARROW; run rodd $S double_buffer_at_streamk
S=M=4097,N=4097,K=4097
run rodd $S cublas_fp32; run rodd $S double_buffer_streamk; run rodd $S double_buffer_at_streamk
run rodd $S double_buffer_at_streamk -p FMA_ORDER=0; run rodd $S double_buffer_at_streamk -p STREAMK=0
run rodd $S double_buffer_at_streamk $NARROW; run rodd $S cublas_fp32; run rodd $S double_buffer_at_streamk
# 2. correctness: the GPU test of rung 19 (10 sizes x 9 variants), sanitizers at a small odd size
timeout 150 $C/test_gpu --gtest_filter='*TransposedStreamKRung*' > $L/test_gpu.log 2>&1
echo "test_gpu TransposedStreamKRung: exit $? ($(grep -E '^\[  (PASSED|FAILED)' $L/test_gpu.log | tr '\n' ' '))" | tee -a $L/summary.txt
for v in "" "$NARROW"; do
  for tool in memcheck racecheck; do
    [ -n "$v" ] && [ $tool = racecheck ] && continue
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $K run matmul --rung double_buffer_at_streamk $v \
      --size M=257,N=513,K=127 --warmup 0 --reps 1 > $L/sanitizer_${tool}_$(echo "x$v" | tr -d ' =-').txt 2>&1
    echo "compute-sanitizer $tool rung19 [$v] 257x513x127: exit $? ($(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' $L/sanitizer_${tool}_$(echo "x$v" | tr -d ' =-').txt))" | tee -a $L/summary.txt
  done
done
python3 - $L $OUT <<'PY'
import glob, json, os, sys
L, OUT = sys.argv[1], sys.argv[2]
cmd = ".carry-sgemm/call2.sh (one device call, sgemm seventh session): kladder run matmul --rung R [--param P=V ...] --size S --json ..., merged; "
out = []
for g, name, what in (("r4096", "h100_matmul_fp32_s7_4096.json", "S = 4096^3"), ("rodd", "h100_matmul_fp32_s7_odd.json", "S = 2047 x 2049 x 1023 and 4097^3")):
    files = sorted(glob.glob(os.path.join(L, "parts", g + "_*.json")))
    if not files: continue
    doc = json.load(open(files[0]))
    for f in files[1:]: doc["runs"] += json.load(open(f))["runs"]
    doc["command"] = cmd + what
    json.dump(doc, open(os.path.join(OUT, name), "w"), indent=1)
    ref = {}
    for r in doc["runs"]:
        s = r["sizes"]; t = r.get("timing") or {}
        r["_tf"] = 2 * s["M"] * s["N"] * s["K"] / t["median_ms"] / 1e9 if t.get("median_ms") else 0
        if r["rung"] == "cublas_fp32": ref.setdefault((s["M"], s["N"], s["K"]), []).append(r["_tf"])
    for r in doc["runs"]:
        s = r["sizes"]; c = r.get("correctness") or {}; t = r.get("timing") or {}
        base = ref.get((s["M"], s["N"], s["K"]), [float("nan")])
        prm = " ".join(f"{k}={v}" for k, v in sorted(r.get("params", {}).items()) if k in ("BN", "WM", "WN", "TM", "TN", "STREAMK", "FMA_ORDER"))
        ok = "PASS" if c.get("passed") else "FAIL " + str(c.get("summary", r.get("error", "")))[:50]
        out.append(f"{s['M']}x{s['N']}x{s['K']} {r['rung']:24s} {prm:44s} {t.get('median_ms', float('nan')):7.4f} ms {r['_tf']:6.2f} TF {r['_tf'] / max(base):6.3f}x (vs {min(base):.2f}-{max(base):.2f}) {ok}")
open(os.path.join(L, "table.txt"), "w").write("\n".join(out) + "\n")
PY
cp $L/table.txt $L/summary.txt $OUT/
(cd $L && tar czf $OUT/logs.tgz --exclude=parts ./*.txt ./*.log)
grep -h -B2 -A10 -i "timeline" $L/run_rodd.txt | grep -v "^$" | head -30
cat $L/summary.txt; cat $L/table.txt
