#!/bin/sh
# runner_recovery.sh GUI FAKE_RUNNER OUT_DIR: the window runs a sweep on a test double of the
# runner; the runner dies (SIGKILL) while its third request is in flight, and the window must
# recover: a fresh runner finishes the sweep, exactly the request in flight fails, the failure is
# shown, and the final screenshot is not blank. No GPU needed.
# Deterministic: the test double kills itself with the request in flight (--die-once-on-request),
# so no frame or reply timing decides the outcome. (The window's test hook --kill-runner-after
# killed from the window's side, and under CI's sanitizers the runner could answer before the
# kill landed: two failed runs.) The frame build times are printed, not judged: frame time under
# load is the load's, and the headless GPU tests (gpu.gui_frame_time_*) judge it on a quiet machine.
gui=$1
fake=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$3"
export KLADDER_SERVE="$fake --delay-ms 150 --die-once-on-request 3 $out/runner_died"
run_gui "$gui" --no-save --size 1280x800 --lesson first_kernel --step 4 --run sweep --exit-when-idle \
    --max-seconds 120 --screenshot "$out/recovery.png" --report "$out/report.json"
[ -f "$out/runner_died" ] || { echo "FAIL: the test double never died (no request 3 reached it)"; exit 1; }
python3 - "$out/report.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
run = r["runner"]
problems = []
if run["exits"] < 1: problems.append("no runner exit seen")
if run["restarts"] < 1: problems.append("no fresh runner started")
if run["job_active"]: problems.append("the sweep never finished")
if run["failures"] != 1: problems.append(f"expected exactly the killed request to fail, got {run['failures']} failures")
if run["results"] < 4: problems.append(f"only {run['results']} results after the restart")
if not any("died" in e or "killed" in e for e in r["errors_shown"]): problems.append("the failure was not shown: %s" % r["errors_shown"])
p99 = r["frame_build_own_ms"]["p99"]
print(f"runner recovery: {run['results']} results, {run['failures']} failed, {run['exits']} exit(s), {run['restarts']} restart(s); "
      f"frame build (own) p50 {r['frame_build_own_ms']['p50']:.2f} ms, p99 {p99:.2f} ms over {r['frames']} frames "
      f"(wall p99 {r['frame_build_ms']['p99']:.2f} ms, of which waiting for a CPU: max {r['frame_build_wait_ms']['max']:.2f} ms)")
# Where the whole frame interval goes (docs/gui.md): under Xvfb, llvmpipe rasterizes in swap.
stages = ["events", "build", "build_wait", "build_own", "render", "swap", "other", "interval"]
print("frame stages p50/p99 ms: " + ", ".join(f"{s} {r['frame_'+s+'_ms']['p50']:.2f}/{r['frame_'+s+'_ms']['p99']:.2f}" for s in stages))
if problems:
    print("FAIL: " + "; ".join(problems))
    sys.exit(1)
PY
sh "$here/check_png.sh" "$out/recovery.png" 1280 800 || exit 1
echo "ok"
