#!/usr/bin/env bash
# Lead call 2: is rung 7's 10-15% spread at B=8 H=16 N=4096 power throttling over the runner's
# ~0.4 s of repetitions, which the 20-repetition SDPA peer does not reach? SM clock and power
# sampled every 20 ms beside runs of 20 and 300 repetitions, rung and cuDNN alike.
set -u
C=$PWD/.carry-lead; K=$C/kladder; W=/tmp/l2; R=$W/l2; mkdir -p $R
export XDG_CACHE_HOME=/tmp/kl-l2-cache
fin() { tar -C $W -czf $OUT/l2.tgz l2; }
date -u +%FT%TZ > $R/date.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 20 > $R/smi.csv 2>&1 &
smi=$!
mark() { echo "$(date +%H:%M:%S.%N | cut -c1-12) $*" >> $R/marks.txt; }
for d in 128 64; do
  S="B=8,H=16,N=4096,d=$d,causal=0"
  for reps in 20 300 20 1000; do
    sleep 1; mark "start rung7 d=$d reps=$reps"
    timeout 60 $K run attention -r flash_pingpong -s $S --dtype bf16 --reps $reps --no-check --json $R/pp_${d}_$reps.json > $R/pp_${d}_$reps.txt 2>&1
    mark "end"; echo "rung7 d=$d reps=$reps: $(grep -E '^ *flash' $R/pp_${d}_$reps.txt | tr -s ' ' | cut -d' ' -f6-12)"
  done
  for reps in 20 300 1000; do
    sleep 1; mark "start sdpa d=$d reps=$reps"
    KL_PEER_REPS=$reps timeout 120 python3 $C/sdpa_peers.py $R/sdpa_${d}_$reps.json 8 16 $d 0 4096 > $R/sdpa_${d}_$reps.txt 2>&1
    mark "end"
    python3 -c "import json;print('  sdpa d=$d reps=$reps', *[(r['backend'],round(r.get('tflops',0)),round(r.get('min_ms',0),3),round(r.get('ms',0),3)) for r in json.load(open('$R/sdpa_${d}_$reps.json')) if r['backend']!='efficient'])"
  done
done
kill $smi
python3 - $R <<'PY'
import sys, csv, datetime
R = sys.argv[1]
rows = [r for r in csv.reader(open(R + "/smi.csv")) if r and r[0][:2] == "20"]
def t(s): return datetime.datetime.strptime(s.strip()[:23], "%Y/%m/%d %H:%M:%S.%f")
samples = [(t(r[0]), float(r[1].split()[0]), float(r[2].split()[0]), r[4].strip()) for r in rows if "MHz" in r[1]]
marks = [l.split(" ", 1) for l in open(R + "/marks.txt")]
for i in range(0, len(marks) - 1, 2):
    a = datetime.datetime.combine(samples[0][0].date(), datetime.datetime.strptime(marks[i][0], "%H:%M:%S.%f").time())
    b = datetime.datetime.combine(samples[0][0].date(), datetime.datetime.strptime(marks[i + 1][0], "%H:%M:%S.%f").time())
    s = [x for x in samples if a <= x[0] <= b]
    if s:
        busy = [x for x in s if x[2] > 300]
        print(f"{marks[i][1].strip():32s} n={len(s):3d} busy={len(busy):3d} clock min {min(x[1] for x in busy or s):.0f} med {sorted(x[1] for x in busy or s)[len(busy or s)//2]:.0f} power max {max(x[2] for x in s):.0f} W reasons {sorted(set(x[3] for x in busy))[:4]}")
PY
fin
