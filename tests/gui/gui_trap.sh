#!/bin/sh
# gui_trap.sh GUI OUT_DIR (labels gpu, gui): the workbook, headless (EGL, no display needed), runs
# a rung that traps on the real runner. The fault must be shown, the runner replaced, and the
# workbook must keep drawing frames to a normal exit.
# Exit 77 (skipped) when the runner reports no GPU.
gui=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
rm -rf "$out" && mkdir -p "$out/root/kernels"
ln -s "$repo/kernels/common" "$out/root/kernels/common"
ln -s "$repo/kernels/elementwise" "$out/root/kernels/elementwise"
ln -s "$here/data/kernels/trap" "$out/root/kernels/trap"
mkdir -p "$out/root/lessons" && ln -s "$here/data/lessons/01_trap_demo" "$out/root/lessons/01_trap_demo"
export KLADDER_ROOT="$out/root" XDG_CONFIG_HOME="$out/config" XDG_CACHE_HOME="${XDG_CACHE_HOME:-$out/cache}"
"$gui" --headless --no-save --size 1280x800 --lesson trap_demo --step 3 --run rung --exit-when-idle --max-seconds 300 \
    --screenshot "$out/trap.png" --report "$out/report.json" > "$out/stdout.txt" 2> "$out/stderr.txt"
rc=$?
cat "$out/stdout.txt"
[ $rc -eq 0 ] || { echo "FAIL: the window did not exit normally (code $rc)"; cat "$out/stderr.txt"; exit 1; }
python3 - "$out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
run = r["runner"]
if not run["gpu"]:
    print("SKIP: no GPU: " + run["no_gpu_reason"])
    sys.exit(77)
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
rc=$?
[ $rc -eq 0 ] || exit $rc
sh "$here/check_png.sh" "$out/trap.png" 1280 800 || exit 1
echo "ok"
