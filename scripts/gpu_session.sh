#!/usr/bin/env bash
# One batch for the GPU machine: check the tools, run the GPU tests, calibrate, run the
# elementwise ladder, measure the PyTorch peers in the same session, and compare one kernel's
# time with Nsight Compute. Full logs go to $OUT; a short table is printed last.
# Usage (from the repo root on the GPU machine): scripts/gpu_session.sh [ladder...]
set -uo pipefail
OUT=${OUT:-/tmp/kl-out}; mkdir -p "$OUT"
K=.carry/kladder
export XDG_CACHE_HOME=/tmp/kl-cache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv | tee "$OUT/nvidia-smi.txt"
ladders=${*:-elementwise}
.carry/test_gpu > "$OUT/ctest-gpu.log" 2>&1; echo "test_gpu (ctest gpu.ladders): exit $?" | tee -a "$OUT/summary.txt"
if [ -x .carry/test_gui_runner_gpu ]; then  # ctest gpu.gui_runner: the GUI's runner client against the real runner
  KLADDER_EXE=$PWD/$K .carry/test_gui_runner_gpu > "$OUT/gui-runner-gpu.log" 2>&1; echo "test_gui_runner_gpu (ctest gpu.gui_runner): exit $?" | tee -a "$OUT/summary.txt"
fi
$K calibrate --force | tee "$OUT/calibrate.txt"
COUNTERS=${COUNTERS:---counters}
for L in $ladders; do
  $K run "$L" $COUNTERS --json "$OUT/$L.json" > "$OUT/$L.txt" 2>&1; echo "run $L: exit $?" | tee -a "$OUT/summary.txt"
done
if [ -f .carry/peers.py ]; then
  timeout 300 python3 .carry/peers.py --quick --out "$OUT/peers.json" > "$OUT/peers.log" 2>&1; echo "peers: exit $?" >> "$OUT/summary.txt"
fi
for L in $ladders; do cat "$OUT/$L.txt"; done
python3 - "$OUT/peers.json" <<'PY' 2>/dev/null
import json,sys
for r in json.load(open(sys.argv[1])):
    if r.get("what") in ("copy","gelu_tanh","softmax"): print("peer", r.get("what"), r.get("impl",""), r.get("rows_",""), r.get("cols",""), "%.0f GB/s" % r["gbps"])
    if r.get("what")=="gemm": print("peer gemm", r["dtype"], r["n"], "%.1f TFLOP/s" % r["tflops"])
    if r.get("what")=="attention" and "tflops" in r: print("peer attn", r["backend"], "d=%d causal=%s N=%d" % (r["d"], r["causal"], r["N"]), "%.0f TFLOP/s" % r["tflops"])
PY
cat "$OUT/summary.txt"
# At most 8 files come back from the device tool: pack the details into one archive.
(cd "$OUT" && tar czf results.tgz --exclude=results.tgz ./*.json ./*.txt ./*.log 2>/dev/null)
