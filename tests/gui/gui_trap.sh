#!/bin/sh
# gui_trap.sh GUI OUT_DIR (labels gpu, gui): the workbook, headless (EGL, no display needed), runs
# a rung that traps on the real runner. The fault must be shown, the runner replaced, and the
# workbook must keep drawing frames to a normal exit.
# Exit 77 (skipped) when the runner reports no GPU.
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2" "${XDG_CACHE_HOME:-}"
trap_data_root "$out/root" 01_trap_demo
export KLADDER_ROOT="$out/root"
run_gui "$gui" --headless --no-save --size 1280x800 --lesson trap_demo --step 3 --run rung --exit-when-idle --max-seconds 300 \
    --screenshot "$out/trap.png" --report "$out/report.json"
skip_without_gpu "$out/report.json"
python3 - "$out/report.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
run = r["runner"]
problems = []
if "fault" not in run["last_error"]: problems.append(f"the fault was not shown (last error: {run['last_error']!r})")
if run["exits"] < 1: problems.append("the faulted runner did not exit")
if r["frames"] < 10: problems.append(f"only {r['frames']} frames drawn")
print("shown: " + run["last_error"])
print(f"{r['frames']} frames, drawn by {r['renderer']}; after the fault: runner exits {run['exits']}, restarts {run['restarts']}")
if problems:
    print("FAIL: " + "; ".join(problems))
    sys.exit(1)
PY
sh "$here/check_png.sh" "$out/trap.png" 1280 800 || exit 1
echo "ok"
