#!/bin/bash
# limits_cases.sh KLADDER WORK: issue 34's hangs and crashes through the real `kladder`. A FIFO in
# place of a TOML manifest (a lesson, a ladder, the allow-list; a tar archive keeps FIFOs) once
# blocked `list`, the checks and the exports for ever; JSON nested 100,000 deep among the
# recorded peer figures, the device cards or a device profile once overflowed the stack
# (`export-lesson` then left its staging behind). Every case runs within $case_seconds, so that
# a hang costs seconds. No GPU needed. See lib.sh for what each case asserts.
set -u
kladder=$(realpath "$1") work=$(realpath -m "$2")
export kladder work
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/hostile/lib.sh"
rm -rf "$work" && mkdir -p "$work/exports"
export XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
case_seconds=30
rec=$src/assets/recorded/h100_elementwise.json
ex=$work/exports
export rec ex
deep=$(python3 -c 'print("[" * 100000 + "]" * 100000)')

# with_recordings: $root/assets/recorded holds links to one shipped recording and to every card
# and peer file, in real cards/ and peers/ folders that a case can add a file to. (One recording
# keeps check-lessons quick; the bindings it leaves unresolved are offences no case looks at.)
with_recordings() {
    local to=$root/assets/recorded from=$src/assets/recorded sub f
    mkdir -p "$to/peers" "$to/cards"
    ln -s "$rec" "$to/"
    for sub in peers cards; do
        for f in "$from/$sub"/*; do ln -s "$f" "$to/$sub/${f##*/}"; done
    done
}
# replace_by_fifo FILE: FILE (under $root) becomes a FIFO that nobody writes to.
replace_by_fifo() { rm -f "$root/$1" && mkfifo "$root/$1"; }
check_lessons() { "$kladder" check-lessons; }
export_lesson() { "$kladder" export-lesson first_kernel --results "$rec" -o "$ex/$1"; }
export -f check_lessons export_lesson

# [SECTION] A FIFO for lesson.toml: refused at once, named, the other lessons still load
fresh_root; replace_by_fifo lessons/01_first_kernel/lesson.toml
expect fifo.lesson_toml.list 2 "01_first_kernel/lesson.toml: not a regular file" "$kladder" list lessons
expect fifo.lesson_toml.export_lesson 2 "01_first_kernel/lesson.toml: not a regular file|unknown lesson" \
    export_lesson fifo_lesson
[ ! -e "$ex/fifo_lesson" ] || fail "an output folder was created"
with_recordings
expect fifo.lesson_toml.check_lessons 2 "^check-lessons: .* offences$" check_lessons
grep -q "01_first_kernel/lesson.toml: not a regular file" "$work/out.txt" || fail "no line naming the FIFO lesson.toml"

# [SECTION] A FIFO for ladder.toml
fresh_root; replace_by_fifo kernels/elementwise/ladder.toml
expect fifo.ladder_toml.list 2 "elementwise/ladder.toml: not a regular file" "$kladder" list ladders
expect fifo.ladder_toml.check_kernels 2 "elementwise/ladder.toml: not a regular file" \
    "$kladder" check-kernels --ladder elementwise
# (Naming the broken ladder before what it breaks, here a lesson's step, is issue 34 item 5.)
expect fifo.ladder_toml.export_lesson 2 "elementwise/ladder.toml: not a regular file|unknown ladder 'elementwise'" \
    export_lesson fifo_ladder
[ ! -e "$ex/fifo_ladder" ] || fail "an output folder was created"
with_recordings
expect fifo.ladder_toml.check_lessons 2 "elementwise/ladder.toml: not a regular file|^check-lessons: .* offences$" \
    check_lessons

# [SECTION] A FIFO for the allow-list (lessons/numbers_allowed.toml)
fresh_root; with_recordings; replace_by_fifo lessons/numbers_allowed.toml
expect fifo.allow_list.check_lessons 2 "numbers_allowed.toml: not a regular file" check_lessons
fresh_root; with_recordings; mkfifo "$work/allow.toml"
expect fifo.allow_list_option.check_lessons 2 "allow.toml: not a regular file" \
    "$kladder" check-lessons --allow "$work/allow.toml"

# [SECTION] 100,000 levels of JSON among the recordings: one line naming the file, no crash
fresh_root; with_recordings; echo "$deep" > "$root/assets/recorded/peers/h100_2026-11-30_deep.json"
expect deep.peers.check_lessons 2 "^check-lessons: .* offences$" check_lessons
grep -q "peers/h100_2026-11-30_deep.json: nested deeper than 64 levels" "$work/out.txt" ||
    fail "no line naming the deep peer file"
# The export skips a recording that does not load (its numbers stay unresolved) and completes.
expect deep.peers.export_lesson 0 "" export_lesson deep_peers
[ -s "$ex/deep_peers/handout.html" ] || fail "no handout"
# A card or a device profile deep only in a field nobody reads was accepted whole before.
fresh_root; with_recordings
echo "{\"schema\": \"kernel-ladder/device-card\", \"device\": \"X\", \"values\": {\"a\": {\"value\": 1, \"unit\": \"s\", \"note\": $deep}}}" \
    > "$root/assets/recorded/cards/deep.json"
expect deep.card.check_lessons 2 "^check-lessons: .* offences$" check_lessons
grep -q "cards/deep.json: nested deeper than 64 levels" "$work/out.txt" || fail "no line naming the deep card"
fresh_root
python3 - "$src/assets/devices/sm_90_h100.json" "$work/deep_profile.json" <<'PY'
import json, sys
profile = json.load(open(sys.argv[1]))
profile["note"] = "DEEP"
open(sys.argv[2], "w").write(json.dumps(profile).replace('"DEEP"', "[" * 100000 + "]" * 100000))
PY
expect deep.device_profile.plan_on 2 "deep_profile.json: nested deeper than 64 levels" \
    "$kladder" run elementwise --plan-on "$work/deep_profile.json"

left=$(leftovers "$ex" "$work")
[ -z "$left" ] || { name=staging; fail "staging left behind: $left"; }
finish
