#!/bin/bash
# export_cases.sh KLADDER WORK: exports are all-or-nothing (`kladder export`, `export-lesson`):
# a failure leaves the previous output intact, creates nothing, and leaves no staging behind;
# an interrupted export removes what it staged. `serve` answers every line and stays up.
set -u
kladder=$(realpath "$1") work=$(realpath -m "$2")
export kladder work
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/hostile/lib.sh"
rm -rf "$work" && mkdir -p "$work/exports"
export XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config"
rec=$src/assets/recorded/h100_elementwise.json
ex=$work/exports
fresh_root

# [SECTION] kladder export: figure plus results copy, both or neither
echo OLD-FIGURE > "$ex/fig.svg"
mkdir "$ex/fig.results.json"  # the results copy cannot be written: a folder has its name
expect export.failed_overwrite_keeps_figure 2 "fig.results.json" \
    "$kladder" export --results "$rec" --plot bars -o "$ex/fig.svg"
[ "$(cat "$ex/fig.svg")" = OLD-FIGURE ] || fail "the previous figure was lost or changed"
rmdir "$ex/fig.results.json"
expect export.overwrite_ok 0 "" "$kladder" export --results "$rec" --plot bars -o "$ex/fig.svg"
grep -q "<svg" "$ex/fig.svg" || fail "the figure was not replaced"
[ -s "$ex/fig.results.json" ] || fail "no results copy"
expect export.empty_output 2 "-o: the output file name is empty" "$kladder" export --results "$rec" --plot bars --format svg -o ""
expect export.missing_folder 2 "folder '$ex/none' does not exist" \
    "$kladder" export --results "$rec" --plot bars -o "$ex/none/fig.svg"
[ ! -e "$ex/none" ] || fail "a folder was created"
expect export.output_is_device 2 "/dev/null" "$kladder" export --results "$rec" --plot bars --format svg -o /dev/null
[ -c /dev/null ] || fail "/dev/null was replaced"
ln -s "$ex/fig.svg" "$ex/link.svg"
expect export.output_is_symlink 2 "link.svg.*symbolic link" "$kladder" export --results "$rec" --plot bars -o "$ex/link.svg"
rm -f "$ex/link.svg" "$ex/fig.svg" "$ex/fig.results.json"

# [SECTION] kladder export-lesson: the folder's files all change or none do
lesson_out=$ex/lesson
mkdir -p "$lesson_out"
for f in handout.html results.json mine.txt; do echo "OLD $f" > "$lesson_out/$f"; done
mkdir "$lesson_out/handout.md"  # a folder where a file must go: the export fails at commit
expect export_lesson.failed_commit_keeps_old 2 "handout.md" \
    "$kladder" export-lesson first_kernel --results "$rec" -o "$lesson_out"
for f in handout.html results.json mine.txt; do
    [ "$(cat "$lesson_out/$f")" = "OLD $f" ] || fail "$f changed although the export failed"
done
n=$(find "$lesson_out" -mindepth 1 | wc -l)
[ "$n" -eq 4 ] || fail "the failed export left $n entries instead of 4: $(ls -A "$lesson_out")"
rmdir "$lesson_out/handout.md"
expect export_lesson.into_existing_folder 0 "" "$kladder" export-lesson first_kernel --results "$rec" -o "$lesson_out"
[ "$(cat "$lesson_out/mine.txt")" = "OLD mine.txt" ] || fail "a file the export did not create was touched"
grep -q "<html" "$lesson_out/handout.html" || fail "handout.html was not replaced"
expect export_lesson.parent_missing 2 "does not exist" \
    "$kladder" export-lesson first_kernel --results "$rec" -o "$ex/no/such/folder"
[ ! -e "$ex/no" ] || fail "a folder was created"
expect export_lesson.empty_output 2 "output folder name is empty" "$kladder" export-lesson first_kernel --results "$rec" -o ""
expect export_lesson.bad_results_creates_nothing 2 "version" \
    "$kladder" export-lesson first_kernel --results "$src/tests/hostile/regressions/results/version_float.json" \
    -o "$ex/new"
[ ! -e "$ex/new" ] || fail "the output folder was created for a bad results file"

# Interrupted: SIGTERM part-way through (a background job ignores SIGINT, and so does the export). Either it finished (exit 0, complete) or it stopped
# (exit 2) with nothing at the destination; never a staging folder or a part of the files.
# Lesson 6 (matmul) has a figure on most of its 12 steps: long enough to be caught part-way.
interrupted=0
for delay in 0.1 0.6 1.5 3; do
    cases=$((cases + 1)); name=export_lesson.interrupted_$delay
    rm -rf "$ex/int"
    KLADDER_ROOT="$root" "$kladder" export-lesson matmul --results "$src/assets/recorded/h100_matmul.json" \
        -o "$ex/int" >/dev/null 2>"$work/err.txt" &
    pid=$!
    sleep "$delay"; kill -TERM "$pid" 2>/dev/null; wait "$pid"; got=$?
    left=$(leftovers "$ex")
    [ -z "$left" ] || fail "staging left behind: $left"
    if [ "$got" -eq 0 ]; then
        [ -s "$ex/int/handout.html" ] || fail "exit 0 but no handout"
    elif [ "$got" -eq 2 ] || [ "$got" -eq 143 ]; then
        # 143: killed outside the export (loading, or printing after the commit): then the
        # destination is absent or complete, never partial.
        interrupted=$((interrupted + 1))
        if [ -e "$ex/int" ] && ! { [ "$got" -eq 143 ] && [ -s "$ex/int/handout.html" ] && [ -s "$ex/int/handout.md" ] \
            && [ -s "$ex/int/results.json" ]; }; then
            fail "interrupted export left a partial $ex/int: $(ls -A "$ex/int" | tr '\n' ' ')"
        fi
        [ "$got" -ne 2 ] || grep -q "interrupted by signal 15: nothing was written" "$work/err.txt" || fail "message"
    else
        fail "exit $got"
    fi
    echo "-- $name: exit $got: $(head -1 "$work/err.txt")"
done
[ "$interrupted" -gt 0 ] || echo "note: every export finished before its signal; the interrupted path was not reached"

# [SECTION] kladder serve: every line answered, the process stays up
big=$(python3 -c 'print("{\"type\":\"ping\",\"pad\":\"" + "x" * 2000000 + "\"}")')
cat > "$work/requests.jsonl" <<JSONL
not json at all
[1, 2, 3]
{"type": 5, "id": 1}
{"type": "run", "id": 2, "ladder": 5, "rung": []}
{"type": "run", "id": 3, "ladder": "elementwise", "rung": "vector_add", "sizes": {"n": 18446744073709551615}}
{"type": "run", "id": 4, "ladder": "elementwise", "rung": "vector_add", "options": {"seed": -1}}
{"type": "run", "id": 5, "ladder": "elementwise", "rung": "vector_add", "options": 7}
{"type": "run", "id": 6, "ladder": "elementwise", "rung": "vector_add", "params": {"TPB": 48}}
{"type": "bogus", "id": 7}
{"id": $(python3 -c 'print("[" * 100000 + "]" * 100000)')}
$big
{"type": "ping", "id": 99}
JSONL
stdin=$work/requests.jsonl expect serve.every_line_answered 0 "" env CUDA_VISIBLE_DEVICES= "$kladder" serve
python3 - "$work/out.txt" <<'PY' || fail "serve replies"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
hello, replies = lines[0], lines[1:]
assert hello["type"] == "hello", hello
assert len(replies) == 12, f"{len(replies)} replies to 12 requests: {replies}"
assert all(r["type"] == "error" for r in replies[:11]), [r["type"] for r in replies]
assert replies[-1] == {"type": "pong", "id": 99}, replies[-1]
for r in replies[:11]:
    print("   ", r["message"][:150])
PY
stdin=

finish
