#!/bin/sh
# screenshot_all.sh GUI OUT_DIR: a screenshot of every step of every lesson, from the recorded
# results (assets/recorded), each checked non-blank, with nothing on stderr, no error shown in
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

# One window per step (each starts on its step, as a learner's link does); the reports and the
# PNGs are checked afterwards, all in one Python process each (a process per file cost more than
# the window's own start-up).
total=0
failed=0
names=""
while IFS="$(printf '\t')" read -r lesson n; do
    s=1
    while [ "$s" -le "$n" ]; do
        name="${lesson}_step$(printf %02d "$s")"
        "$gui" --no-save --no-runner --size 1280x800 --lesson "$lesson" --step "$s" \
            --screenshot "$out/$name.png" --report "$out/$name.json" > "$out/$name.log" 2> "$out/$name.err"
        rc=$?
        problem=""
        [ $rc -eq 0 ] || problem="exit code $rc"
        [ -s "$out/$name.err" ] && problem="$problem; stderr: $(head -c 400 "$out/$name.err")"
        if [ -n "$problem" ]; then
            echo "FAIL: $lesson step $s: $problem"
            failed=$((failed + 1))
        fi
        names="$names $name"
        total=$((total + 1))
        s=$((s + 1))
    done
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
# Every screenshot: a PNG of 1280x800 or more that is not blank.
pngs=""
for name in $names; do pngs="$pngs $out/$name.png"; done
# shellcheck disable=SC2086
python3 "$here/check_png.py" --each 1280 800 $pngs || failed=$((failed + 1))
echo "$total screenshots in $out; $failed checks failed"
[ "$total" -gt 0 ] && [ "$failed" -eq 0 ]
