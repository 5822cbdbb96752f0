#!/bin/sh
# export_lesson.sh GUI OUT_DIR: through the window, from the recorded results, no GPU: the plot's
# Export popup writes the figure in every format with its results beside it, and "Export lesson…"
# writes the lesson's figures and handout into the prefilled ~/kernel-ladder-export/<lesson>
# (HOME points into OUT_DIR). Then an export into a folder that cannot be made must show one
# line saying why, and write nothing.
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2"
mkdir -p "$out/home"
cat > "$out/script.txt" <<SCRIPT
wait 5
click button:export
wait 2
click button:export_go
wait 2
click button:export_lesson
wait 2
shot $out/popup.png
click button:export_lesson_go
wait 3
wait_idle
wait 3
SCRIPT
run_gui env HOME="$out/home" "$gui" --no-save --no-runner --size 1280x800 --lesson first_kernel --step 3 --script "$out/script.txt" \
    --max-seconds 120 --report "$out/report.json"
lesson="$out/home/kernel-ladder-export/first_kernel"
fail=0
for f in handout.md handout.html handout.pdf results.json; do
    [ -s "$lesson/$f" ] || { echo "FAIL: $lesson/$f missing"; fail=1; }
done
n_png=$(ls "$lesson"/step*.png 2>/dev/null | wc -l)
[ "$n_png" -ge 1 ] || { echo "FAIL: no step figures in $lesson"; ls -la "$lesson"; fail=1; }
for png in "$lesson"/step*.png; do
    base=${png%.png}
    [ -s "$base.svg" ] && [ -s "$base.pdf" ] || { echo "FAIL: $base: SVG or PDF missing"; fail=1; }
    grep -q "$(basename "$png")" "$lesson/handout.md" || { echo "FAIL: handout.md does not show $(basename "$png")"; fail=1; }
done
figs="$out/home/kernel-ladder-figures"
for ext in svg pdf png csv results.json; do
    ls "$figs"/*."$ext" > /dev/null 2>&1 || { echo "FAIL: per-plot export wrote no .$ext to $figs"; fail=1; }
done
python3 - "$out/report.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
sc = r["script"]
bad = []
if not sc["finished"] or sc["errors"]: bad.append(f"script: {sc['errors']}")
if not any("] Exported lesson 1:" in l for l in r["log"]): bad.append("no 'Exported lesson' line in the log: " + str(r["log"][-5:]))
if r["errors_shown"]: bad.append(f"errors shown: {r['errors_shown']}")
if bad:
    print("FAIL: " + "\n      ".join(bad)); sys.exit(1)
PY
[ $fail -eq 0 ] || exit 1
sh "$here/check_png.sh" "$out/popup.png" 1280 800 || exit 1

# A HOME that is a file: the destination's parent cannot be made. One line, nothing written.
: > "$out/blocker"
cat > "$out/script2.txt" <<SCRIPT
wait 5
click button:export_lesson
wait 2
click button:export_lesson_go
wait 3
wait_idle
wait 3
SCRIPT
HOME="$out/blocker" "$gui" --no-save --no-runner --size 1280x800 --lesson first_kernel --step 3 --script "$out/script2.txt" \
    --max-seconds 120 --report "$out/report2.json" > "$out/stdout2.txt" 2> "$out/stderr2.txt"
python3 - "$out/report2.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
errs = [e for e in r["errors_shown"] if e.startswith("Export lesson failed:")]
if len(errs) != 1 or "\n" in errs[0] or "blocker" not in errs[0]:
    print(f"FAIL: expected one line naming the folder, got {r['errors_shown']}"); sys.exit(1)
print("failure shown: " + errs[0])
PY

# The same handout as `kladder export-lesson` (issue 38): the window, given two H100 files and an
# H200 one, exports the device its plots show (the first file's); the command line, given the two
# H100 files, writes the same handout, results and figures byte for byte.
kladder=$(dirname "$gui")/../cli/kladder
rec=$(cd "$here/../.." && pwd)/assets/recorded
if [ -x "$kladder" ]; then
    printf 'wait 2\nclick button:export_lesson\nwait 1\nclick button:export_lesson_go\nwait 2\nwait_idle\nwait 1\n' \
        > "$out/script3.txt"
    HOME="$out/same" "$gui" --no-save --no-runner --no-recorded --results "$rec/h100_elementwise.json" \
        --results "$rec/h100_vector_add_sweep_tpb.json" --results "$rec/h200_elementwise.json" --size 1280x800 \
        --lesson first_kernel --step 3 --script "$out/script3.txt" --max-seconds 120 --report "$out/report3.json" \
        > "$out/stdout3.txt" 2> "$out/stderr3.txt"
    "$kladder" export-lesson first_kernel --results "$rec/h100_elementwise.json" \
        --results "$rec/h100_vector_add_sweep_tpb.json" -o "$out/cli" > /dev/null || { echo "FAIL: kladder export-lesson"; exit 1; }
    window="$out/same/kernel-ladder-export/first_kernel"
    for f in handout.md handout.html handout.pdf results.json step03_bars.svg step04_sweep.svg; do
        cmp -s "$window/$f" "$out/cli/$f" || { echo "FAIL: the window's $f differs from kladder's"; exit 1; }
    done
    grep -q "H200" "$window/handout.md" && { echo "FAIL: the H200 is in the window's H100 handout"; exit 1; }
    echo "the window's handout is kladder's"
fi
echo ok
