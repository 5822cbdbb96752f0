#!/usr/bin/env bash
# Issue 20, the rungs of the seventh session (17 ping-pong, 18 TMA-store epilogue) and their
# variants, in one device call: correctness first (the
# GPU test of the cluster rungs at the odd sizes, then compute-sanitizer memcheck and racecheck
# at small sizes where every block owns several tiles), then timings, each size set with the
# cuBLAS rungs in the same call (cuBLAS before and after, to see its spread), then a K sweep at
# M = N = 4096 (the per-tile fixed cost against the main loop). From the repo root there, with the
# programs, kernels/, lessons/ in $CARRY. Results under $OUT; a table last. PHASES picks parts.
set -uo pipefail
OUT=${OUT:-/tmp/kl-out}; mkdir -p "$OUT/parts"
C=${CARRY:-.carry-gemm}
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
PHASES=${PHASES:-"test sanitize big big8 ksweep odd probe"}
TOP=${TOP:-wgmma_tma_store_bf16}                        # the rung under study
PEERS=${PEERS:-"wgmma_cluster_bf16 wgmma_pingpong_bf16"}  # timed beside it at every size
VARIANTS_BIG=${VARIANTS_BIG:-"CLUSTER=1;STAGES=3;BM=256 BN=128 STAGES=3"}
VARIANTS_BIG8=${VARIANTS_BIG8:-"CLUSTER=1"}
SAN_VARIANTS=${SAN_VARIANTS:-";-p CLUSTER=1;-p BM=256 -p BN=128 -p STAGES=3"}
KS=${KS:-"512 1024 2048 8192"}
KSWEEP_RUNGS=${KSWEEP_RUNGS:-"wgmma_cluster_bf16 $TOP"}
SAN_SIZES=${SAN_SIZES:-"M=8192,N=1024,K=192 M=8191,N=1004,K=383"}
has() { case " $PHASES " in *" $1 "*) return 0;; esac; return 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$OUT/nvidia-smi.txt"
date -u | tee "$OUT/date.txt"
if has test; then
  timeout 300 $C/test_gpu --gtest_filter="${TEST_FILTER:-*ClusterRung*}" > "$OUT/test_gpu.log" 2>&1
  echo "test_gpu: exit $? ($(grep -cE '^\[  FAILED|Failure' "$OUT/test_gpu.log") failure lines)" | tee -a "$OUT/summary.txt"
fi
if has sanitize; then
  for s in $SAN_SIZES; do
    for tool in memcheck racecheck; do
      IFS=';' read -ra svs <<< "$SAN_VARIANTS"
      for v in "${svs[@]}"; do
        f="$OUT/sanitizer_${tool}_${TOP}_${s}$(echo "$v" | tr -d ' =-').txt"
        timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $K run matmul --rung $TOP --size "$s" $v \
          --warmup 0 --reps 1 > "$f" 2>&1
        echo "compute-sanitizer $tool $TOP $s $v: exit $? ($(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' "$f"); $(grep -m1 -oE 'PASS|FAIL' "$f"))" | tee -a "$OUT/summary.txt"
      done
    done
  done
fi
N_RUN=0
run() {  # group rung size [params...]
  local g=$1 r=$2 s=$3; shift 3
  N_RUN=$((N_RUN + 1))
  local name="${g}_$(printf %03d $N_RUN)"
  $K run matmul --rung "$r" --size "$s" "$@" --json "$OUT/parts/$name.json" >> "$OUT/run_$g.txt" 2>&1 ||
    echo "$g $s $r $*: failed" | tee -a "$OUT/summary.txt"
}
bf16_set() {  # group size "P=V;P=V..." (variants of TOP)
  local g=$1 s=$2 vs=$3 v
  run "$g" cublas_bf16 "$s"; for r in $PEERS $TOP; do run "$g" "$r" "$s"; done
  IFS=';' read -ra list <<< "$vs"
  for v in "${list[@]}"; do [ -n "$v" ] && run "$g" "$TOP" "$s" $(for p in $v; do echo "-p $p"; done); done
  run "$g" cublas_bf16 "$s"; for r in $PEERS $TOP; do run "$g" "$r" "$s"; done  # again: the order's drift
}
has big && bf16_set big M=4096,N=4096,K=4096 "$VARIANTS_BIG"
has big8 && bf16_set big8 M=8192,N=8192,K=8192 "$VARIANTS_BIG8"
if has ksweep; then
  for k in $KS; do
    s="M=4096,N=4096,K=$k"; run ksweep cublas_bf16 "$s"; for r in $KSWEEP_RUNGS; do run ksweep "$r" "$s"; done
  done
fi
if has odd; then
  for s in M=2047,N=2049,K=1023 M=4097,N=4097,K=4097; do bf16_set odd "$s" "${VARIANTS_ODD:-}"; done
fi
if has probe; then  # which kernel cuBLAS picks (CUPTI timeline), and the counters of the three tilings
  s=M=4096,N=4096,K=4096
  for sz in $s M=8192,N=8192,K=8192; do $K run matmul --rung cublas_bf16 --size $sz --timeline --reps 20 >> "$OUT/probe.txt" 2>&1; done
  for r in cublas_bf16 wgmma_cluster_bf16 wgmma_pingpong_bf16 $TOP; do
    $K run matmul --rung $r --size $s --counters --reps 20 --json "$OUT/counters_$r.json" >> "$OUT/probe.txt" 2>&1
  done
  grep -iE "sm90|xmma|gemm|kernel" "$OUT/probe.txt" | sort | uniq -c | sort -rn | head -8
fi
if has sass; then  # cubins compiled here with nvcc at the rungs' defaults, disassembled there
  for c in $C/*.cubin; do
    b=$(basename "$c" .cubin); cuobjdump -sass "$c" > "$OUT/sass_$b.txt" 2>&1
    echo "$b SASS: $(grep -c HGMMA "$OUT/sass_$b.txt") HGMMA, $(grep -cE 'SYNCS' "$OUT/sass_$b.txt") SYNCS, $(grep -c 'MOV ' "$OUT/sass_$b.txt") MOV, $(wc -l < "$OUT/sass_$b.txt") lines" | tee -a "$OUT/summary.txt"
  done
fi
if has ncu; then  # Nsight Compute on one launch of each (no check: only the GEMM kernel matches)
  NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  echo "ncu: ${NCU:-not found}" | tee -a "$OUT/summary.txt"
  for r in cublas_bf16 $TOP; do
    [ -n "$NCU" ] && timeout 60 $NCU -k regex:'gemm|xmma|sm90|matmul_wgmma' --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
      $K run matmul --rung $r --size M=4096,N=4096,K=4096 --no-check --warmup 1 --reps 2 > "$OUT/ncu_$r.txt" 2>&1
    grep -E "==PROF==|Duration|SM Frequency|Compute \(SM\) Throughput|Issue Slots Busy|Issued Warp Per Scheduler|No Eligible|Warp Cycles Per Issued|Executed Ipc Active|  [a-z_ ]*sm90|matmul_wgmma" "$OUT/ncu_$r.txt" | head -14 | tee -a "$OUT/summary.txt"
  done
fi
python3 "$(dirname "$0")/gpu_gemm_table.py" "$OUT" "scripts/gpu_gemm_pingpong.sh (one device call)" big big8 ksweep odd
(cd "$OUT" && tar czf logs.tgz ./*.txt ./*.log ./counters_*.json 2>/dev/null; rm -f counters_*.json; rm -rf parts; cp summary.txt summary.keep; rm -f ./*.txt ./*.log; mv summary.keep summary.txt)
cat "$OUT/summary.txt"
