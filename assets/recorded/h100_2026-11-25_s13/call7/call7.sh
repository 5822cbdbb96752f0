#!/usr/bin/env bash
# Session 13, call 7: the GPU tests that the session's code touches, on the committed tree.
export XDG_CACHE_HOME=/tmp/kl-cache
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee "$OUT/nvidia-smi.txt"
timeout 560 .carry-s13/test_gpu --gtest_filter='GpuStreamK.*:GpuLadders.EveryRungCorrectAtAlignedAndOddSizes:GpuMlp*' > "$OUT/test_gpu_full.txt" 2>&1
echo "exit $?"
grep -E "^\[ +(OK|FAILED|PASSED) |tests? from .* ran" "$OUT/test_gpu_full.txt" | tee "$OUT/test_gpu.txt"
