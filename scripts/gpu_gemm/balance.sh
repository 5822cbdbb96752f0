#!/usr/bin/env bash
# How evenly the SMs finish, and how many cycles each kernel takes: Nsight Compute's per-SM active
# cycles (min / avg / max over the 132 SMs) against the kernel's elapsed cycles, one launch each,
# for mlp rung 5 (TAIL 0, 1, 2), the unfused plan's cuBLAS GEMM, matmul rung 18 and cuBLAS at 4096^3
# and 8192^3. Cycles, not time: the comparison holds at whatever clock the power limit grants.
#   scripts/gpu_gemm/balance.sh <carry folder>   (holds kladder, the stripped kladder-core)
set -u
C=${1:?carry folder}; K=$C/kladder; export XDG_CACHE_HOME=/tmp/kl-cache-bal
M="sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,gpc__cycles_elapsed.max"
run() { # label, regex, kladder args...
  local label=$1 re=$2; shift 2
  timeout 120 ncu --clock-control none --metrics $M --kernel-name regex:"$re" -c 1 "$K" "$@" --reps 1 --warmup 0 --no-check > "/tmp/ncu_$label.txt" 2>&1
  python3 - "/tmp/ncu_$label.txt" "$label" <<'PY'
import sys, re
v = {}
for l in open(sys.argv[1]):
    m = re.match(r"\s+(\S+)\s+(\S+)\s+([\d,.]+)\s*$", l)
    if m: v[m.group(1)] = float(m.group(3).replace(",", ""))
try:
    mn, av, mx, el = (v["sm__cycles_active.min"], v["sm__cycles_active.avg"], v["sm__cycles_active.max"], v["gpc__cycles_elapsed.max"])
    print(f"{sys.argv[2]:28} active min {mn/1e3:8.1f}k avg {av/1e3:8.1f}k max {mx/1e3:8.1f}k elapsed {el/1e3:8.1f}k  avg/max {av/mx:.4f}  max/elapsed {mx/el:.4f}")
except KeyError as e:
    print(sys.argv[2], "missing", e, open(sys.argv[1]).read()[-600:])
PY
}
G="T=8192,D=4096,F=16384"
for t in 0 1 2; do run mlp5_tail$t mlp_gemm_gelu run mlp -r gelu_cluster -p TAIL=$t -s $G; done
run mlp_unfused_gemm1 nvjet run mlp -r unfused -s $G
for n in 4096 8192; do
  run r18_$n matmul_wgmma run matmul -r wgmma_tma_store_bf16 -s "M=$n,N=$n,K=$n" --dtype bf16
  run cublas_$n nvjet run matmul -r cublas_bf16 -s "M=$n,N=$n,K=$n" --dtype bf16
done
