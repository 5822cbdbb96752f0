#!/bin/sh
# stopwatch_window.sh GUI FAKE_RUNNER OUT_DIR (issue 36, "One clock", the window's part). No GPU needed.
# 1. Recorded: the H100's elementwise recording with gelu_fused's figure marked as timed by the GPU
#    span (a fixture written here, not a measurement). Its card says "span", its tooltip the events'
#    median of the same repetitions and the record's note, the strip's header that the cards mix
#    stopwatches, the plot's caption too; screenshot recorded_span.png, the card's tooltip open.
# 2. Live, the span picked in the status bar's choice: a fresh runner (a test double,
#    fake_runner.cpp) gets KL_STOPWATCH=span, says so, its figures are span figures and the choice
#    is saved; the Run ladder's requests
#    carry the batch, and the strip's header shows the one hold the runner says it gave them;
#    screenshot span.png.
# 3. Live, the span asked in the settings of a runner that cannot take it (no CUPTI): the reason is in the status
#    line and the report, and the cards say "events, no span", never an unlabelled fall-back.
gui=$1
fake=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
root="$3"
rm -rf "$root" && mkdir -p "$root"

# 1. A recording with one span figure among events figures.
fresh_out "$root/recorded"
python3 - "$here/../../assets/recorded/h100_elementwise.json" "$out/span.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    if r["rung"] == "gelu_fused":
        r["stopwatch"] = "span"
        r["event_median_ms"] = round(r["timing"]["median_ms"] * 1.031, 6)
        r["stopwatch_note"] = "test fixture: marked as a span figure by stopwatch_window.sh"
d["command"] = "stopwatch_window.sh fixture (gelu_fused marked span; not a measurement)"
json.dump(d, open(sys.argv[2], "w"))
PY
# Every prediction of the lesson kept, so that no card waits for one (predict, then reveal).
keep_predictions() {
    mkdir -p "$XDG_DATA_HOME/kernel-ladder"
    python3 - "$here/../../lessons/04_fusion/lesson.toml" > "$XDG_DATA_HOME/kernel-ladder/progress.json" <<'PY'
import json, re, sys
steps = re.split(r"^\[\[step\]\]", open(sys.argv[1]).read(), flags=re.M)[1:]
kept = {str(i): 100 for i, s in enumerate(steps) if re.search(r"^predict", s, flags=re.M)}
print(json.dumps({"version": 1, "predictions": {"fusion": kept}}))
PY
}
keep_predictions
cat > "$out/script.txt" <<SCRIPT
wait 3
click card:gelu_fused
wait 2
shot $out/recorded_span.png
SCRIPT
run_gui "$gui" --size 1600x900 --no-save --no-runner --no-recorded --results "$out/span.json" \
    --lesson fusion --step 3 --script "$out/script.txt" --max-seconds 60 --report "$out/report.json"
verdict "$out/report.json" "stopwatch_window (recorded)" '[
    (cards["gelu_fused"]["stopwatch"] == "span" and "span" in cards["gelu_fused"]["text"],
     "gelu_fused card: " + str(cards.get("gelu_fused"))),
    (any(l.startswith("timed by GPU span (CUPTI); CUDA events of the same repetitions") and "(+3.1%)" in l
         for l in cards["gelu_fused"]["stopwatch_lines"]), "span tooltip: " + str(cards["gelu_fused"]["stopwatch_lines"])),
    ("stopwatch note: test fixture" in " ".join(cards["gelu_fused"]["stopwatch_lines"]), "no note in the tooltip"),
    (cards["vector_add"]["stopwatch"] == "events" and "span" not in cards["vector_add"]["text"]
     and cards["vector_add"]["stopwatch_lines"] == ["timed by CUDA events"], "vector_add card: " + str(cards.get("vector_add"))),
    (r["strip_header"]["stopwatch_mixed"].startswith("mixed stopwatches: 3 timed by CUDA events, 1 by GPU span (CUPTI)"),
     "strip header: " + str(r["strip_header"])),
    ("mixed stopwatches" in r["plot_caption"] or "GPU span (CUPTI)" in r["plot_caption"]
     or "CUDA events" in r["plot_caption"], "the plot caption names no stopwatch: " + r["plot_caption"]),
    (not r["errors_shown"], "errors shown: " + str(r["errors_shown"])),
]' || exit 1
sh "$here/check_png.sh" "$out/recorded_span.png" 1600 900 || exit 1

# 2. Live with the span asked for in the settings: the runner is told, and a ladder run shares a hold.
# live NAME FAKE_ARGS: the fusion step, the ladder run by the test double, the span asked for: in the
# settings file, or with NAME "span" picked in the status bar's choice (a fresh runner, the choice saved).
live() {
    fresh_out "$root/$1"
    mkdir -p "$XDG_CONFIG_HOME/kernel-ladder"
    settings="$XDG_CONFIG_HOME/kernel-ladder/workbook.json"
    [ "$1" = span ] || echo '{"version": 1, "runner": {"stopwatch": "span"}}' > "$settings"
    keep_predictions
    KLADDER_SERVE="$fake --delay-ms 10 $2"
    export KLADDER_SERVE
    if [ "$1" = span ]; then
        printf 'wait 3\nclick combo:stopwatch\nwait 1\nclick stopwatch:span\nwait 3\nclick button:run_ladder\n' > "$out/script.txt"
    else
        printf 'click button:run_ladder\n' > "$out/script.txt"
    fi
    cat >> "$out/script.txt" <<SCRIPT
wait_until results 11 60
wait_until idle 60
wait 4
shot $out/$1.png
SCRIPT
    run_gui "$gui" --size 1600x900 --no-recorded --lesson fusion --step 3 \
        --script "$out/script.txt" --max-seconds 120 --report "$out/report.json"
}
live span ""
verdict "$out/report.json" "stopwatch_window (live span)" '[
    (r["runner"]["stopwatch"] == "span" and r["runner"]["stopwatch_note"] == "", "runner: " + str(r["runner"])),
    (r["live_results"] > 0, "no live results"),
    (all(c["stopwatch"] == "span" for c in cards.values() if c["shows"] == "measured"),
     "a live card not on the span: " + str([c for c in cards.values() if c["shows"] == "measured" and c["stopwatch"] != "span"])),
    (r["strip_header"]["stopwatch_mixed"] == "", "live span cards said to mix: " + r["strip_header"]["stopwatch_mixed"]),
    (r["strip_header"]["hold"].startswith("one hold for every rung of this run: 300 us, set by torch_"),
     "strip header hold: " + str(r["strip_header"])),
    (any("one hold for every rung of this run" in l for l in r["log"]), "the hold is not in the log"),
    (any("stopwatch: GPU span (CUPTI) for the next runs" in l for l in r["log"]), "the choice is not in the log"),
]' || exit 1
python3 -c 'import json, sys; s = json.load(open(sys.argv[1])); sys.exit(s["runner"]["stopwatch"] != "span")' "$settings" ||
    { echo "FAIL: the choice was not saved: $(cat "$settings")"; exit 1; }
sh "$here/check_png.sh" "$out/span.png" 1600 900 || exit 1

# 3. The span asked of a runner that cannot take it: the runner's reason, shown.
live span_unavailable "--span-unavailable"
verdict "$out/report.json" "stopwatch_window (span unavailable)" '[
    ("CUPTI not found" in r["runner"]["stopwatch_note"], "runner: " + str(r["runner"])),
    (any("stopwatch: the span cannot be taken here" in l for l in r["log"]), "the reason is not in the log"),
    (all(c["text"].split(" | ")[0].endswith(" no span") and any("span not taken" in l for l in c["stopwatch_lines"])
         for c in cards.values() if c["shows"] == "measured"), "cards: " + str(cards)),
]' || exit 1
sh "$here/check_png.sh" "$out/span_unavailable.png" 1600 900 || exit 1
echo ok
