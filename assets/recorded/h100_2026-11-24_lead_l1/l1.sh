#!/usr/bin/env bash
# Lead call 1 (2026-11-24 afternoon): GPU tests on the merged tree alongside sanitizers on rung 7
# as committed (round 2), then, alone on the GPU, the N sweep of rungs 4, 6, 7 with SDPA peers and
# the B=8 H=16 N=4096 acceptance cases with SDPA peers.
set -u
C=$PWD/.carry-lead; K=$C/kladder; W=/tmp/l1; R=$W/l1; mkdir -p $R/json
export XDG_CACHE_HOME=/tmp/kl-l1-cache
fin() { tar -C $W -czf $OUT/l1.tgz l1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; date -u +%FT%TZ > $R/date.txt
$K calibrate --force > $R/calibrate.txt 2>&1
# Phase A: correctness only (no timing), so the tests and the sanitizers may share the GPU.
( for t in test_gpu_launch test_gpu_mlp test_gpu_live test_gpu; do
    s=$SECONDS; timeout 400 $C/$t > $R/$t.txt 2>&1; echo "$t: exit $? ($((SECONDS - s)) s)" >> $R/tests.txt
  done ) &
tests_pid=$!
for S in B=1,H=3,N=77,d=128,causal=0 B=1,H=3,N=77,d=64,causal=1 B=2,H=40,N=300,d=128,causal=0 B=2,H=40,N=300,d=64,causal=0 B=2,H=5,N=300,d=128,causal=1; do
  for tool in memcheck racecheck; do
    f=$R/san_${tool}_${S//[,=]/_}.txt
    timeout 200 compute-sanitizer --tool $tool $K run attention -r flash_pingpong -s $S --dtype bf16 --warmup 0 --reps 1 > $f 2>&1
    echo "$tool flash_pingpong $S rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $f | tr '\n' ' ')" | tee -a $R/sanitizers.txt
  done
done
wait $tests_pid; cat $R/tests.txt
grep -h "^\[  FAILED  \]\|tests ran\|^\[  PASSED" $R/test_*.txt | sort | uniq | head -20
fin
# Phase B: timing, alone on the GPU.
$K calibrate --force > $R/calibrate2.txt 2>&1
V=1024,2048,4096,8192,16384,32768
for r in flash_bf16 flash_wgmma flash_pingpong; do
  timeout 150 $K sweep attention --rung $r --axis N --values $V --dtype bf16 --size B=1,H=16,d=128,causal=0 --json $R/json/sweep_$r.json > $R/sweep_$r.txt 2>&1
  echo "sweep $r rc=$?"; grep -E '^ *[0-9]|^flash' $R/sweep_$r.txt | tr -s ' ' | cut -c1-100 | head -8
done
timeout 150 python3 $C/sdpa_peers.py $R/peers_sweep.json 1 16 128 0 1024 2048 4096 8192 16384 32768 > $R/peers_sweep.txt 2>&1
python3 -c "import json;[print('  sdpa', r['backend'], r['N'], round(r.get('tflops',0))) for r in json.load(open('$R/peers_sweep.json'))]"
python3 $C/merge_results.py $R/h100_attention_hopper_sweep.json $R/json/sweep_flash_bf16.json $R/json/sweep_flash_wgmma.json $R/json/sweep_flash_pingpong.json
fin
for d in 64 128; do for cz in 0 1; do
  S="B=8,H=16,N=4096,d=$d,causal=$cz"; f=$R/json/pp_${d}_$cz
  timeout 60 $K run attention -r flash_pingpong -s $S --dtype bf16 --json $f.json > $f.txt 2>&1
  echo "flash_pingpong d=$d c=$cz: $(grep -E '^ *flash|FAIL|rror' $f.txt | head -1 | tr -s ' ' | cut -c1-120)"
  timeout 120 python3 $C/sdpa_peers.py $R/peers_${d}_$cz.json 8 16 $d $cz 4096 > $R/peers_${d}_$cz.txt 2>&1
  python3 -c "import json;print('  sdpa', *[(r['backend'],round(r.get('tflops',0))) for r in json.load(open('$R/peers_${d}_$cz.json'))])"
done; done
fin
echo "total $SECONDS s"
