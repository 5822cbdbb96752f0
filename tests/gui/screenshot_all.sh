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

total=0
failed=0
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
        python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
bad = r["errors_shown"] + [e["message"] for e in r["lesson_errors"]] + r["ladder_errors"]
bad += ["unresolved number: " + u for u in r["unresolved_bindings"]]
sys.exit("; ".join(bad)[:400] if bad else 0)' "$out/$name.json" 2>> "$out/$name.err" || problem="$problem; errors shown: $(tail -c 400 "$out/$name.err")"
        sh "$here/check_png.sh" "$out/$name.png" 1280 800 > "$out/$name.png.check" || problem="$problem; $(cat "$out/$name.png.check")"
        if [ -n "$problem" ]; then
            echo "FAIL: $lesson step $s: $problem"
            failed=$((failed + 1))
        else
            echo "ok: $lesson step $s"
        fi
        total=$((total + 1))
        s=$((s + 1))
    done
done <<STEPS
$steps
STEPS
echo "$total screenshots in $out, $failed failed"
[ "$total" -gt 0 ] && [ "$failed" -eq 0 ]
