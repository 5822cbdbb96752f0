#!/bin/sh
# interaction.sh GUI FAKE_RUNNER OUT_DIR: drives the real window with scripted keys and clicks
# (--script; widgets are found by name) against a test double of the runner, then checks where
# the reader ended up: arrow keys move between steps, a rung card selects the rung, tabs switch,
# Sweep runs and Cancel stops it, Run rung runs, answers reveal, a flashcard flips, the
# navigator splitter drags, F12 shows the frame overlay, the theme toggles, Ctrl+= zooms (fonts
# rebuilt). No GPU needed.
gui=$1
fake=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$3"
export KLADDER_SERVE="$fake --delay-ms 150"
cat > "$out/script.txt" <<SCRIPT
wait 5
key Right                   # step 3 -> 4
key Right                   # -> 5
key Left                    # -> 4
wait 2
click card:gelu_fused
click tab:Source
click seg:Diff vs previous rung
wait 3
shot $out/diff.png
click tab:Plots
click card:vector_add
click button:sweep
wait_until results 1         # one value measured (not a frame count: frames slow down under load)
click button:cancel
wait_idle
click button:run_rung
wait_idle
wheel panel:step_text -30
click button:step_answer
click tab:Self-check
click seg:Flashcards
wait 2
click flashcard
click seg:Questions
wait 2
click button:answer:2
click choice:1:2
drag splitter:navigator 60 0
key F12
click button:theme
key Ctrl+=
wait 5
shot $out/final.png
SCRIPT
run_gui "$gui" --size 1280x800 --lesson first_kernel --step 3 --script "$out/script.txt" --max-seconds 120 \
    --report "$out/report.json"
python3 - "$out/report.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
st, run, sc = r["state"], r["runner"], r["script"]
checks = [
    (sc["finished"] and not sc["errors"], f"script: {sc['errors']}"),
    (st["lesson"] == "first_kernel" and st["step"] == 4, f"arrow keys: at {st['lesson']} step {st['step']}, expected first_kernel step 4"),
    (st["rung"] == "vector_add", f"rung cards: rung {st['rung']}"),
    (st["right_tab"] == 2 and st["selfcheck_tab"] == 0, f"tabs: right {st['right_tab']}, self-check {st['selfcheck_tab']}"),
    (st["plots_tab"] == 1, f"Sweep shows the sweep plot: plots tab {st['plots_tab']}"),
    (any("sweep of TPB" in l and "cancelled" in l for l in r["log"]), "Cancel did not cancel the sweep: " + str([l for l in r["log"] if "sweep" in l])),
    (run["results"] >= 2 and not run["job_active"], f"runs: {run['results']} results, job active {run['job_active']}"),
    (run["failures"] == 0, f"failures: {r['errors_shown']}"),
    (st["step_answer_shown"], "the step's answer was not revealed"),
    (st["card_flipped"], "the flashcard did not flip"),
    (st["answers"].get("1") == 1 and st["answers"].get("2") == -2, f"self-check answers: {st['answers']}"),
    (st["navigator_width"] > 300, f"splitter: navigator width {st['navigator_width']}"),
    (st["frame_overlay"], "F12 did not show the frame overlay"),
    (st["dark"] is False, "the theme did not toggle"),
    (abs(st["zoom"] - 1.1) < 1e-3 and abs(st["font_scale"] - 1.1) < 1e-3, f"Ctrl+= zoom: zoom {st['zoom']}, fonts at {st['font_scale']}"),
]
bad = [msg for ok, msg in checks if not ok]
print(f"interaction: {len(checks) - len(bad)} of {len(checks)} checks passed; frame build p99 {r['frame_build_ms']['p99']:.2f} ms")
if bad:
    print("FAIL: " + "\n      ".join(bad))
    sys.exit(1)
PY
for f in diff final; do sh "$here/check_png.sh" "$out/$f.png" 1280 800 || exit 1; done
echo ok
