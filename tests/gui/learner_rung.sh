#!/bin/sh
# learner_rung.sh GUI FAKE_RUNNER OUT_DIR: the learner's own rung (issue 16) through the real window
# under Xvfb, against the test double of the runner (which compiles a learner's rung for real with
# NVRTC, no GPU, before making up its numbers):
#   1. "Make it mine" on vector_add: the copy lands in the XDG data folder, the editor opens;
#   2. a line typed into the editor that does not compile, saved with Ctrl+S: the gutter marks
#      the line NVRTC names, the list under the editor says it, a click on it moves the caret there;
#   3. Ctrl+Z takes the typing back, Ctrl+S: it compiles and runs, and the learner's rung is on
#      the ladder strip ("mine:") and in the bar plot;
#   4. "Open in my editor" ($VISUAL, argv only) edits the file outside: the watch reloads and runs it;
#   5. a second window whose runner faults on the learner's rung says so in the learner's panel;
#   6. a third, without a GPU, still compiles the rung on save and marks NVRTC's line, and its
#      Sanitize says in one line that it needs a GPU, with nothing started or written;
#   7. nothing was written inside the repository tree.
gui=$1
fake=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$3"
# The learner's workspace must lie outside the repository tree (the engine refuses it inside, and
# the output folder is in the build folder): fresh_out's temporary data folder.
repo=$(cd "$here/../.." && pwd)
# Nothing the learner does may write inside the repository tree: every file there (build folders
# and .git aside) must be older than this mark when the test ends. No git needed: the
# fresh-machine check runs the suite as root in a clone owned by another user, where git refuses.
touch "$XDG_DATA_HOME/mark"
export KLADDER_SERVE="$fake --delay-ms 700"
# The learner's editor: records how it was called and appends a comment, as a save would.
cat > "$out/editor.sh" <<'ED'
printf '%s\n' "$@" > "$(dirname "$0")/editor_argv.txt"
printf '// edited in my own editor\n' >> "$1"
ED
export VISUAL="sh $out/editor.sh" EDITOR=
# The broken line goes after the loop body's statement, wherever the rung's header puts it.
anchor=$(grep -n 'if (i < n) c\[i\]' "$repo/kernels/elementwise/01_vector_add.cu" | cut -d: -f1)
[ -n "$anchor" ] || { echo "FAIL: no loop statement in kernels/elementwise/01_vector_add.cu"; exit 1; }
cat > "$out/script.txt" <<SCRIPT
wait 5
click card:vector_add
click tab:Source
click button:make_mine
wait 5
click editor:line:$anchor
key End
key Enter
type         oops_undefined = 1;
wait 3
shot $out/typed.png
key Ctrl+S
wait_until results 1 60
wait 5
report $out/compile_error.json
shot $out/compile_error.png
click diag:0
wait 3
report $out/jumped.json
key Ctrl+Z
wait 2
key Ctrl+S
wait_until results 1 60
wait 5
shot $out/fixed.png
click tab:Plots
click button:reveal_plot
wait 5
shot $out/plot.png
click tab:Mine
click button:open_in_my_editor
wait_until results 1 60
wait 5
SCRIPT
run_gui "$gui" --size 1440x900 --lesson first_kernel --step 3 --script "$out/script.txt" --max-seconds 240 \
    --report "$out/report.json"
python3 - "$out" "$XDG_DATA_HOME" "$((anchor + 1))" <<'PY' || exit 1
import json, os, sys
out, data, broken = sys.argv[1], sys.argv[2], int(sys.argv[3])
r = json.load(open(f"{out}/report.json"))
ce = json.load(open(f"{out}/compile_error.json"))["learner"]
jumped = json.load(open(f"{out}/jumped.json"))["learner"]
le, sc, st = r["learner"], r["script"], r["state"]
ws = f"{data}/kernel-ladder/workspace/elementwise"
src = f"{ws}/mine_vector_add.cu"
text = open(src).read() if os.path.exists(src) else ""
checks = [
    (sc["finished"] and not sc["errors"], f"script: {sc['errors']}"),
    (os.path.exists(src) and os.path.exists(f"{ws}/manifest.toml"), f"workspace files missing: {os.listdir(ws) if os.path.isdir(ws) else 'no ' + ws}"),
    (le["rung"] == "mine_vector_add" and le["forked_from"] == "vector_add", f"learner rung: {le['rung']} from {le['forked_from']}"),
    (broken in ce["gutter_marks"], f"gutter marks after the broken save: {ce['gutter_marks']} (expected line {broken})"),
    (any(f"mine_vector_add.cu:{broken}:" in d and "oops_undefined" in d for d in ce["diagnostics"]), f"diagnostics: {ce['diagnostics']}"),
    ("did not compile" in ce["outcome"] and ce["outcome_error"], f"outcome after the broken save: {ce['outcome']!r}"),
    (jumped["caret_line"] == broken, f"clicking the message put the caret on line {jumped['caret_line']}, expected {broken}"),
    ("oops_undefined" not in text, "Ctrl+Z did not take the broken line back"),
    (not le["diagnostics"] and not le["gutter_marks"], f"marks left after the fix: {le['gutter_marks']} {le['diagnostics']}"),
    (text.endswith("// edited in my own editor\n"), "the outside editor's change is not in the file"),
    (open(f"{out}/editor_argv.txt").read().split("\n")[0] == src if os.path.exists(f"{out}/editor_argv.txt") else False, "Open in my editor did not get the file as its argument"),
    (any("changed on disk" in l for l in r["log"]), "the file watch did not see the outside edit"),
    (st["rung"] == "mine_vector_add", f"selected rung: {st['rung']}"),
    (r["runner"]["results"] >= 3 and not r["runner"]["job_active"], f"runs: {r['runner']['results']}"),
]
bad = [m for ok, m in checks if not ok]
print(f"learner rung: {len(checks) - len(bad)} of {len(checks)} checks passed; diagnostics shown: {ce['diagnostics']}")
if bad:
    print("FAIL: " + "\n      ".join(bad))
    sys.exit(1)
PY
for f in typed compile_error fixed plot; do sh "$here/check_png.sh" "$out/$f.png" 1440 900 || exit 1; done

# A learner's kernel that faults: the panel names the rung and what happened; the window stays up.
export KLADDER_SERVE="$fake --delay-ms 700 --fault-on-rung mine_vector_add"
cat > "$out/fault.txt" <<SCRIPT
wait 5
# The strip holds 8 rungs, 3 PyTorch peers and the learner's: a narrower lesson list makes room.
drag splitter:navigator -300 0
wait 3
click card:mine_vector_add
click tab:Source
click button:make_mine
wait 3
key Ctrl+S
wait_until results 1 60
wait 10
shot $out/fault.png
SCRIPT
run_gui "$gui" --size 1920x1000 --lesson first_kernel --step 3 --script "$out/fault.txt" --max-seconds 120 \
    --report "$out/fault.json"
python3 - "$out/fault.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
le = r["learner"]
bad = []
if "mine_vector_add" not in le["outcome"] or "faulted" not in le["outcome"]: bad.append(f"the panel says {le['outcome']!r}")
if r["runner"]["exits"] < 1: bad.append("the faulted runner did not exit")
if r["script"]["errors"]: bad.append(str(r["script"]["errors"]))
print("fault shown: " + le["outcome"])
if bad:
    print("FAIL: " + "; ".join(bad))
    sys.exit(1)
PY
sh "$here/check_png.sh" "$out/fault.png" 1920 1000 || exit 1

# Without a GPU (issue 38): Save and run still compiles the rung, by `kladder try --compile-only`,
# and the gutter marks NVRTC's line; the fixed file compiles and says there is no GPU to run it.
export KLADDER_SERVE="$fake --no-gpu"
cat > "$out/nogpu.txt" <<SCRIPT
wait 5
click card:vector_add
click tab:Source
click button:make_mine
wait 3
click editor:line:$anchor
key End
key Enter
type         oops_undefined = 1;
key Ctrl+S
wait 1
wait_idle
wait 2
report $out/nogpu_error.json
shot $out/nogpu_error.png
key Ctrl+Z
key Ctrl+S
wait 1
wait_idle
wait 2
report $out/nogpu_fixed.json
type // unsaved_edit
click button:editor_sanitize
wait 2
report $out/nogpu_sanitize.json
SCRIPT
run_gui "$gui" --size 1440x1100 --lesson first_kernel --step 3 --script "$out/nogpu.txt" --max-seconds 120 \
    --report "$out/nogpu.json"
python3 - "$out" "$((anchor + 1))" <<'PY' || exit 1
import json, sys
out, mark = sys.argv[1], int(sys.argv[2])
err = json.load(open(f"{out}/nogpu_error.json"))["learner"]
fixed = json.load(open(f"{out}/nogpu_fixed.json"))["learner"]
san = json.load(open(f"{out}/nogpu_sanitize.json"))["learner"]
r = json.load(open(f"{out}/nogpu.json"))
checks = [
    (not r["script"]["errors"], f"script: {r['script']['errors']}"),
    (mark in err["gutter_marks"], f"gutter marks without a GPU: {err['gutter_marks']} (expected line {mark})"),
    (any(f".cu:{mark}:" in d and "oops_undefined" in d for d in err["diagnostics"]), f"diagnostics: {err['diagnostics']}"),
    ("did not compile" in err["outcome"] and err["outcome_error"], f"outcome after the broken save: {err['outcome']!r}"),
    ("compiled with NVRTC" in fixed["outcome"] and "no GPU" in fixed["outcome"] and not fixed["outcome_error"], f"outcome after the fix: {fixed['outcome']!r}"),
    (not fixed["gutter_marks"], f"marks left after the fix: {fixed['gutter_marks']}"),
    # Sanitize without a GPU: one line saying it needs one; nothing started, the edit not saved.
    ("needs a GPU" in san["sanitize"]["summary"] and not san["sanitize"]["running"], f"Sanitize without a GPU: {san['sanitize']}"),
    (san["modified"] and "unsaved_edit" not in open(san["path"]).read(), "Sanitize without a GPU wrote the file"),
]
bad = [m for ok, m in checks if not ok]
print(f"learner rung without a GPU: {len(checks) - len(bad)} of {len(checks)} checks passed; {err['outcome']!r}, then {fixed['outcome']!r}")
if bad:
    print("FAIL: " + "\n      ".join(bad))
    sys.exit(1)
PY
sh "$here/check_png.sh" "$out/nogpu_error.png" 1440 1100 || exit 1
written=$(find "$repo" \( -path "$repo/.git" -o -path "$repo/build*" -o -path "$repo/.carry*" \) -prune -o \
    -newer "$XDG_DATA_HOME/mark" -type f -print)
[ -z "$written" ] || { echo "FAIL: files in the repository tree were written during the test:"; echo "$written"; exit 1; }
echo "repository tree unchanged (no file newer than the test's start outside build folders)"
echo ok
