#!/bin/sh
# `kladder try` without a GPU (CUDA_VISIBLE_DEVICES hides one): a file with a compile error is
# exit 2 naming FILE:LINE:COL as given on the command line (the column computed here from the
# file, independently of NVRTC's caret); a correct file compiles and is exit 3 only because there
# is no GPU; --json carries the same diagnostics; nothing is written beside the learner's file or
# inside the repository tree (XDG folders point to a temporary folder).
# Usage: try.sh KLADDER SOURCE_DIR
set -u
kladder=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache" CUDA_VISIBLE_DEVICES=
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$tmp/mine"
cp "$src/kernels/elementwise/01_vector_add.cu" "$tmp/mine/good.cu"
sed 's/kl_to_float(b\[i\]))/kl_to_float(b[i]) + oops)/' "$src/kernels/elementwise/01_vector_add.cu" > "$tmp/mine/broken.cu"
line=$(grep -n oops "$tmp/mine/broken.cu" | cut -d: -f1)
col=$(awk -v l="$line" 'NR == l { print index($0, "oops") }' "$tmp/mine/broken.cu")
[ -n "$line" ] && [ "$col" -gt 0 ] || fail "could not make broken.cu"
touch "$tmp/stamp"
before=$(ls -lA --time-style=full-iso "$tmp/mine")
cd "$tmp/mine" || exit 1

"$kladder" try elementwise broken.cu --like vector_add >"$tmp/out" 2>"$tmp/err"
code=$?; cat "$tmp/err"
[ $code -eq 2 ] || fail "broken.cu: expected exit 2, got $code"
head -n 1 "$tmp/err" | grep -qxF "broken.cu:$line:$col: error: identifier \"oops\" is undefined" ||
  fail "broken.cu: first line is not broken.cu:$line:$col: error: identifier \"oops\" is undefined"
tail -n 1 "$tmp/err" | grep -qF "broken.cu did not compile (1 error, 0 warnings)" || fail "broken.cu: no summary line"

"$kladder" try elementwise broken.cu --like vector_add --json >"$tmp/out" 2>"$tmp/err"
code=$?
[ $code -eq 2 ] || fail "--json: expected exit 2, got $code"
tr -d ' \n' < "$tmp/out" > "$tmp/flat"
grep -qF "\"file\":\"broken.cu\",\"line\":$line,\"column\":$col,\"severity\":\"error\"" "$tmp/flat" ||
  grep -qF "\"column\":$col,\"file\":\"broken.cu\",\"line\":$line" "$tmp/flat" || { cat "$tmp/out"; fail "--json: no diagnostic at $line:$col"; }
grep -qF '"compiled":false' "$tmp/flat" || fail "--json: compiled is not false"

"$kladder" try elementwise good.cu --like vector_add -p TPB=128 >"$tmp/out" 2>"$tmp/err"
code=$?; cat "$tmp/out" "$tmp/err"
[ $code -eq 3 ] || fail "good.cu: expected exit 3 (no GPU), got $code"
grep -q "good.cu compiled as a rung of elementwise like vector_add" "$tmp/out" || fail "good.cu: does not say it compiled"
grep -q "no GPU to check and time it" "$tmp/out" || fail "good.cu: does not say there is no GPU"

"$kladder" try elementwise missing.cu >"$tmp/out" 2>"$tmp/err"
code=$?; cat "$tmp/err"
[ $code -eq 2 ] && [ "$(grep -c '' "$tmp/err")" -eq 1 ] || fail "missing.cu: expected exit 2 and one line, got $code"
"$kladder" try elementwise good.cu --like cublas_nope >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "has no rung 'cublas_nope'" "$tmp/err" || fail "--like nope: expected exit 2 naming the rung"

# `kladder fork`: the rung and an exercise's starter land in the workspace, and a workspace file is
# tried as the learner's rung it is (its own manifest entry).
ws="$tmp/data/kernel-ladder/workspace/elementwise"
"$kladder" fork elementwise vector_add > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "fork: exit $?"; }
cmp -s "$ws/mine_vector_add.cu" "$src/kernels/elementwise/01_vector_add.cu" || fail "fork: the copy differs"
"$kladder" fork elementwise --exercise 01_first_kernel/8 > "$tmp/out" 2>&1 || fail "fork --exercise failed"
cmp -s "$ws/mine_vector_add_2.cu" "$src/lessons/01_first_kernel/exercise_vector_add.cu" || fail "fork --exercise: not the starter"
"$kladder" try elementwise "$ws/mine_vector_add_2.cu" > "$tmp/out" 2>&1
code=$?; cat "$tmp/out"
[ $code -eq 3 ] && grep -q "like mine_vector_add_2;" "$tmp/out" || fail "try of a workspace file: expected exit 3 like mine_vector_add_2"
# `kladder ptx` (the window's PTX tab) finds the learner's rung in the workspace.
"$kladder" ptx elementwise --rung mine_vector_add > "$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "ptx of a workspace rung: exit $?"; }
grep -q "\.entry vector_add(" "$tmp/out" || fail "ptx of a workspace rung: no .entry vector_add in its PTX"
"$kladder" ptx elementwise --rung mine_nope > "$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "has no rung 'mine_nope' (nor has your workspace)" "$tmp/err" || fail "ptx mine_nope: expected exit 2"
"$kladder" fork elementwise nope > "$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "has no rung 'nope' to fork" "$tmp/out" || fail "fork nope: expected exit 2"

[ "$(ls -lA --time-style=full-iso "$tmp/mine")" = "$before" ] || fail "something was written beside the learner's files"
changed=$(find "$src/kernels" "$src/lessons" "$src/assets" -newer "$tmp/stamp" 2>/dev/null | head -n 3)
[ -z "$changed" ] || fail "written inside the repository: $changed"
echo "try.sh: all checks passed"
