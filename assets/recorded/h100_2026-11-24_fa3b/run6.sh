#!/usr/bin/env bash
# fa3 round 2 call 6: rung 7 with separate K/V release (committed candidate) against the same with P
# double-buffered (pp_p2); the better one becomes flash_pingpong for the rest of the call (GPU test at
# odd sizes, the B=8 H=16 N=4096 recordings of rungs 6-7 and their variants, SDPA peers).
set -u
C=$PWD/.carry-fa3; W=/tmp/fa3w; R=$W/r6; mkdir -p $R; export XDG_CACHE_HOME=/tmp/kl-fa3-cache
K=$C/kladder; fin() { tar -C $W -czf $OUT/r6.tgz r6; }
date -u +%FT%TZ > $R/date.txt; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $R/gpu.txt
tf() { python3 -c "import json,sys;print(json.load(open(sys.argv[1]))['runs'][0]['rates']['tflops'])" $1 2>/dev/null || echo 0; }
line() { echo "$1 d=$2 c=$3: $(grep -E '^(flash|pp_)|FAIL|rror' $4 | head -1 | tr -s ' ' | cut -c1-110)"; }
for d in 128 64; do for cz in 0 1; do
  S="B=8,H=16,N=4096,d=$d,causal=$cz"
  f=$R/t_flash_pingpong_-_${d}_$cz; timeout 60 $K run attention -r flash_pingpong -s $S --dtype bf16 --counters --json $f.json > $f.txt 2>&1; line "flash_pingpong(kv)" $d $cz $f.txt
  f=$R/ab_pp_p2_${d}_$cz; timeout 60 $K run attention -r pp_p2 -s $S --dtype bf16 --json $f.json > $f.txt 2>&1; line pp_p2 $d $cz $f.txt
done; done
ADOPT=$(python3 - $R <<'PY'
import json, sys
R = sys.argv[1]; r = []
for c in ("128_0", "128_1", "64_0", "64_1"):
    try:
        a = json.load(open(f"{R}/t_flash_pingpong_-_{c}.json"))["runs"][0]; b = json.load(open(f"{R}/ab_pp_p2_{c}.json"))["runs"][0]
        r.append(b["rates"]["tflops"] / a["rates"]["tflops"] if b["correctness"].get("passed", False) else 0)
    except Exception as e:
        r.append(0)
print(1 if r and sum(r) / len(r) >= 1.015 and min(r) >= 0.99 else 0, " ".join("%.3f" % x for x in r), file=sys.stdout)
PY
)
echo "p2/kv ratios, adopt: $ADOPT"; echo "$ADOPT" > $R/adopt.txt; fin
if [ "${ADOPT%% *}" = 1 ]; then
  cp $C/kernels/attention/07x_p2.cu $C/kernels/attention/07_flash_pingpong.cu
  for d in 128 64; do for cz in 0 1; do S="B=8,H=16,N=4096,d=$d,causal=$cz"; mv $R/t_flash_pingpong_-_${d}_$cz.json $R/ab_kv_${d}_$cz.json
    f=$R/t_flash_pingpong_-_${d}_$cz; timeout 60 $K run attention -r flash_pingpong -s $S --dtype bf16 --counters --json $f.json > $f.txt 2>&1; line "flash_pingpong(p2)" $d $cz $f.txt
  done; done
fi
timeout 100 $C/test_gpu --gtest_filter='*HopperFlash*' > $R/test_gpu.txt 2>&1; echo "test_gpu HopperFlash rc=$? $(grep -E '^\[  (PASSED|FAILED) ' $R/test_gpu.txt | tr '\n' ' ') t=$SECONDS"
grep -E 'FAIL|rror' $R/test_gpu.txt | head -5
for d in 128 64; do for cz in 0 1; do
  S="B=8,H=16,N=4096,d=$d,causal=$cz"
  for rv in "flash_pingpong PINGPONG=0" "flash_pingpong STAGES=2" "flash_pingpong PERSISTENT=0" "flash_wgmma -"; do
    set -- $rv; tag=${2//[=:]/}; f=$R/t_$1_${tag}_${d}_$cz; extra=""; [ "$2" != "-" ] && extra="-p $2"
    [ "$2" = "PERSISTENT=0" ] && [ $cz = 1 ] && continue
    timeout 60 $K run attention -r $1 $extra -s $S --dtype bf16 --json $f.json > $f.txt 2>&1; line "$1 $2" $d $cz $f.txt
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
