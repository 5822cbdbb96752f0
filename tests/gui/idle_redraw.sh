#!/bin/sh
# idle_redraw.sh GUI OUT_DIR: idle means no redraws (issue 38). The window opens in recorded
# mode with its runner (no GPU here) and is left alone for 8 s: it may draw the frames that lay
# it out and those that show the runner's hello, then none. Frames are counted, not timed: on a
# loaded machine an idle window draws no more of them, while one that redraws without a pause
# draws hundreds in 8 s even there (a frame of llvmpipe at 1280 x 720 takes well under 40 ms).
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2"
run_gui "$gui" --size 1280x720 --lesson first_kernel --step 3 --max-seconds 8 --report "$out/report.json"
python3 - "$out/report.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
frames = r["frames"] + 2  # the report counts frames after the first two
print(f"idle_redraw: {frames} frames in 8 s idle (runner hello {r['runner']['hello']})")
# 2 x 3 settling frames at the start, 3 after the runner's hello, 3 after its exit or a log line:
# a dozen; 30 leaves room for a focus or expose event from the X server.
if frames > 30:
    print(f"FAIL: the idle window drew {frames} frames in 8 s; it should wait for input")
    sys.exit(1)
if r["errors_shown"]:
    print(f"FAIL: errors shown: {r['errors_shown']}")
    sys.exit(1)
PY
echo ok
