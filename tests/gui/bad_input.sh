#!/bin/sh
# bad_input.sh GUI OUT_DIR: a data root with a lesson whose manifest is broken and a lesson whose
# Markdown uses constructs the workbook does not render. The broken lesson must be listed as an
# error entry with the loader's message; the other lesson must open and render; exit code 0.
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2"
trap_data_root "$out/root"
export KLADDER_ROOT="$out/root"
run_gui "$gui" --no-save --no-runner --size 1280x800 --lesson trap_demo --step 1 --screenshot "$out/bad_input.png" \
    --report "$out/report.json"
python3 - "$out/report.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
errs = r["lesson_errors"]
problems = []
if r["lessons"] != 1: problems.append(f"expected the one good lesson to load, got {r['lessons']}")
if len(errs) != 1 or "02_broken" not in errs[0]["folder"] or "no_such_ladder" not in errs[0]["message"]:
    problems.append(f"expected one error entry for 02_broken naming no_such_ladder, got {errs}")
if r["errors_shown"]: problems.append(f"unexpected errors shown: {r['errors_shown']}")
print("broken lesson listed as: " + (errs[0]["message"] if errs else "(nothing)"))
if problems:
    print("FAIL: " + "; ".join(problems))
    sys.exit(1)
PY
sh "$here/check_png.sh" "$out/bad_input.png" 1280 800 || exit 1
echo "ok"
