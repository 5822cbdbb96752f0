#!/usr/bin/env bash
# Lead call 4 (merged tree): every GPU test program, one after another (counter tests read
# device-wide DRAM bytes, so nothing runs beside them).
set -u
C=$PWD/.carry-lead; W=/tmp/l4; R=$W/l4; mkdir -p $R
export XDG_CACHE_HOME=/tmp/kl-l4-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; date -u +%FT%TZ > $R/date.txt
for t in test_gpu_launch test_gpu_mlp test_gpu_live test_gpu; do
  s=$SECONDS; timeout 420 $C/$t > $R/$t.txt 2>&1; echo "$t: exit $? ($((SECONDS - s)) s)" | tee -a $R/tests.txt
  tar -C $W -czf $OUT/l4.tgz l4
done
grep -h "^\[  FAILED  \]\|tests ran\|^\[  PASSED\|SKIPPED \]" $R/test_*.txt | sort | uniq -c | head -30
tar -C $W -czf $OUT/l4.tgz l4
