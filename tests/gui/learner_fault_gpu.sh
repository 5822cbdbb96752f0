#!/bin/sh
# learner_fault_gpu.sh GUI OUT_DIR (labels gpu, gui): the workbook, headless (EGL, no display
# needed), on a real GPU: the learner forks vector_add ("Make it mine"), types a trap into the
# kernel in the window's editor and saves (Ctrl+S), then a loop that never ends, then takes it back
# (Ctrl+Z). The learner's panel must name the rung and say what happened each time (a fault; a
# time-out), the runner must be replaced, and the window must keep drawing and run the fixed
# rung. Exit 77 (skipped) when the runner reports no GPU.
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2" "${XDG_CACHE_HOME:-}"
# The learner's workspace must lie outside the repository tree (the engine refuses it inside, and
# the output folder is in the build folder): fresh_out's temporary data folder.
# The trap and the loop go after the loop body's statement, wherever the rung's header puts it.
anchor=$(grep -n 'if (i < n) c\[i\]' "$here/../../kernels/elementwise/01_vector_add.cu" | cut -d: -f1)
[ -n "$anchor" ] || { echo "FAIL: no loop statement in kernels/elementwise/01_vector_add.cu"; exit 1; }
cat > "$out/script.txt" <<SCRIPT
wait 5
click card:vector_add
click tab:Source
click button:make_mine
wait 5
click editor:line:$anchor
key End
key Enter
type         __trap();
key Ctrl+S
wait_until job 30
wait_until idle 180
wait 20
report $out/trap.json
shot $out/trap.png
click tab:Mine
wait 30
key Ctrl+Z
wait 30
click editor:line:$anchor
key End
key Enter
type         while (clock64() >= 0) {}
key Ctrl+S
wait_until job 30
wait_until idle 180
wait 20
report $out/hang.json
shot $out/hang.png
click tab:Mine
wait 30
key Ctrl+Z
wait 30
key Ctrl+S
wait_until job 30
wait_until idle 180
wait 5
SCRIPT
run_gui "$gui" --headless --no-save --size 1440x900 --lesson first_kernel --step 3 --request-timeout 15 \
    --script "$out/script.txt" --max-seconds 540 --report "$out/report.json"
skip_without_gpu "$out/report.json"
python3 - "$out" <<'PY' || exit 1
import json, sys
out = sys.argv[1]
r = json.load(open(f"{out}/report.json"))
trap = json.load(open(f"{out}/trap.json"))
hang = json.load(open(f"{out}/hang.json"))
le = r["learner"]
checks = [
    (not r["script"]["errors"], f"script: {r['script']['errors']}"),
    ("faulted" in trap["learner"]["outcome"] and "mine" in trap["learner"]["outcome"], f"after the trap the panel says {trap['learner']['outcome']!r}"),
    ("mine_vector_add" in hang["learner"]["outcome"] and hang["learner"]["outcome_error"], f"after the endless loop the panel says {hang['learner']['outcome']!r}"),
    (r["runner"]["exits"] >= 2, f"runner exits {r['runner']['exits']} (a fault and a time-out: 2 expected)"),
    (not le["outcome_error"] and "ms" in le["outcome"], f"after the fix the panel says {le['outcome']!r}"),
    (r["frames"] > 100, f"only {r['frames']} frames drawn"),
]
print("trap: " + trap["learner"]["outcome"])
print("hang: " + hang["learner"]["outcome"])
print("fixed: " + le["outcome"])
print(f"{r['frames']} frames by {r['renderer']}; runner exits {r['runner']['exits']}, restarts {r['runner']['restarts']}")
bad = [m for ok, m in checks if not ok]
if bad:
    print("FAIL: " + "\n      ".join(bad))
    sys.exit(1)
PY
for f in trap hang; do sh "$here/check_png.sh" "$out/$f.png" 1440 900 || exit 1; done
echo ok
