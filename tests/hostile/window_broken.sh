#!/bin/bash
# window_broken.sh GUI WORK: the window `kernel-ladder` (under Xvfb) opened on a data tree with a
# broken lesson (its text file is a device file), a results file in assets/recorded whose fields
# have the wrong JSON types (once an uncaught type_error that stopped the window at start-up) and
# a --results file nested 100,000 levels deep. It must open (exit 0), show the good lesson, and
# list each broken file with its message at the top of the navigator: the report names them, and
# the screenshot ($WORK/window_broken.png) shows them (tests/gui/check_png.sh: not blank).
set -u
# As tests/gui/window_test.sh says: Mesa's unloaded llvmpipe makes the window's leaks uncheckable
# in a sanitizer build; address and undefined-behaviour checks stay on.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
gui=$(realpath "$1") work=$(realpath -m "$2")
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work/root/lessons" "$work/root/assets/recorded"
export XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config"
root=$work/root
ln -s "$src/kernels" "$root/kernels"
cp -r "$src/lessons/01_first_kernel" "$src/lessons/00_measuring" "$root/lessons/"
ln -s /dev/zero "$root/lessons/00_measuring/zero.md"
sed -i '0,/^text *=.*/s//text = "zero.md"/' "$root/lessons/00_measuring/lesson.toml"
cp "$src/assets/recorded/h100_elementwise.json" "$root/assets/recorded/"
python3 - "$src/assets/recorded/h100_elementwise.json" "$root/assets/recorded/wrong_types.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["device"]["uuid"] = 12345
r["runs"][0]["title"] = {"not": "a string"}
json.dump(r, open(sys.argv[2], "w"))
PY
python3 -c 'print("[" * 100000 + "]" * 100000)' > "$work/deep.json"
KLADDER_ROOT=$root timeout -k 5 300 "$gui" --no-save --no-runner --size 1280x800 --lesson first_kernel --step 3 \
    --results "$work/deep.json" --screenshot "$work/window_broken.png" --report "$work/report.json" \
    > "$work/stdout.txt" 2> "$work/stderr.txt"
rc=$?
cat "$work/stdout.txt"
[ $rc -eq 0 ] || { echo "FAIL: the window exited with code $rc"; cat "$work/stderr.txt"; exit 1; }
if grep -Eq 'Sanitizer|runtime error:' "$work/stderr.txt"; then cat "$work/stderr.txt"; exit 1; fi
python3 - "$work/report.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
problems = []
le, re_ = r["lesson_errors"], r.get("results_errors", [])
if r["lessons"] != 1: problems.append(f"expected the good lesson to load, got {r['lessons']}")
if not any("00_measuring" in e["folder"] and "text" in e["message"] and "device file" in e["message"] for e in le):
    problems.append(f"no error entry naming the lesson's text field and the device file: {le}")
if not any("wrong_types.json" in e and "device.uuid: expected a string" in e for e in re_):
    problems.append(f"no error naming wrong_types.json and device.uuid: {re_}")
if not any("deep.json" in e and "nested deeper" in e for e in re_):
    problems.append(f"no error naming deep.json: {re_}")
for e in le: print("lesson error shown:", e["message"])
for e in re_: print("results error shown:", e)
if problems:
    print("FAIL: " + "; ".join(problems)); sys.exit(1)
PY
sh "$src/tests/gui/check_png.sh" "$work/window_broken.png" 1280 800 || exit 1

# A screenshot that cannot be written is exit 3 with the reason, never exit 0 and never a
# replaced device node or a partial file.
for shot in /dev/null "$work/no/such/folder/shot.png"; do
    KLADDER_ROOT=$root timeout -k 5 300 "$gui" --no-save --no-runner --size 640x480 --lesson first_kernel \
        --screenshot "$shot" > /dev/null 2> "$work/shot_err.txt"
    rc=$?
    echo "screenshot to $shot: exit $rc: $(grep -m1 "$shot\|cannot write" "$work/shot_err.txt")"
    [ $rc -eq 3 ] || { echo "FAIL: expected exit 3"; cat "$work/shot_err.txt"; exit 1; }
    grep -q "cannot write '$shot'" "$work/shot_err.txt" || { echo "FAIL: no line naming $shot"; exit 1; }
done
[ -c /dev/null ] || { echo "FAIL: /dev/null is no longer a device"; exit 1; }
[ ! -e "$work/no" ] || { echo "FAIL: a folder was created"; exit 1; }
echo ok
