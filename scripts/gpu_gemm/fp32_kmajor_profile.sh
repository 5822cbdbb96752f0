#!/usr/bin/env bash
# Issue 20, fp32 (eleventh session), device call 2: why matmul rung 21 (A read along K) runs at
# 0.76x of cuBLAS where its loop has rung 16's instruction count. Nsight Compute on rung 16's GEMM
# and rung 21 at 4096^3 (issue and stall reasons, shared-memory bank conflicts), the SASS of both
# NVRTC cubins read by scripts/sass_loop_stats.py (FFMA register-bank statistics), and a variant
# file run beside rung 21 by `kladder try` (VARIANT), alternated with cuBLAS and rung 16.
#   scripts/gpu_gemm/fp32_kmajor_profile.sh <carry folder>   (results under $OUT)
set -uo pipefail
C=${1:?carry folder}; K=$C/kladder; export XDG_CACHE_HOME=/tmp/kl-cache
VARIANT=${VARIANT:-$C/variants/fragments_in_place.cu}
L=/tmp/kl-logs; mkdir -p $L/ncu $L/sass $L/runs
say() { echo "$*" | tee -a $L/summary.txt; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm --format=csv,noheader | tee $L/nvidia-smi.txt
date -u +%FT%TZ | tee -a $L/nvidia-smi.txt
S=M=4096,N=4096,K=4096
for round in 1 2 3; do
  for r in cublas_fp32 double_buffer_at double_buffer_a_kmajor; do
    timeout 100 "$K" run matmul -r $r -s $S --dtype fp32 --timeline --json $L/runs/r${round}_$r.json > $L/runs/r${round}_$r.txt 2>&1
    say "round $round $r: $(grep -m1 -E "^ *$r " $L/runs/r${round}_$r.txt | tr -s ' ' | cut -c1-150)"
  done
  timeout 200 "$K" try matmul "$VARIANT" --like double_buffer_a_kmajor -s $S --dtype fp32 > $L/runs/r${round}_try.txt 2>&1
  say "round $round try: exit $? $(grep -E 'ms|PASS|FAIL' $L/runs/r${round}_try.txt | tr -s ' ' | head -4 | tr '\n' '|')"
done
prof() {  # name kernel-regex rung
  timeout 150 ncu --clock-control none --section LaunchStats --section Occupancy --section SpeedOfLight \
    --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis_Tables \
    -k "regex:$2" --launch-count 1 -f -o "/tmp/$1" "$K" run matmul -r "$3" -s $S --dtype fp32 --no-check --warmup 0 --reps 1 \
    > "$L/ncu/$1_run.txt" 2>&1
  say "ncu $1: exit $?"
  ncu -i "/tmp/$1.ncu-rep" --page details > "$L/ncu/$1_details.txt" 2>&1
  ncu -i "/tmp/$1.ncu-rep" --page raw --csv > "$L/ncu/$1_raw.csv" 2>&1
}
prof r16 'matmul_double_buffer_at$' double_buffer_at
prof r21 'matmul_double_buffer_a_kmajor' double_buffer_a_kmajor
for c in /tmp/kl-cache/kernel-ladder/kernels/*.cubin; do
  cuobjdump -sass "$c" > "$L/sass/$(basename "$c" .cubin).sass" 2>&1
done
grep -l -E "matmul_double_buffer_(at|a_kmajor)\b" $L/sass/*.sass | while read -r f; do
  say "sass $(basename "$f"): $(python3 scripts/sass_loop_stats.py --text "$f" 2>&1 | grep -E '^matmul' | tr '\n' ' ')"
done
(cd $L && tar czf "$OUT/logs.tgz" ./*.txt ./ncu ./sass ./runs)
for n in r16 r21; do
  say "== $n"; grep -E "Issue Slots Busy|No Eligible|Active Warps Per|Eligible Warps|Registers Per|Duration|Warp Cycles Per Issued|Bank" $L/ncu/${n}_details.txt | head -14 | tee -a $L/summary.txt
done
python3 - $L <<'PY' | tee -a $L/summary.txt
import csv, sys
for n in ("r16", "r21"):
    rows = list(csv.reader(open(f"{sys.argv[1]}/ncu/{n}_raw.csv")))
    if len(rows) < 3: print(n, "no raw metrics"); continue
    head, val = rows[0], rows[2]
    keep = [(h, v) for h, v in zip(head, val) if "issue_stalled" in h and h.endswith("per_issue_active.ratio")]
    keep.sort(key=lambda hv: -float(hv[1].replace(",", "") or 0))
    print(n, "warps stalled per issued instruction:", ", ".join(f"{h.split('stalled_')[1].split('_per')[0]} {float(v.replace(',', '')):.3f}" for h, v in keep[:9]))
PY
