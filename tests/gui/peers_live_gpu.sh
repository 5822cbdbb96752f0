#!/bin/sh
# peers_live_gpu.sh GUI OUT_DIR (labels gpu, gui): the window, headless on the GPU, runs the fusion
# lesson's elementwise ladder live (lesson 4, step 2), its PyTorch peers included (issue 36 part
# 3), and saves peers_live.png at 1280 x 720. Passes when every peer's card on the strip shows a
# live measurement, not a recording (the window runs with --no-recorded). Skipped (exit 77) without
# a GPU; a peer card showing "skipped" fails the test on a machine whose python3 has torch, and
# says so where it has not. The strip's header says the one hold the runner gave every rung of the
# run (issue 36, the window's part).
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2" "${XDG_CACHE_HOME:-}"
# A kept prediction for the step, so that its plot is open (predict, then reveal).
mkdir -p "$XDG_DATA_HOME/kernel-ladder"
echo '{"version": 1, "predictions": {"fusion": {"1": 100}}}' > "$XDG_DATA_HOME/kernel-ladder/progress.json"
cat > "$out/script.txt" <<SCRIPT
wait_until job 120
wait_until idle 600
wait 6
shot $out/peers_live.png
report $out/report.json
SCRIPT
run_gui "$gui" --headless --no-save --no-recorded --size 1280x720 --lesson fusion --step 2 --run ladder \
    --script "$out/script.txt" --max-seconds 800
skip_without_gpu "$out/report.json"
python3 - "$out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
peers = [c for c in r["strip"] if c["rung"].startswith("torch_")]
print(f"device: {r['runner']['device']}; {r['live_results']} live results; peers: " +
      ", ".join(f"{c['rung']} {c['shows']} ({c['detail']})" for c in peers))
problems = []
if len(peers) < 3: problems.append(f"{len(peers)} peer cards on the strip, expected 3")
for c in peers:
    if c["shows"] != "measured": problems.append(f"{c['rung']} shows {c['shows']}: {c['detail']}")
if r["runner"]["failures"]: problems.append(f"runner failures: {r['runner']['last_error']!r}")
# Issue 36, the window's part: a ladder run with peers shares one hold, as `kladder run` gives it.
hold = r["strip_header"]["hold"]
print(f"strip header: {hold!r}")
if not hold.startswith("one hold for every rung of this run: ") or ", set by torch_" not in hold:
    problems.append(f"no shared hold on the strip's header: {hold!r}")
if problems:
    print("FAIL: " + "; ".join(problems))
    sys.exit(1)
PY
