#!/usr/bin/env bash
# Issue 20, fp32 (seventh session), device call 1, from the repo root there with the programs,
# kernels/ and lessons/ in $CARRY (scripts/pack_for_gpu.sh, then kernels/ and lessons/ copied in):
# correctness of rung 19 at the six check sizes, timings against cublas_fp32 in the same call,
# ncu stall sampling (rung 16 at 4096^3, rungs 14 and 19 at 2047 x 2049 x 1023, cuBLAS at both),
# SASS of the cached cubins. Results under $OUT, a table last. It ran with rung 19's first
# defaults (BN=128 WM=64 WN=64 STREAMK=2 FMA_ORDER=0): add those -p values to repeat it.
set -uo pipefail
C=${CARRY:-.carry-sgemm}; K=$C/kladder; export XDG_CACHE_HOME=/tmp/kl-cache
L=/tmp/kl-logs; mkdir -p $L/parts $L/ncu $L/sass
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm --format=csv,noheader | tee $L/nvidia-smi.txt
date -u | tee -a $L/nvidia-smi.txt
N=0
run() {  # group size rung [kladder options...]
  local g=$1 s=$2 r=$3; shift 3; N=$((N + 1))
  $K run matmul --rung "$r" --size "$s" "$@" --json "$L/parts/${g}_$(printf %03d $N).json" >> "$L/run_$g.txt" 2>&1 ||
    echo "$g $s $r $*: exit $?" | tee -a $L/summary.txt
}
P="-p"
# 1. correctness of the new rung at the odd sizes first (one process per size)
for s in M=1,N=1,K=1 M=127,N=255,K=63 M=1000,N=1000,K=1000 M=1024,N=2048,K=512 M=2047,N=2049,K=1023 M=4097,N=4097,K=4097; do
  for v in "" "-p BK=16" "-p BK=16 -p STAGES=4 -p STREAMK=1"; do run check $s double_buffer_at_streamk $v --warmup 0 --reps 1; done
done
# 2. timings, cuBLAS first and again at the end of each set
S=M=4096,N=4096,K=4096
run big $S cublas_fp32; run big $S double_buffer_at
for v in "-p STREAMK=0" "-p STREAMK=0 -p BK=16" "-p STREAMK=0 -p BK=16 -p FMA_ORDER=3" "" "-p BK=16" "-p BK=16 -p STAGES=4" "-p FMA_ORDER=2" "-p BK=16 -p FMA_ORDER=3"; do
  run big $S double_buffer_at_streamk $v; done
run big $S cublas_fp32; run big $S double_buffer_at; run big $S double_buffer_at_streamk; run big $S double_buffer_at_streamk -p BK=16
for S in M=2047,N=2049,K=1023 M=4097,N=4097,K=4097; do
  run odd $S cublas_fp32; run odd $S double_buffer_streamk --timeline; run odd $S double_buffer_at_streamk --timeline
  for v in "-p BK=16" "-p STREAMK=0" "-p STREAMK=1" "-p BK=16 -p STAGES=4" "-p FMA_ORDER=2"; do run odd $S double_buffer_at_streamk $v; done
  run odd $S cublas_fp32; run odd $S double_buffer_at_streamk
done
# 3. ncu: stall sampling by SASS line, launch geometry, one launch each
prof() {  # name regex size rung [params]
  local n=$1 re=$2 s=$3 r=$4; shift 4
  timeout 120 ncu --clock-control none --section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats \
    ${SRC:---section SourceCounters} --section ComputeWorkloadAnalysis -k "regex:$re" --launch-count ${LC:-1} -f -o /tmp/$n \
    $K run matmul --rung $r --size $s "$@" --no-check --warmup 0 --reps 1 > $L/ncu/${n}_run.txt 2>&1
  echo "ncu $n: exit $?" | tee -a $L/summary.txt
  ncu -i /tmp/$n.ncu-rep --page details > $L/ncu/${n}_details.txt 2>&1
  ncu -i /tmp/$n.ncu-rep --page source --csv --print-source sass > $L/ncu/${n}_sass.csv 2>&1
}
prof r16_4096 matmul_double_buffer_at M=4096,N=4096,K=4096 double_buffer_at
SRC=" " prof cublas_4096 'gemm|xmma|sgemm' M=4096,N=4096,K=4096 cublas_fp32
LC=2 prof r14_odd 'matmul_double_buffer' M=2047,N=2049,K=1023 double_buffer_streamk
SRC=" " prof cublas_odd 'gemm|xmma|sgemm' M=2047,N=2049,K=1023 cublas_fp32
LC=2 prof r19_odd 'matmul_' M=2047,N=2049,K=1023 double_buffer_at_streamk
# 4. SASS of every cached cubin (NVRTC, the device's CUDA 13.0)
for c in /tmp/kl-cache/kernel-ladder/kernels/*.cubin; do
  cuobjdump -sass "$c" > $L/sass/$(basename $c .cubin).sass 2>&1
done
grep -l "matmul_double_buffer_at\b\|matmul_double_buffer_at_streamk\|matmul_double_buffer_streamk" $L/sass/*.sass | head -20 > $L/sass/index.txt
python3 - $L <<'PY'
import glob, json, os, sys
L = sys.argv[1]
runs = []
for f in sorted(glob.glob(os.path.join(L, "parts", "*.json"))):
    g = os.path.basename(f).split("_")[0]
    for r in json.load(open(f))["runs"]: r["_g"] = g; runs.append(r)
ref = {}
out = []
for r in runs:
    s = r["sizes"]; t = r.get("timing") or {}
    r["_tf"] = 2 * s["M"] * s["N"] * s["K"] / t["median_ms"] / 1e9 if t.get("median_ms") else 0
    if r["rung"] == "cublas_fp32" and r["_g"] != "check": ref.setdefault((s["M"], s["N"], s["K"]), []).append(r["_tf"])
for r in runs:
    s = r["sizes"]; c = r.get("correctness") or {}; t = r.get("timing") or {}
    base = max(ref.get((s["M"], s["N"], s["K"]), [float("nan")]))
    prm = " ".join(f"{k}={v}" for k, v in sorted(r.get("params", {}).items()) if k in ("BK", "STAGES", "STREAMK", "FMA_ORDER"))
    ok = "PASS" if c.get("passed") else "FAIL " + str(c.get("summary", r.get("error", "")))[:50]
    if r["_g"] == "check":
        out.append(f"check {s['M']}x{s['N']}x{s['K']} {r['rung']} {prm} {ok} rel={c.get('rel_l2', c.get('error_rel_l2', ''))}")
    else:
        out.append(f"{s['M']}x{s['N']}x{s['K']} {r['rung']:24s} {prm:34s} {t.get('median_ms', float('nan')):8.4f} ms {r['_tf']:6.2f} TF {r['_tf'] / base:6.3f}x {ok}")
open(os.path.join(L, "table.txt"), "w").write("\n".join(out) + "\n")
json.dump(runs, open(os.path.join(L, "runs.json"), "w"), indent=1)
PY
cp $L/table.txt $L/summary.txt $OUT/ 2>/dev/null
(cd $L && tar czf $OUT/logs.tgz --exclude=parts ./*.txt ./runs.json ./ncu ./sass)
grep -h "Duration\|Registers Per\|Grid Size\|Block Size\|Function Name\|^  [a-z_]*gemm\|^  matmul\|Issue Slots Busy\|No Eligible\|Static Shared\|Dynamic Shared" $L/ncu/*_details.txt | head -60
grep -h -A12 "Timeline\|timeline" $L/run_odd.txt | head -40
cat $L/summary.txt 2>/dev/null
cat $L/table.txt
