#!/usr/bin/env bash
# Session 5, call 4: every test of test_gpu on the final tree (rung 18 with GROUP_M = 16 and the
# STREAMK parameter, the GpuStreamK test, the bindings change does not touch the GPU).
set -u
C=$PWD/.carry-lead; W=/tmp/s4; R=$W/s4; mkdir -p $R
export XDG_CACHE_HOME=/tmp/kl-s4-cache
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; date -u +%FT%TZ > $R/date.txt
timeout 560 $C/test_gpu > $R/test_gpu.txt 2>&1; echo "test_gpu: exit $?" | tee $R/tests.txt
grep -E "^\[ +(OK|FAILED|SKIPPED) +\]|^\[==========\]|^\[  (PASSED|FAILED)" $R/test_gpu.txt | tee -a $R/tests.txt | tail -30
tar -C $W -czf $OUT/s4.tgz s4; echo "total $SECONDS s"
