#!/bin/bash
# limits_window.sh GUI WORK: issue 34's hangs and crashes of the window `kernel-ladder` at
# start-up, under Xvfb (a 1920x1200 screen, see CMakeLists.txt). Each case must open the window,
# take its screenshot and exit 0 within $limit seconds, with no sanitizer report:
# - its settings file (~/.config/kernel-ladder/workbook.json) a FIFO (start-up blocked for ever),
#   or a link to /dev/zero (the window read it, growing to 4.5 GB): set aside unread, one line;
# - --size 100000x100000, or a saved size larger than the display (an X error ended the window):
#   shrunk to the display's work area, one line saying so;
# - a FIFO for a lesson.toml or a ladder.toml (blocked for ever): listed with the other errors;
# - JSON nested 100,000 deep among the recorded peer figures (a stack overflow): listed, skipped.
set -u
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"  # as tests/gui/window_test.sh says
gui=$(realpath "$1") work=$(realpath -m "$2")
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work"
limit=60
fails=0 cases=0
# Reading /dev/zero must not take the machine down with the window: outside a sanitizer build
# (KL_SANITIZE=1 from CTest: ASan's shadow memory needs a huge address space) the window gets
# 4 GiB of address space.
[ "${KL_SANITIZE:-0}" = 1 ] || ulimit -v 4194304

fail() {
    echo "FAIL [$name]: $*"
    fails=$((fails + 1))
}

# fresh_case NAME: $root, a data root with the shipped ladders (links), two lessons (copies)
# and one recording, and $out, the case's folder with its own settings, cache and data.
fresh_case() {
    name=$1 out=$work/$1 root=$work/$1/root
    cases=$((cases + 1))
    mkdir -p "$out/config/kernel-ladder" "$root/kernels" "$root/lessons" "$root/assets/recorded/peers"
    for d in "$src"/kernels/*/; do ln -s "$d" "$root/kernels/$(basename "$d")"; done
    cp -r "$src/lessons/00_measuring" "$src/lessons/01_first_kernel" "$root/lessons/"
    ln -s "$src/assets/recorded/h100_elementwise.json" "$root/assets/recorded/"
    settings=$out/config/kernel-ladder/workbook.json
}

# open_window ARGS...: the window on lesson 1 with a screenshot and a report; fails the case
# unless it exits 0 within $limit s with no sanitizer report. Its stderr is in $out/stderr.txt.
open_window() {
    XDG_CONFIG_HOME=$out/config XDG_CACHE_HOME=$out/cache XDG_DATA_HOME=$out/data KLADDER_ROOT=$root \
        timeout -k 5 $limit "$gui" --no-runner --lesson first_kernel --screenshot "$out/shot.png" \
        --report "$out/report.json" "$@" > "$out/stdout.txt" 2> "$out/stderr.txt"
    rc=$?
    echo "-- $name: exit $rc: $(grep -m1 -v '^$' "$out/stderr.txt" | head -c 300)"
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then fail "did not finish within $limit s (hang)"; return 1; fi
    [ $rc -eq 0 ] || { fail "the window exited with code $rc"; head -5 "$out/stderr.txt"; return 1; }
    if grep -Eq 'Sanitizer|runtime error:' "$out/stderr.txt"; then fail "sanitizer report"; return 1; fi
}

# stderr_has REGEX: exactly one line of the window's stderr matches REGEX.
stderr_has() {
    [ "$(grep -Ec -- "$1" "$out/stderr.txt")" -eq 1 ] || fail "expected one stderr line matching /$1/"
}

# report_lists KEY REGEX: the report's KEY (lesson_errors, ladder_errors) has an entry matching REGEX.
report_lists() {
    python3 - "$out/report.json" "$1" "$2" <<'PY' || fail "the report's $1 has no entry matching /$2/"
import json, re, sys
r = json.load(open(sys.argv[1]))
entries = [e["message"] if isinstance(e, dict) else e for e in r[sys.argv[2]]]
sys.exit(0 if any(re.search(sys.argv[3], e) for e in entries) else 1)
PY
}

# [SECTION] The settings file
fresh_case settings_fifo; mkfifo "$settings"
if open_window; then
    stderr_has "workbook.json: not a regular file; set aside as .*workbook.json.bad"
    [ -p "$settings.bad" ] || fail "the FIFO was not set aside"
    [ -f "$settings" ] || fail "no fresh settings file was saved"
fi
fresh_case settings_dev_zero; ln -s /dev/zero "$settings"
if open_window; then
    stderr_has "workbook.json: not a regular file; set aside"
    [ -L "$settings.bad" ] || fail "the link was not set aside"
fi
[ -c /dev/zero ] || fail "/dev/zero is no longer a device"

# [SECTION] Window sizes beyond the display (1920x1200 under this test's Xvfb)
fresh_case size_option_huge
if open_window --size 100000x100000; then
    stderr_has "window size 100000x100000 is larger than the display's work area \\(1920x1200\\); using 1920x1200"
    size=$(python3 -c 'import struct, sys; print("%dx%d" % struct.unpack(">II", open(sys.argv[1], "rb").read(24)[16:]))' \
        "$out/shot.png")
    [ "$size" = 1920x1200 ] || fail "the screenshot is $size, not 1920x1200"
fi
fresh_case size_saved_huge
echo '{"window": {"width": 8192, "height": 8192}}' > "$settings"
if open_window; then
    stderr_has "window size 8192x8192 is larger than the display's work area \\(1920x1200\\); using 1920x1200"
fi

# [SECTION] FIFOs for manifests, JSON nested 100,000 deep among the peer figures
fresh_case lesson_toml_fifo
rm "$root/lessons/00_measuring/lesson.toml" && mkfifo "$root/lessons/00_measuring/lesson.toml"
open_window && report_lists lesson_errors "00_measuring/lesson.toml: not a regular file"
fresh_case ladder_toml_fifo
rm "$root/kernels/layernorm" && mkdir "$root/kernels/layernorm" && mkfifo "$root/kernels/layernorm/ladder.toml"
open_window && report_lists ladder_errors "layernorm/ladder.toml: not a regular file"
fresh_case peers_deep
python3 -c 'print("[" * 100000 + "]" * 100000)' > "$root/assets/recorded/peers/h100_2026-11-30_deep.json"
open_window

echo "limits_window: $cases cases, $fails failed"
[ "$fails" -eq 0 ]
