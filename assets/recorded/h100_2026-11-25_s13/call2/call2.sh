#!/usr/bin/env bash
# Session 13, call 2: power and SM clock sampled (nvidia-smi, every 50 ms) through long timed runs
# (20,000 repetitions, about 4 s each) of cuBLAS and rung 18 (default, and NARROW) at 4096^3,
# alternated three times: does rung 18 draw the same power at a lower clock (more energy per FLOP),
# or run at cuBLAS's clock (the difference is cycles)?
K=.carry-s13/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
S="-s M=4096,N=4096,K=4096 --dtype bf16 --no-check --warmup 50 --reps 20000"
nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader | tee "$OUT/nvidia-smi.txt"
"$K" run matmul -r cublas_bf16 -r wgmma_tma_store_bf16 -s M=1024,N=1024,K=1024 --dtype bf16 --reps 1 > /dev/null 2>&1
"$K" run matmul -r wgmma_tma_store_bf16 -p NARROW=1 -p FULL_ROUNDS=0 -s M=1024,N=1024,K=1024 --dtype bf16 --reps 1 > /dev/null 2>&1
for r in 1 2 3; do
  for f in cublas r18 narrow; do
    case $f in
      cublas) A="-r cublas_bf16";;
      r18) A="-r wgmma_tma_store_bf16";;
      narrow) A="-r wgmma_tma_store_bf16 -p NARROW=1 -p FULL_ROUNDS=0";;
    esac
    nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu --format=csv,noheader,nounits -lms 50 \
      > "$OUT/smi_${f}_$r.csv" &
    P=$!
    sleep 0.3
    # shellcheck disable=SC2086
    "$K" run matmul $A $S > "$OUT/run_${f}_$r.txt" 2>&1
    sleep 0.2
    kill $P; wait $P 2>/dev/null
  done
done
python3 - "$OUT" <<'PY'
import sys, glob, os, statistics as st
out = sys.argv[1]
print(f"{'form':8} {'round':>5} {'median ms':>10} {'W mean':>7} {'MHz mean':>8} {'MHz min':>7} samples")
for r in (1, 2, 3):
    for f in ("cublas", "r18", "narrow"):
        rows = [l.split(",") for l in open(f"{out}/smi_{f}_{r}.csv") if l.count(",") >= 3]
        vals = [(float(x[1]), float(x[2])) for x in rows if x[1].strip().replace(".", "").isdigit()]
        busy = [v for v in vals if v[0] > 300]  # samples while the GEMM runs
        ms = "?"
        for line in open(f"{out}/run_{f}_{r}.txt"):
            p = line.split()
            if p and p[0] in ("cublas_bf16", "wgmma_tma_store_bf16"):
                ms = next((x for x in p if x.replace(".", "").isdigit() and "." in x), "?")
        if busy:
            print(f"{f:8} {r:5} {ms:>10} {st.mean(v[0] for v in busy):7.1f} {st.mean(v[1] for v in busy):8.0f} "
                  f"{min(v[1] for v in busy):7.0f} {len(busy)}/{len(vals)}")
        else:
            print(f"{f:8} {r:5} {ms:>10} no busy samples ({len(vals)})")
PY
