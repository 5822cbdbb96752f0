#!/bin/sh
# screenshot_all.sh GUI OUT_DIR PNG_CHECK: a screenshot of every step of every lesson, from the recorded
# results (assets/recorded), each checked non-blank, the window walked through each lesson, with nothing on stderr, no error shown in
# the window and every bound number of the step's text resolved. Run under xvfb-run (CTest does).
# Fails if any lesson or ladder fails to load.
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2"

steps=$("$gui" --list-steps 2> "$out/list.err")
if [ $? -ne 0 ] || [ -s "$out/list.err" ]; then
    echo "FAIL: lessons or ladders do not load:"; cat "$out/list.err"; exit 1
fi
[ -n "$steps" ] || { echo "FAIL: no lessons found"; exit 1; }

# One window per lesson, opened on its first step and walked to its last with the Right key, as
# a learner reads it: a screenshot and a report of each step once nothing is pending (wait_idle:
# no job, no PTX on its way) and a few frames have settled the layout. (A window per step cost
# 2.3 s of CPU each, 124 of them, in CI's 45 minutes; the tests that open a window on a given
# step, as a learner's link does, are gui.export_lesson, gui.predictions and the others.)
total=0
failed=0
names=""
while IFS="$(printf '\t')" read -r lesson n; do
    script="$out/$lesson.script"
    : > "$script"
    s=1
    while [ "$s" -le "$n" ]; do
        name="${lesson}_step$(printf %02d "$s")"
        [ "$s" -gt 1 ] && echo "key Right" >> "$script"
        printf 'wait_idle\nwait 6\nshot %s\nreport %s\n' "$out/$name.png" "$out/$name.json" >> "$script"
        names="$names $name"
        total=$((total + 1))
        s=$((s + 1))
    done
    "$gui" --no-save --no-runner --size 1280x800 --lesson "$lesson" --step 1 --script "$script" \
        --report "$out/$lesson.json" > "$out/$lesson.log" 2> "$out/$lesson.err"
    rc=$?
    problem=""
    [ $rc -eq 0 ] || problem="exit code $rc"
    [ -s "$out/$lesson.err" ] && problem="$problem; stderr: $(head -c 400 "$out/$lesson.err")"
    if [ -n "$problem" ]; then
        echo "FAIL: $lesson: $problem"
        failed=$((failed + 1))
    fi
done <<STEPS
$steps
STEPS

# Every step's report: no error shown, no lesson or ladder error, every bound number resolved.
# shellcheck disable=SC2086 # $names is a list of plain names
python3 - "$out" $names <<'PY' || failed=$((failed + 1))
import json, sys
out, bad = sys.argv[1], 0
for name in sys.argv[2:]:
    try:
        r = json.load(open(f"{out}/{name}.json"))
        errors = r["errors_shown"] + [e["message"] for e in r["lesson_errors"]] + r["ladder_errors"]
        errors += ["unresolved number: " + u for u in r["unresolved_bindings"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        errors = [f"no readable report ({e})"]
    if errors:
        print(f"FAIL: {name}: errors shown: {'; '.join(errors)[:400]}")
        bad += 1
    else:
        print(f"ok: {name}")
sys.exit(1 if bad else 0)
PY
# Every screenshot: a PNG of 1280x800 or more that is not blank (png_check.cpp: check_png.py's
# test, without decoding 145 PNGs in Python).
pngs=""
for name in $names; do pngs="$pngs $out/$name.png"; done
# shellcheck disable=SC2086
"$3" 1280 800 $pngs || failed=$((failed + 1))
echo "$total screenshots in $out; $failed checks failed"
[ "$total" -gt 0 ] && [ "$failed" -eq 0 ]
