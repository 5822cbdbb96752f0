#!/bin/sh
# The empty-body exercises of issue 39 without a GPU: each is listed with its rung to beat, its
# hints come one at a time and in order, its reference solution only when asked; its starter, its
# solution and the three planted cheats (made by scripts/make_exercise_cheats.py into a scratch folder)
# compile as the starter rung (and check-kernels fails on a solution that does not); and bad
# exercise data is one line naming file, line and field, exit 2.
# Usage: exercises.sh KLADDER SOURCE_DIR [all|host|compile]
#   host: the listing, hints, solutions and bad data (the part the sanitizer pass runs);
#   compile: NVRTC's part, every starter, solution and cheat compiled, and check-kernels failing on
#   a broken solution (label no_sanitizer: NVRTC is not instrumented, and it ran in the first pass).
set -u
kladder=$1; src=$2; mode=${3:-all}
case $mode in all|host|compile) ;; *) echo "exercises.sh: unknown mode '$mode'"; exit 2 ;; esac
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache"
fail() { echo "FAIL: $*"; exit 1; }

"$kladder" exercises > "$tmp/list" 2>&1 || { cat "$tmp/list"; fail "kladder exercises"; }
# id ladder starter rung-to-beat starter-file solution-file cheat-name
# The planted cheats are made from the solutions here, not kept as copies in the repository.
python3 "$src/scripts/make_exercise_cheats.py" --out "$tmp/cheats" || fail "the planted cheats could not be made"

# Starter, solution and cheats compile as the starter rung (exit 3: compiled, not run).
compile_exercise() {  # ID LESSON LADDER STARTER STARTER_FILE SOLUTION NAME
  for f in "$src/lessons/$2/$5" "$src/lessons/$2/$6" \
           "$tmp/cheats/${7}_nan.cu" "$tmp/cheats/${7}_cache.cu" "$tmp/cheats/${7}_mutate.cu"; do
    [ -f "$f" ] || fail "$1: no file $f"
    "$kladder" try "$3" "$f" --exercise "$1" --compile-only > "$tmp/out" 2>&1; code=$?
    [ $code -eq 3 ] || { cat "$tmp/out"; fail "$1: $f did not compile (exit $code)"; }
    grep -q "compiled as a rung of $3 like $4" "$tmp/out" || { cat "$tmp/out"; fail "$1: $f"; }
  done
}
while read -r id ladder starter beat starter_file solution name; do
  grep -q "^$id ladder=$ladder starter=$starter beat=$beat hints=[0-9]* solution=$solution\$" "$tmp/list" ||
    fail "$id is not listed as ladder=$ladder starter=$starter beat=$beat solution=$solution"
  hints=$(grep "^$id " "$tmp/list" | sed 's/.* hints=\([0-9]*\) .*/\1/')
  [ "$hints" -ge 3 ] || fail "$id has $hints hints"
  lesson=$(echo "$id" | cut -d/ -f1)
  if [ "$mode" = compile ]; then compile_exercise "$id" "$lesson" "$ladder" "$starter" "$starter_file" "$solution" "$name"; continue; fi

  # Hints: one at a time, in order; past the last, one line and exit 2.
  "$kladder" hint "$id" > "$tmp/h1" || fail "$id: hint 1"
  grep -q "^hint 1 of $hints: " "$tmp/h1" || fail "$id: no 'hint 1 of $hints'"
  grep -q "^hint 2 of" "$tmp/h1" && fail "$id: hint 2 shown before it was asked for"
  grep -q "^(next: kladder hint $id 2)" "$tmp/h1" || fail "$id: does not say how to get the next hint"
  "$kladder" hint "$id" "$hints" > "$tmp/hall" || fail "$id: hint $hints"
  [ "$(grep -c '^hint [0-9]* of ' "$tmp/hall")" -eq "$hints" ] || fail "$id: not all $hints hints shown"
  grep '^hint [0-9]* of ' "$tmp/hall" | sed 's/^hint \([0-9]*\) of.*/\1/' > "$tmp/order"
  seq 1 "$hints" | cmp -s - "$tmp/order" || fail "$id: hints out of order"
  grep -q "^(that was the last hint; the reference solution: kladder solution $id)" "$tmp/hall" ||
    fail "$id: the last hint does not lead to the solution"
  "$kladder" hint "$id" $((hints + 1)) > "$tmp/out" 2>&1; code=$?
  [ $code -eq 2 ] && [ "$(wc -l < "$tmp/out")" -eq 1 ] || { cat "$tmp/out"; fail "$id: hint past the last"; }
  grep -q "has hints 1..$hints" "$tmp/out" || fail "$id: hint past the last does not say how many"

  # The solution, printed only when asked, is the file.
  "$kladder" solution "$id" > "$tmp/sol" || fail "$id: solution"
  cmp -s "$tmp/sol" "$src/lessons/$lesson/$solution" || fail "$id: solution is not $solution"

  [ "$mode" = all ] && compile_exercise "$id" "$lesson" "$ladder" "$starter" "$starter_file" "$solution" "$name"
done <<'EOF'
00_measuring/9 transpose copy_row_walk - exercise_copy.cu solutions/copy.cu copy
03_coalescing/9 transpose transpose_smem transpose_smem exercise_transpose.cu solutions/transpose.cu transpose
05_softmax/11 softmax block_smem naive_multi exercise_reduction.cu solutions/reduction.cu reduction
05_softmax/12 softmax online warp_shuffle exercise_online.cu solutions/online_softmax.cu online_softmax
06_matmul/5 matmul reg_2d reg_1d exercise_sgemm.cu solutions/sgemm.cu sgemm
06_matmul/9 matmul mma_bf16 double_buffer exercise_mma.cu solutions/mma_tile.cu mma_tile
09_attention/10 attention flash_fp32 fused_rowblock exercise_flash.cu solutions/flash_forward.cu flash_forward
EOF

if [ "$mode" != compile ]; then
"$kladder" hint 01_first_kernel/8 > "$tmp/out" 2>&1; code=$?
[ $code -eq 2 ] && grep -q "has no hints" "$tmp/out" || fail "an exercise without hints: expected one line, exit 2"
"$kladder" solution 01_first_kernel/8 > "$tmp/out" 2>&1; code=$?
[ $code -eq 2 ] && grep -q "has no reference solution" "$tmp/out" || fail "no solution: expected one line, exit 2"

# Bad exercise data in a copy of the tree: one line naming file, line and field; exit 2.
bad() {  # SED-EXPRESSION EXPECTED-TEXT
  rm -rf "$tmp/tree"; mkdir -p "$tmp/tree/lessons"
  ln -s "$src/kernels" "$tmp/tree/kernels"; ln -s "$src/assets" "$tmp/tree/assets"
  cp -r "$src/lessons/03_coalescing" "$tmp/tree/lessons/"
  sed -i "$1" "$tmp/tree/lessons/03_coalescing/lesson.toml"
  for cmd in "exercises" "hint 03_coalescing/9"; do
    KLADDER_ROOT="$tmp/tree" "$kladder" $cmd > "$tmp/out" 2>&1; code=$?
    [ $code -eq 2 ] || { cat "$tmp/out"; fail "$1: $cmd: expected exit 2, got $code"; }
    [ "$(wc -l < "$tmp/out")" -eq 1 ] || { cat "$tmp/out"; fail "$1: $cmd: not one line"; }
    grep -q "lesson.toml:[0-9]*: .*$2" "$tmp/out" || { cat "$tmp/out"; fail "$1: $cmd: lacks '$2'"; }
  done
}
bad 's/goal    = "correct and us < rung.transpose_smem.us"/goal = "correct and us < rung.transpose_fast.us"/' \
  "step\[8\].exercise.goal: ladder transpose has no rung 'transpose_fast' to beat"
bad 's/goal    = "correct and us < rung.transpose_smem.us"/goal = "correct and us < rung.copy_row_walk.us"/' \
  "rung 'copy_row_walk' computes copy2d"
bad 's|solution = "solutions/transpose.cu"|solution = "../../../etc/passwd"|' "step\[8\].exercise.solution"
bad 's|solution = "solutions/transpose.cu"|solution = "solutions/nothing.cu"|' "step\[8\].exercise.solution"
bad 's|  hints   = \[|  hints   = [ 42,|' "step\[8\].exercise.hints\[0\]: expected a string"
bad 's|  hints   = \[|  hints   = [ " ",|' "step\[8\].exercise.hints\[0\]: empty"
fi
# check-kernels compiles each exercise's starter and solution (CI has no GPU): a solution that
# does not compile, or lacks the starter's kernel, fails it.
[ "$mode" = host ] || for broken in 's/__syncthreads();/__syncthreads()/' 's/transpose_smem(float/transpose_other(float/'; do
  rm -rf "$tmp/tree"; mkdir -p "$tmp/tree/lessons"
  ln -s "$src/kernels" "$tmp/tree/kernels"; ln -s "$src/assets" "$tmp/tree/assets"
  cp -r "$src/lessons/03_coalescing" "$tmp/tree/lessons/"
  sed -i "$broken" "$tmp/tree/lessons/03_coalescing/solutions/transpose.cu"
  KLADDER_ROOT="$tmp/tree" "$kladder" check-kernels --ladder transpose --defaults-only > "$tmp/out" 2>&1; code=$?
  [ $code -eq 2 ] || { cat "$tmp/out"; fail "check-kernels with a broken solution ($broken): exit $code"; }
  grep -q "^FAIL  exercise 03_coalescing/9 solution" "$tmp/out" || { cat "$tmp/out"; fail "no FAIL line ($broken)"; }
done
echo "exercises.sh ($mode): all checks passed"
