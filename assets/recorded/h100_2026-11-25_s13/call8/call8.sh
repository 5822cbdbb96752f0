#!/usr/bin/env bash
# Session 13, call 8: mlp rung 5's cluster tests (its header kl_cluster_gemm.cuh changed).
export XDG_CACHE_HOME=/tmp/kl-cache
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee "$OUT/nvidia-smi.txt"
timeout 500 .carry-s13/test_gpu_mlp --gtest_filter='GpuMlp.ClusterRungVariantsCorrect:GpuMlp.QueuedJobs*' > "$OUT/test_gpu_full.txt" 2>&1
echo "exit $?"
grep -E "^\[ +(OK|FAILED|PASSED) |tests? from .* ran" "$OUT/test_gpu_full.txt" | tee "$OUT/test_gpu.txt"
