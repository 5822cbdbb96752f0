#!/usr/bin/env bash
# Issue 20, the cluster rung (15) and the fp32 top, in one device call: correctness (the GPU
# test, then compute-sanitizer memcheck and racecheck at small odd and aligned sizes), then
# timings, each size set with the cuBLAS rungs in the same call, and the SASS of the cubins in
# $CARRY (rungs compiled here with nvcc at their defaults). From the repo root there, with the programs, kernels/, lessons/
# in $CARRY. Results under $OUT; a table last. PHASES picks parts (default: all).
set -uo pipefail
OUT=${OUT:-/tmp/kl-out}; mkdir -p "$OUT/parts"
C=${CARRY:-.carry-gemm}
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
PHASES=${PHASES:-"test sanitize big big8 odd fp32 sass"}
SAN_RUNGS=${SAN_RUNGS:-"wgmma_cluster_bf16 wgmma_pingpong_bf16 double_buffer_at"}
BF16_TOP=${BF16_TOP:-"wgmma_cluster_bf16 wgmma_pingpong_bf16"}  # timed at every size; variants go to the last
has() { case " $PHASES " in *" $1 "*) return 0;; esac; return 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/nvidia-smi.txt"
if has test; then
  timeout 300 $C/test_gpu --gtest_filter="${TEST_FILTER:-*ClusterRung*:*TransposedARung*}" > "$OUT/test_gpu.log" 2>&1
  echo "test_gpu: exit $?" | tee -a "$OUT/summary.txt"
fi
if has sanitize; then
  for s in M=257,N=513,K=127 M=384,N=512,K=192; do
    for tool in memcheck racecheck; do
      for r in $SAN_RUNGS; do
        timeout 100 compute-sanitizer --tool $tool --error-exitcode 9 $K run matmul --rung $r --size "$s" \
          --warmup 0 --reps 1 > "$OUT/sanitizer_${tool}_${r}_$s.txt" 2>&1
        echo "compute-sanitizer $tool $r $s: exit $? ($(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' "$OUT/sanitizer_${tool}_${r}_$s.txt"))" | tee -a "$OUT/summary.txt"
      done
    done
  done
fi
N_RUN=0
run() {  # group rung size [params...]
  local g=$1 r=$2 s=$3; shift 3
  N_RUN=$((N_RUN + 1))
  local name="${g}_$(printf %03d $N_RUN)_$(echo "$s" | tr -d 'MNK=' | tr ',' 'x')_${r}$(echo "$*" | tr -d ' =-' )"
  $K run matmul --rung "$r" --size "$s" "$@" --json "$OUT/parts/$name.json" >> "$OUT/run_$g.txt" 2>&1 ||
    echo "$g $s $r $*: failed" | tee -a "$OUT/summary.txt"
}
bf16_set() {  # group size [extra variants of the last rung of BF16_TOP...]
  local g=$1 s=$2 last=${BF16_TOP##* }; shift 2
  run "$g" cublas_bf16 "$s"; run "$g" wgmma_tma_bf16 "$s"
  for r in $BF16_TOP; do run "$g" "$r" "$s"; done
  for v in "$@"; do run "$g" "$last" "$s" $v; done
  run "$g" cublas_bf16 "$s"; for r in $BF16_TOP; do run "$g" "$r" "$s"; done  # again: the order's drift
}
has big && bf16_set big M=4096,N=4096,K=4096 "-p CLUSTER=1" "-p STAGES=4"
has big8 && bf16_set big8 M=8192,N=8192,K=8192 "-p CLUSTER=1"
if has odd; then
  for s in M=2047,N=2049,K=1023 M=4097,N=4097,K=4097; do
    bf16_set odd "$s"; run odd wgmma_streamk_bf16 "$s"
    run odd cublas_fp32 "$s"; run odd double_buffer "$s"; run odd double_buffer_streamk "$s"; run odd double_buffer_streamk "$s" -p STREAMK=0
  done
fi
if has fp32; then
  s=M=4096,N=4096,K=4096
  run fp32 cublas_fp32 $s; run fp32 double_buffer $s; run fp32 double_buffer_at $s
  for v in "-p STAGES=4" "-p GROUP=16" "-p BK=16 -p STAGES=2"; do
    run fp32 double_buffer_at $s $v
  done
  run fp32 cublas_fp32 $s; run fp32 double_buffer $s; run fp32 double_buffer_at $s
fi
if has sass; then
  for c in $C/*.cubin; do
    b=$(basename "$c" .cubin); cuobjdump -sass "$c" > "$OUT/sass_$b.txt" 2>&1
    echo "$b SASS: $(grep -c FFMA "$OUT/sass_$b.txt") FFMA, $(grep -c 'LDS.128' "$OUT/sass_$b.txt") LDS.128, $(grep -c LDGSTS "$OUT/sass_$b.txt") LDGSTS, $(grep -cE 'SYNCS|MEMBAR|CCTL' "$OUT/sass_$b.txt") SYNCS/MEMBAR/CCTL, $(wc -l < "$OUT/sass_$b.txt") lines" | tee -a "$OUT/summary.txt"
  done
fi
python3 - "$OUT" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
cmd = "scripts/gpu_gemm_cluster.sh (one device call): kladder run matmul --rung R [--param P=V] --size S --json ..., merged; "
def merge(group, name, what):
    files = sorted(glob.glob(os.path.join(out, "parts", group + "_*.json")), key=os.path.getmtime)
    if not files: return
    doc = json.load(open(files[0]))
    for f in files[1:]: doc["runs"] += json.load(open(f))["runs"]
    doc["command"] = cmd + what
    json.dump(doc, open(os.path.join(out, name), "w"), indent=1)
names = [("big", "h100_matmul_cluster_4096.json", "S = 4096^3"), ("big8", "h100_matmul_cluster_8192.json", "S = 8192^3"),
         ("odd", "h100_matmul_cluster_odd.json", "S = 2047 x 2049 x 1023 and 4097^3"), ("fp32", "h100_matmul_fp32_4096.json", "S = 4096^3, fp32")]
for g, n, w in names: merge(g, n, w)
for _, name, _ in names:
    p = os.path.join(out, name)
    if not os.path.exists(p): continue
    print("==", name)
    ref = {}
    runs = json.load(open(p))["runs"]
    for r in runs:
        s = r["sizes"]; t = r.get("timing") or {}
        r["_tf"] = 2 * s["M"] * s["N"] * s["K"] / t["median_ms"] / 1e9 if t.get("median_ms") else 0
        if r["rung"].startswith("cublas"): ref.setdefault((s["M"], s["N"], s["K"], r["dtype"]), r["_tf"])
    for r in runs:
        s = r["sizes"]; c = r.get("correctness") or {}; t = r.get("timing") or {}
        base = ref.get((s["M"], s["N"], s["K"], r["dtype"])) or float("nan")
        prm = " ".join(f"{k}={v}" for k, v in sorted(r.get("params", {}).items()))
        print(f"{s['M']}x{s['N']}x{s['K']} {r['rung']:22s} {prm[:40]:40s} {t.get('median_ms', float('nan')):8.4f} ms {r['_tf']:6.1f} TF {r['_tf'] / base:6.3f}x {'PASS' if c.get('passed') else 'FAIL ' + str(c.get('summary', r.get('error', '')))[:60]}")
PY
(cd "$OUT" && tar czf logs.tgz ./*.txt ./*.log 2>/dev/null; rm -rf parts; cp summary.txt summary.keep; rm -f ./*.txt ./*.log; mv summary.keep summary.txt)
cat "$OUT/summary.txt"; mkdir -p /tmp/kl-logs; tar xzf "$OUT/logs.tgz" -C /tmp/kl-logs
grep -E "^\[  (PASSED|FAILED)|FAILED" /tmp/kl-logs/test_gpu.log | head
for f in /tmp/kl-logs/timeline_*.txt; do echo "== $f"; tail -8 "$f"; done
