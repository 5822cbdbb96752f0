#!/bin/sh
# frame_time.sh GUI OUT_DIR LESSON STEP (labels gpu, gui): the workbook, headless (EGL, drawn by
# the GPU), runs the step's sweep on the real runner at 1920x1080, again and again for 15 s
# (a sweep alone may last one second), and reports its frame times. The loop runs as for a
# reader (paced to ~60 fps; no screenshot mode, which drops the pacing). Passes when, over the
# frames drawn while a sweep ran (at least 600), the 99th percentile of the frame's work and of
# the frame interval are both <= 16.7 ms (60 fps). Exit 77 (skipped) without a GPU.
gui=$1
lesson=${3:-matmul}
step=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2" "${XDG_CACHE_HOME:-}"
# A kept prediction for the step, so that the plot is drawn (predict, then reveal folds it until
# the learner has predicted, and the plot is what this test times).
mkdir -p "$XDG_DATA_HOME/kernel-ladder"
echo "{\"version\": 1, \"predictions\": {\"$lesson\": {\"$((step - 1))\": 1}}}" > "$XDG_DATA_HOME/kernel-ladder/progress.json"
run_gui "$gui" --headless --no-save --no-recorded --size 1920x1080 --lesson "$lesson" --step "$step" --run sweep --run-for 15 \
    --exit-when-idle --max-seconds 400 --report "$out/report.json"
skip_without_gpu "$out/report.json"
python3 - "$out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
run = r["runner"]
jobs = r["frames_during_jobs"]
work, interval = jobs["frame_work_ms"], jobs["frame_interval_ms"]
print(f"renderer: {r['renderer']}; device: {run['device']}")
print(f"{jobs['frames']} frames during {run['start_jobs']} sweeps ({run['results']} results): "
      f"work p50 {work['p50']:.2f} p99 {work['p99']:.2f} max {work['max']:.2f} ms; "
      f"interval p50 {interval['p50']:.2f} p99 {interval['p99']:.2f} max {interval['max']:.2f} ms")
problems = []
if run["failures"] or run["last_error"]: problems.append(f"the sweep failed: {run['last_error']!r}")
if run["results"] < 3: problems.append(f"only {run['results']} results: the sweep did not run")
if jobs["frames"] < 600: problems.append(f"only {jobs['frames']} frames during the sweeps: too few to judge a 99th percentile")
if work["p99"] > 16.7: problems.append(f"frame work p99 {work['p99']:.2f} ms > 16.7")
if interval["p99"] > 16.7: problems.append(f"frame interval p99 {interval['p99']:.2f} ms > 16.7")
if problems:
    print("FAIL: " + "; ".join(problems))
    sys.exit(1)
PY
