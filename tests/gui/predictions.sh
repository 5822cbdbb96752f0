#!/bin/sh
# predictions.sh GUI OUT_DIR: predict, then reveal, in the real window. A fresh data folder
# shows the prompt ("Your prediction" with its input and Keep) with the plot folded until the
# learner predicts or asks to see it (the script fails if that button is missing); with a kept
# prediction and the recorded result of the step's rung, the window shows prediction against
# measurement, whose
# reset button clears that lesson's predictions from $XDG_DATA_HOME/kernel-ladder/progress.json
# and leaves other lessons' alone; the kernels' timeline line is folded with the plot. No GPU: the
# measurement is the recording.
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2"
cat > "$out/prompt.txt" <<SCRIPT
wait 3
wheel panel:step_text -40
wait 3
click input:prediction
shot $out/prompt.png
click button:reveal_plot
wait 3
shot $out/revealed.png
SCRIPT
run_gui "$gui" --size 1280x800 --no-runner --lesson first_kernel --step 4 --script "$out/prompt.txt" \
    --max-seconds 60 --report "$out/prompt.json"
[ ! -e "$XDG_DATA_HOME/kernel-ladder/progress.json" ] || { echo "FAIL: the prompt alone wrote progress"; exit 1; }

# A step whose rung's recording carries a timeline (matmul rung 21, --timeline runs): the line of
# the kernels' own time is a measurement too, so it stays folded with the plot. `wheel` on a
# widget that is not on screen is a script error: the first must fail, the second must not.
cat > "$out/timeline.txt" <<SCRIPT
wait 3
wheel text:timeline 0
shot $out/timeline_folded.png
click button:reveal_plot
wait 3
wheel text:timeline 0
SCRIPT
# The workbook exits 3 when its script had errors (app/gui/test_driver.cpp): here, the one expected.
"$gui" --size 1280x800 --no-runner --lesson matmul_hopper --step 11 --script "$out/timeline.txt" \
    --max-seconds 60 --report "$out/timeline.json" > "$out/timeline_stdout.txt" 2> "$out/timeline_stderr.txt"
rc=$?
[ $rc -eq 3 ] || { echo "FAIL: the timeline script: exit $rc, 3 expected"; cat "$out/timeline_stderr.txt"; exit 1; }
python3 - "$out/timeline.json" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))["script"]
want = ["no widget 'text:timeline' on screen for 'wheel text:timeline 0'"]
if not s["finished"] or s["errors"] != want:
    print(f"FAIL: the timeline line before and after the reveal: finished {s['finished']}, errors {s['errors']}")
    sys.exit(1)
PY

mkdir -p "$XDG_DATA_HOME/kernel-ladder"
echo '{"version": 1, "predictions": {"first_kernel": {"3": 1300}, "fusion": {"2": 0.8}}}' \
    > "$XDG_DATA_HOME/kernel-ladder/progress.json"
cat > "$out/reveal.txt" <<SCRIPT
wait 3
wheel panel:step_text -40
wait 3
shot $out/reveal.png
click button:reset_predictions
wait 3
shot $out/after.png
SCRIPT
run_gui "$gui" --size 1280x800 --no-runner --lesson first_kernel --step 4 --script "$out/reveal.txt" \
    --max-seconds 60 --report "$out/reveal.json"
python3 - "$out/prompt.json" "$out/reveal.json" "$XDG_DATA_HOME/kernel-ladder/progress.json" <<'PY' || exit 1
import json, sys
prompt, reveal = (json.load(open(p))["script"] for p in sys.argv[1:3])
progress = json.load(open(sys.argv[3]))["predictions"]
checks = [
    # The input exists only while no prediction is kept; the reset button only beside a verdict.
    (prompt["finished"] and not prompt["errors"], f"prompt script: {prompt['errors']}"),
    (reveal["finished"] and not reveal["errors"], f"reveal script: {reveal['errors']}"),
    ("first_kernel" not in progress, f"reset left the lesson's predictions: {progress}"),
    (progress.get("fusion") == {"2": 0.8}, f"reset touched another lesson: {progress}"),
]
bad = [msg for ok, msg in checks if not ok]
print(f"predictions: {len(checks) - len(bad)} of {len(checks)} checks passed")
if bad:
    print("FAIL: " + "\n      ".join(bad))
    sys.exit(1)
PY
for f in prompt revealed reveal after timeline_folded; do sh "$here/check_png.sh" "$out/$f.png" 1280 800 || exit 1; done
echo ok
