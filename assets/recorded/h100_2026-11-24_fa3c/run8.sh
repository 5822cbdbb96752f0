#!/usr/bin/env bash
# fa3 round 3 call 8: the defaults of rungs 6, 7, 8 at B=8 H=16 N=4096 beside SDPA timed by the
# runner's protocol (scripts/gpu_attention/sdpa_peers.py: until 400 ms, like the rungs; the
# peers of call 7 were a 20-repetition burst at full clock); then, if time allows, the N sweep
# (B=1 H=16 d=128) of rungs 7 and 8 with SDPA timed the same way.
set -u
C=$PWD/.carry-fa3; W=/tmp/fa3w; R=$W/r8; mkdir -p $R; export XDG_CACHE_HOME=/tmp/kl-fa3-cache
K=$C/kladder; P=$PWD/scripts/gpu_attention/sdpa_peers.py; fin() { tar -C $W -czf $OUT/r8.tgz r8; }
date -u +%FT%TZ > $R/date.txt; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
line() { echo "$1 d=$2 c=$3: $(grep -E '^(flash)|FAIL|rror' $4 | head -1 | tr -s ' ' | cut -c1-100)"; }
for d in 128 64; do for cz in 0 1; do
  S="B=8,H=16,N=4096,d=$d,causal=$cz"
  for r in flash_fa3 flash_pingpong flash_wgmma; do
    f=$R/t_${r}_${d}_$cz; timeout 60 $K run attention -r $r -s $S --dtype bf16 --json $f.json > $f.txt 2>&1; line $r $d $cz $f.txt
  done
  timeout 60 python3 $P $R/peers_${d}_$cz.json 8 16 $d $cz 4096 > $R/peers_${d}_$cz.txt 2>&1
  python3 -c "import json;print('  sdpa d=$d c=$cz', *[(r['backend'],round(r.get('tflops',0)),r.get('reps')) for r in json.load(open('$R/peers_${d}_$cz.json'))])"
  fin
done; done
echo "t=$SECONDS"
if [ $SECONDS -lt 75 ]; then
  for r in flash_fa3 flash_pingpong; do
    timeout 40 $K sweep attention --rung $r --axis N --values 1024,2048,4096,8192,16384,32768 --dtype bf16 --size B=1,H=16,d=128,causal=0 --json $R/sweep_$r.json > $R/sweep_$r.txt 2>&1
    echo "sweep $r rc=$? $(python3 -c "import json;print(*[(u['sizes']['N'], round(u['rates']['tflops'])) for u in json.load(open('$R/sweep_$r.json'))['runs']])" 2>&1 | cut -c1-200)"; fin
  done
  timeout 60 python3 $P $R/peers_sweep.json 1 16 128 0 1024 2048 4096 8192 16384 32768 > $R/peers_sweep.txt 2>&1
  python3 -c "import json;print('  sdpa sweep', *[(r['backend'][:2], r['N'], round(r.get('tflops',0))) for r in json.load(open('$R/peers_sweep.json')) if r['backend'] != 'efficient'])"
fi
echo "t=$SECONDS"; fin
