#!/usr/bin/env bash
# Where a GEMM's L2 traffic comes from: Nsight Compute's L2 sector counts split by operation, by
# source (the SMs against the fabric between the two L2 partitions) and the read hit rate, one
# launch each, for matmul rung 18 and cuBLAS at 4096^3 and 8192^3 and mlp rung 5's first product
# against the unfused plan's cuBLAS GEMM. (docs/tuning/matmul.md, ninth session: rung 18 read 37.1 M
# sectors at 4096^3 where its tiles need 33.5 M and cuBLAS read 31.6 M.)
#   scripts/gpu_gemm/l2_sources.sh <carry folder>   (holds kladder, the stripped kladder-core)
set -u
C=${1:?carry folder}; K=$C/kladder; export XDG_CACHE_HOME=/tmp/kl-cache-l2
M="lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum"
M="$M,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"
M="$M,lts__t_sector_op_read_hit_rate.pct,gpc__cycles_elapsed.max"
run() { # label, kernel regex, kladder args...
  local label=$1 re=$2; shift 2
  timeout 120 ncu --clock-control none --metrics "$M" --kernel-name regex:"$re" -c 1 "$K" "$@" --reps 1 --warmup 0 \
    --no-check > "/tmp/l2_$label.txt" 2>&1
  python3 - "/tmp/l2_$label.txt" "$label" <<'PY'
import sys, re
v = {}
for l in open(sys.argv[1]):
    m = re.match(r"\s+(\S+)\s+(\S+)\s+([\d,.]+)\s*$", l)
    if m: v[m.group(1)] = float(m.group(3).replace(",", ""))
g = lambda k: v.get(k, float("nan"))
print(f"{sys.argv[2]:18} L2 rd {g('lts__t_sectors_op_read.sum')/1e6:6.2f} M wr {g('lts__t_sectors_op_write.sum')/1e6:6.2f} M"
      f" | from SMs rd {g('lts__t_sectors_srcunit_tex_op_read.sum')/1e6:6.2f} M (hit {g('lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum')/1e6:6.2f} M)"
      f" | fabric {g('lts__t_sectors_srcunit_ltcfabric.sum')/1e6:6.2f} M | hit {g('lts__t_sector_op_read_hit_rate.pct'):5.1f}%"
      f" | {g('gpc__cycles_elapsed.max')/1e3:7.1f} k cycles")
if not v: print(open(sys.argv[1]).read()[-800:])
PY
}
for n in 4096 8192; do
  run "r18_$n" matmul_wgmma run matmul -r wgmma_tma_store_bf16 -s "M=$n,N=$n,K=$n" --dtype bf16
  run "r18_c1_$n" matmul_wgmma run matmul -r wgmma_tma_store_bf16 -p CLUSTER=1 -s "M=$n,N=$n,K=$n" --dtype bf16
  run "cublas_$n" nvjet run matmul -r cublas_bf16 -s "M=$n,N=$n,K=$n" --dtype bf16
done
G="T=8192,D=4096,F=16384"
run mlp5 mlp_gemm_gelu run mlp -r gelu_cluster -s "$G"
run mlp_cublas_gemm1 nvjet run mlp -r unfused -s "$G"
