#!/usr/bin/env bash
# fa3 round 3 (call 7): rung 8 flash_fa3 (TMA-store epilogue; three consumer warpgroups at d = 64)
# beside the committed rung 7 in the same call: the GPU test at odd sizes (rungs 6-8 and their
# variants), B=8 H=16 N=4096 timings (rung 8 default and variants, rung 7 default and the variants
# lesson 8 binds, rung 6; the defaults of 7 and 8 timed twice, interleaved), SDPA peers, sanitizers
# on rung 8 in every mode, then the N sweep (B=1 H=16 d=128) of rungs 8, 7, 6, 4 with SDPA peers.
set -u
C=$PWD/.carry-fa3; W=/tmp/fa3w; R=$W/r7; mkdir -p $R; export XDG_CACHE_HOME=/tmp/kl-fa3-cache
K=$C/kladder; fin() { tar -C $W -czf $OUT/r7.tgz r7; }
date -u +%FT%TZ > $R/date.txt; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
line() { echo "$1 d=$2 c=$3: $(grep -E '^(flash)|FAIL|rror' $4 | head -1 | tr -s ' ' | cut -c1-118)"; }
# The spill check: rung 8's SASS at d = 64 (three warpgroups, 160 registers each) if the toolkit is there.
if command -v cuobjdump >/dev/null && command -v nvcc >/dev/null; then
  nvcc -cubin -o $W/fa3.cubin -gencode arch=compute_90a,code=sm_90a -std=c++17 -I $C/kernels/common -I $C/kernels/attention \
    -DBN=128 -DSTAGES=2 -DPINGPONG=1 -DTMA_STORE=1 -DWG64=3 -Xptxas -v $C/kernels/attention/08_flash_fa3.cu > $R/ptxas.txt 2>&1
  cuobjdump -sass $W/fa3.cubin > $R/sass_fa3.txt 2>&1; echo "sass: $(grep -c -E 'STL|LDL' $R/sass_fa3.txt) local accesses"
fi
# Smoke: rung 8 at odd sizes (a hang here would waste the call: stop early instead).
for cfg in "64 0" "128 1"; do set -- $cfg; f=$R/smoke_$1_$2.txt
  timeout 25 $K run attention -r flash_fa3 -s B=3,H=5,N=4097,d=$1,causal=$2 --dtype bf16 --warmup 0 --reps 1 > $f 2>&1; rc=$?
  echo "smoke d=$1 c=$2 rc=$rc $(grep -E '^flash|FAIL|rror' $f | head -2 | tr -s ' ' | cut -c1-150)"; [ $rc = 0 ] || { fin; exit 1; }
done
timeout 100 $C/test_gpu --gtest_filter='*HopperFlash*' > $R/test_gpu.txt 2>&1; echo "test_gpu HopperFlash rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $R/test_gpu.txt | tr '\n' ' ') t=$SECONDS"
grep -E 'Failure|FAIL|rror' $R/test_gpu.txt | head -6; fin
for d in 128 64; do for cz in 0 1; do
  S="B=8,H=16,N=4096,d=$d,causal=$cz"
  for rv in "flash_fa3 - c" "flash_pingpong - c" "flash_fa3 TMA_STORE=0" "flash_fa3 WG64=2" "flash_fa3 PINGPONG=0" \
            "flash_pingpong PINGPONG=0" "flash_pingpong STAGES=2" "flash_pingpong PERSISTENT=0" "flash_wgmma -" \
            "flash_fa3 - rep" "flash_pingpong - rep"; do
    set -- $rv; tag=${2//[=:]/}; [ $# = 3 ] && [ $3 = rep ] && tag=rep; f=$R/t_$1_${tag}_${d}_$cz; extra=""; [ "$2" != "-" ] && extra="-p ${2//:/ -p }"
    [ "$2" = "PERSISTENT=0" ] && [ $cz = 1 ] && continue
    [ "$2" = "WG64=2" ] && [ $d = 128 ] && continue
    [ "$1 $2" = "flash_fa3 PINGPONG=0" ] && [ $cz = 1 ] && continue
    cnt=""; [ $# = 3 ] && [ $3 = c ] && cnt="--counters"
    timeout 60 $K run attention -r $1 $extra -s $S --dtype bf16 $cnt --json $f.json > $f.txt 2>&1; line "$1 $2 ${3:-}" $d $cz $f.txt
  done; fin
done; done
echo "t=$SECONDS"
cat > $W/peers.py <<'PY'
import sys; sys.path.insert(0, sys.argv[1]); import sdpa_peers
for a in sys.argv[2:]:
    sys.argv = ["sdpa_peers.py"] + a.split(","); sdpa_peers.main()
PY
timeout 90 python3 $W/peers.py $C $R/peers_128_0.json,8,16,128,0,4096 $R/peers_128_1.json,8,16,128,1,4096 $R/peers_64_0.json,8,16,64,0,4096 $R/peers_64_1.json,8,16,64,1,4096 > $R/peers.txt 2>&1
python3 -c "
import json
for c in ('128_0','128_1','64_0','64_1'):
  try: print('  sdpa', c, *[(r['backend'],round(r.get('tflops',0))) for r in json.load(open('$R/peers_'+c+'.json'))])
  except Exception as e: print('peers', c, e)"
echo "t=$SECONDS"; fin
# Sanitizers on rung 8's defaults, every mode: N = 77 (80 items of one block each) and N = 300
# (160 items on 132 persistent blocks; ragged last blocks, idle warpgroups at d = 64).
for tool in memcheck racecheck; do for d in 64 128; do for cz in 0 1; do
  f=$R/san_${tool}_${d}_$cz.txt
  timeout 90 compute-sanitizer --tool $tool $K sweep attention -r flash_fa3 --axis N --values 77,300 -s B=2,H=40,d=$d,causal=$cz --dtype bf16 --warmup 0 --reps 1 > $f 2>&1
  echo "$tool d=$d c=$cz rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f) $(grep -c PASS $f) PASS"
done; done; done; echo "t=$SECONDS"; fin
for r in flash_fa3 flash_pingpong flash_wgmma flash_bf16; do
  [ $SECONDS -gt 480 ] && break
  timeout 60 $K sweep attention --rung $r --axis N --values 1024,2048,4096,8192,16384,32768 --dtype bf16 --size B=1,H=16,d=128,causal=0 --json $R/sweep_$r.json > $R/sweep_$r.txt 2>&1
  echo "sweep $r rc=$? $(python3 -c "import json;print(*[(u['sizes']['N'], round(u['rates']['tflops']), u['correctness'].get('passed')) for u in json.load(open('$R/sweep_$r.json'))['runs']])" 2>&1 | cut -c1-200)"; fin
  if [ $r = flash_pingpong ]; then
    timeout 60 python3 $C/sdpa_peers.py $R/peers_sweep.json 1 16 128 0 1024 2048 4096 8192 16384 32768 > $R/peers_sweep.txt 2>&1
    python3 -c "import json;print('  sdpa sweep', *[(r['backend'][:2], r['N'], round(r.get('tflops',0))) for r in json.load(open('$R/peers_sweep.json'))])"; fin
  fi
done
echo "t=$SECONDS"; fin
