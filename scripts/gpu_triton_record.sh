#!/usr/bin/env bash
# Issue 18 on the GPU machine, in one device call: the Triton rungs' GPU tests, each ladder's
# Triton rungs recorded with its CUDA rungs (kladder run --json), the same Triton kernels timed
# by Triton's own launcher (scripts/triton_do_bench.py, triton.testing.do_bench, cold L2), and
# `kladder run softmax` where Python has no Triton (KL_PYTHON names nothing).
# Run from a carry folder holding kladder (kladder-core), test_gpu, kernels/, lessons/, assets/
# and scripts/ (scripts/pack_for_gpu.sh, then copy those beside it). Writes $OUT/triton_record.tgz
# and prints a short table last.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
k="$here/kladder"
final=${OUT:-/tmp/out}
out=$(mktemp -d)
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
python3 -c "import triton, torch; print('triton', triton.__version__, 'torch', torch.__version__)" | tee -a "$out/gpu.txt"

# 1. GPU tests of the Triton rungs (real compiles, odd sizes).
timeout 240 "$here/test_gpu" --gtest_filter='GpuTriton*' > "$out/test_gpu_triton.txt" 2>&1
echo "test_gpu GpuTriton*: exit $?" | tee -a "$out/summary.txt"
tail -n 4 "$out/test_gpu_triton.txt"

# 2. Recordings: the ladders with their Triton rungs, one results file per (ladder, size) run.
run() {  # run NAME ARGS...: kladder run ARGS --json $out/NAME.json
  local name=$1; shift
  timeout 200 "$k" run "$@" --json "$out/rec_$name.json" > "$out/run_$name.txt" 2>&1
  echo "kladder run $*: exit $?" | tee -a "$out/summary.txt"
}
run elementwise elementwise
run softmax_4096 softmax
run softmax_8192 softmax --size rows=8192,cols=8192
run softmax_32768 softmax --size rows=32768,cols=1024
run matmul_bf16 matmul --dtype bf16
run matmul_group1 matmul --rung triton_matmul --param GROUP_M=1
run attention_d64 attention --dtype bf16
run attention_d64_causal attention --dtype bf16 --size causal=1
run attention_d128 attention --dtype bf16 --size d=128
run attention_d128_causal attention --dtype bf16 --size d=128,causal=1
run layernorm_fp32 layernorm
run layernorm_bf16 layernorm --dtype bf16

# 3. The same Triton kernels launched and timed by Triton itself.
timeout 240 python3 "$here/scripts/triton_do_bench.py" --out "$out/do_bench.json" \
  elementwise/triton_vector_add elementwise/triton_gelu \
  softmax/triton_softmax softmax/triton_softmax:rows=8192,cols=8192 softmax/triton_softmax:rows=32768,cols=1024 \
  matmul/triton_matmul matmul/triton_matmul:GROUP_M=1 \
  attention/triton_flash attention/triton_flash:causal=1 attention/triton_flash:d=128 \
  attention/triton_flash:d=128,causal=1 \
  layernorm/triton_layernorm layernorm/triton_layernorm:dtype=bf16 > "$out/do_bench.txt" 2>&1
echo "triton_do_bench.py: exit $?" | tee -a "$out/summary.txt"

# 4. Where Python has no Triton: the CUDA rungs run and one line says what to install.
KL_PYTHON=/nonexistent/python3 timeout 120 "$k" run softmax --size rows=1000,cols=1001 > "$out/no_triton.txt" 2>&1
echo "run softmax without Triton: exit $?" | tee -a "$out/summary.txt"

tar czf "$final/triton_record.tgz" -C "$out" .
cat "$out/do_bench.txt"
grep -h -E "triton_|^skipped" "$out"/run_*.txt "$out/no_triton.txt" | head -40
