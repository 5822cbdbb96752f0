#!/usr/bin/env bash
# fa3 round 2 call 5: new rung 7 (separate K/V release barriers, K_j before V_(j-1); 4-way partial
# max/sum in the softmax) against the committed one (pp_old) and the K/V change alone (pp_kv);
# GPU test at odd sizes; B=8 H=16 N=4096 timings of rungs 6-7 (+variants) and SDPA; N sweep.
set -u
C=$PWD/.carry-fa3; W=/tmp/fa3w; R=$W/r5; mkdir -p $R; export XDG_CACHE_HOME=/tmp/kl-fa3-cache
K=$C/kladder; fin() { tar -C $W -czf $OUT/r5.tgz r5; }
date -u +%FT%TZ > $R/date.txt; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
timeout 100 $C/test_gpu --gtest_filter='*HopperFlash*' > $R/test_gpu.txt 2>&1; echo "test_gpu HopperFlash rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $R/test_gpu.txt | tr '\n' ' ') t=$SECONDS"
grep -E 'FAIL|rror' $R/test_gpu.txt | head -5
ok=0; bad=0
for d in 128 64; do for cz in 0 1; do for n in 17 1000 4097; do
  S="B=3,H=5,N=$n,d=$d,causal=$cz"; f=$R/c176_${d}_${cz}_$n.txt; P="-p BN=176"; [ $d = 128 ] && P="$P -p STAGES=2"
  timeout 30 $K run attention -r flash_pingpong $P -s $S --dtype bf16 --warmup 0 --reps 1 > $f 2>&1; rc=$?
  if [ $rc = 0 ]; then ok=$((ok+1)); else bad=$((bad+1)); echo "FAIL rc=$rc BN=176 $S: $(grep -E 'FAIL|rror' $f | head -2 | tr '\n' ' ')"; fi
  [ $rc = 124 ] && break 3
done; done; done
echo "BN=176 correctness: $ok ok, $bad failed t=$SECONDS"
for d in 128 64; do for cz in 0 1; do
  S="B=8,H=16,N=4096,d=$d,causal=$cz"
  for rv in "pp_old -" "flash_pingpong -" "pp_kv -" "flash_pingpong BN=176:STAGES=2" "flash_pingpong BN=176" "flash_pingpong PINGPONG=0" "flash_pingpong STAGES=2" "flash_pingpong PERSISTENT=0" "flash_wgmma -" "flash_pingpong STAGES=4"; do
    set -- $rv; tag=${2//[=:]/}; f=$R/t_$1_${tag}_${d}_$cz; extra=""; [ "$2" != "-" ] && extra="-p ${2//:/ -p }"
    [ "$2" = "PERSISTENT=0" ] && [ $cz = 1 ] && continue
    { [ "$1" = pp_kv ] || [ "$2" = STAGES=4 ]; } && [ $SECONDS -gt 150 ] && continue
    [ "$1" = "pp_kv" ] && [ $cz = 1 ] && continue
    [ "$2" = "STAGES=4" ] && [ $d = 128 ] && continue
    [ "$2" = "BN=176" ] && [ $d = 128 ] && continue
    [ "$2" = "BN=176:STAGES=2" ] && [ $d = 64 ] && continue
    cnt=""; [ "$2" = "-" ] && [ $1 = flash_pingpong ] && cnt="--counters"
    timeout 60 $K run attention -r $1 $extra -s $S --dtype bf16 $cnt --json $f.json > $f.txt 2>&1
    echo "$1 $2 d=$d c=$cz: $(grep -E '^(flash|pp_)|FAIL|rror' $f.txt | head -1 | tr -s ' ' | cut -c1-110)"
  done; fin
done; done
echo "t=$SECONDS"; fin
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
if [ $SECONDS -lt 165 ]; then
  timeout 60 $K sweep attention --rung flash_pingpong --axis N --values 1024,2048,4096,8192,16384,32768 --dtype bf16 --size B=1,H=16,d=128,causal=0 --json $R/sweep_flash_pingpong.json > $R/sweep_flash_pingpong.txt 2>&1
  echo "sweep rc=$?"; grep -E '^ *[0-9]' $R/sweep_flash_pingpong.txt | tr -s ' ' | cut -c1-90 | head -7
  timeout 60 python3 $C/sdpa_peers.py $R/peers_sweep.json 1 16 128 0 1024 2048 4096 8192 16384 32768 > $R/peers_sweep.txt 2>&1
  python3 -c "import json;[print('  sdpa', r['backend'], r['N'], round(r.get('tflops',0))) for r in json.load(open('$R/peers_sweep.json'))]"
fi
echo "t=$SECONDS"; fin
