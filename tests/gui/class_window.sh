#!/bin/sh
# class_window.sh GUI FAKE_RUNNER MAKE_CLASS_FOLDER OUT_DIR: class mode in the window (issue 41):
#   1. a class folder made from the engine tests' fixtures (20 SYNTHETIC learners on three device
#      profiles, plus a tampered and a truncated file; tests/class/make_class_folder.cpp) opened
#      with "Class...", the folder and key remembered in the settings: the window shows the
#      leaderboard by share of each device's roof, one by time per device, the report's two
#      figures and the files not merged, each in one line; its leaderboard is the one
#      `kladder class merge` writes in the gradebook (the same merge), and nothing is written
#      into the submissions folder;
#   2. Submit for lesson 1's exercise on a window whose runner has no GPU: one line saying so,
#      nothing judged, no submission written.
gui=$1
fake=$2
make=$3
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$4"
# "Make the starter mine" writes the learner's rung to the XDG data folder: fresh_out's, outside
# the repository.
kladder="$(dirname "$gui")/../cli/kladder"
"$make" fixtures "$out/subs" "$out/class.key" || { echo "FAIL: make_class_folder fixtures"; exit 1; }
ls -l "$out/subs" > "$out/subs_before.txt"
mkdir -p "$XDG_CONFIG_HOME/kernel-ladder"
cat > "$XDG_CONFIG_HOME/kernel-ladder/workbook.json" <<JSON
{"version": 1, "class": {"learner": "Ada Lovelace", "key": "$out/class.key", "folder": "$out/subs"}}
JSON
export KLADDER_SERVE="$fake --no-gpu"
cat > "$out/script.txt" <<SCRIPT
wait 5
click button:class
wait 3
shot $out/class_popup.png
click button:class_open
wait 2
wait_idle
wait 10
shot $out/class.png
report $out/class.json
wheel class:body -12
wait 5
shot $out/class_figures.png
click button:class_close
wait 3
click tab:Mine
wait 3
click button:exercise_starter
wait 10
wait_idle
click button:submit
wait 3
wait_idle
click tab:Mine
wait 3
shot $out/submit.png
SCRIPT
run_gui "$gui" --size 1600x1000 --lesson first_kernel --step 8 --script "$out/script.txt" --max-seconds 180 \
    --report "$out/report.json"
"$kladder" class merge "$out/subs" -o "$out/merged" --key "$out/class.key" > /dev/null 2>&1
ls -l "$out/subs" > "$out/subs_after.txt"
python3 - "$out" "$XDG_DATA_HOME" <<'PY' || exit 1
import csv, json, os, sys
out, data = sys.argv[1], sys.argv[2]
c = json.load(open(f"{out}/class.json"))["class"]["class"]
r = json.load(open(f"{out}/report.json"))
sub = r["class"].get("submit", {})
board = c["exercises"]["01_first_kernel/8"]
rows = [row for row in csv.DictReader(open(f"{out}/merged/gradebook.csv")) if row["rank"]]
cli_order = [row["learner"] for row in sorted(rows, key=lambda row: int(row["rank"]))]
written = os.listdir(f"{data}/kernel-ladder/submissions") if os.path.isdir(f"{data}/kernel-ladder/submissions") else []
checks = [
    (c["error"] == "" and c["window_open"], f"the class window did not open: {c['error']!r}"),
    (c["entries"] == 20, f"entries merged: {c['entries']} (expected 20)"),
    (len(c["problems"]) == 2 and all("\n" not in p for p in c["problems"]), f"files not merged: {c['problems']}"),
    (any(p.startswith("tampered.json: tampered: ") for p in c["problems"]), "tampered.json not named"),
    (any(p.startswith("truncated.json: truncated: ") for p in c["problems"]), "truncated.json not named"),
    (len(board["devices"]) == 3, f"devices: {board['devices']} (expected three)"),
    ([e["learner"] for e in board["leaderboard"]] == cli_order,
     f"the window's leaderboard {[e['learner'] for e in board['leaderboard']]} is not kladder class merge's {cli_order}"),
    (open(f"{out}/subs_before.txt").read() == open(f"{out}/subs_after.txt").read(), "the submissions folder changed"),
    (not sub.get("written") and "there is none" in sub.get("line", "") and "nothing was judged or written" in sub.get("line", "")
     and "\n" not in sub.get("line", ""), f"Submit without a GPU: {sub!r}"),
    (written == [], f"a submission was written without a GPU: {written}"),
    (r["errors_shown"] == [], f"errors shown: {r['errors_shown']}"),
]
bad = [why for ok, why in checks if not ok]
for why in bad:
    print("FAIL:", why)
print(f"class window: {len(checks) - len(bad)} of {len(checks)} checks passed; submit: {sub.get('line')!r}")
sys.exit(1 if bad else 0)
PY
python3 "$here/check_png.py" --each 1600 1000 "$out/class.png" "$out/class_figures.png" "$out/submit.png" || exit 1
