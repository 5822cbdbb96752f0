#!/bin/sh
# The empty-body exercises of issue 39 on a GPU (label gpu; issue 39's acceptance): for each, the
# reference solution is judged with `kladder submit` (every hidden check passed, and its goal, a
# rung to beat timed beside it, met), the empty starter is refused by 'correct', and the three
# planted cheats made from the solution (scripts/make_exercise_cheats.py) are each refused by the
# check that caught them: NaN written by 'correct', an output cached across calls by 'poisoned
# output', an input written by 'inputs unmodified'.
# Usage: exercises_gpu.sh KLADDER SOURCE_DIR [NAME ...]   (NAME: copy transpose reduction online_softmax
# sgemm mma_tile flash_forward; default all seven. Each submit times the ladder's rungs beside it,
# so the matmul and attention ones take minutes: give the names in several calls if need be.)
# EXERCISES_OUT=FILE.tgz keeps every signed submission and its printout, in one archive.
# EXERCISES_SOLUTIONS_ONLY=1 judges only the reference solutions (every submit times the goal's
# rung beside it, so all seven solutions fit one device call where all 35 submits do not).
set -u
kladder=$1; src=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache"
out=$tmp/subs; mkdir -p "$out"
fail() { echo "FAIL: $*"; failed=1; }
failed=0
"$kladder" class keygen -o "$tmp/class.key" --class "exercises GPU test" > /dev/null || { echo "FAIL: keygen"; exit 1; }

submit() {  # EXERCISE FILE LABEL EXPECTED_EXIT [EXPECTED_REFUSAL]
  "$kladder" submit "$1" "$2" --name "$3" --key "$tmp/class.key" -o "$out/$3.json" > "$out/$3.txt" 2>&1
  code=$?; cat "$out/$3.txt"
  [ $code -eq "$4" ] || { fail "$3 ($2): expected exit $4, got $code"; return; }
  if [ -n "${5:-}" ]; then
    grep -q "^refused by check '$5': " "$out/$3.txt" || fail "$3: not refused by the check '$5'"
  else
    grep -q "^accepted; signed submission written to " "$out/$3.txt" || fail "$3: not accepted"
    for check in "correct" "inputs unmodified" "poisoned output" "odd sizes" "planted NaN/Inf" "several seeds" "cold L2"; do
      grep -Eq "^  $check +passed" "$out/$3.txt" || fail "$3: check '$check' did not pass"
    done
    grep -q "^exercise goal .*: goal met$" "$out/$3.txt" || fail "$3: the reference solution does not meet its goal"
  fi
}

python3 "$src/scripts/make_exercise_cheats.py" --out "$tmp/cheats" || { echo "FAIL: the planted cheats could not be made"; exit 1; }
names=${*:-copy transpose reduction online_softmax sgemm mma_tile flash_forward}
for name in $names; do
  case $name in
    copy)           ex=00_measuring/9; lesson=00_measuring; starter=exercise_copy.cu ;;
    transpose)      ex=03_coalescing/9; lesson=03_coalescing; starter=exercise_transpose.cu ;;
    reduction)      ex=05_softmax/11; lesson=05_softmax; starter=exercise_reduction.cu ;;
    online_softmax) ex=05_softmax/12; lesson=05_softmax; starter=exercise_online.cu ;;
    sgemm)          ex=06_matmul/5; lesson=06_matmul; starter=exercise_sgemm.cu ;;
    mma_tile)       ex=06_matmul/9; lesson=06_matmul; starter=exercise_mma.cu ;;
    flash_forward)  ex=09_attention/10; lesson=09_attention; starter=exercise_flash.cu ;;
    *) echo "FAIL: unknown exercise '$name'"; exit 2 ;;
  esac
  echo "== $name ($ex)"
  submit "$ex" "$src/lessons/$lesson/solutions/$name.cu" "${name}_solution" 0
  [ "${EXERCISES_SOLUTIONS_ONLY:-0}" = 1 ] && continue
  submit "$ex" "$src/lessons/$lesson/$starter" "${name}_starter" 1 "correct"
  submit "$ex" "$tmp/cheats/${name}_nan.cu" "${name}_nan" 1 "correct"
  submit "$ex" "$tmp/cheats/${name}_cache.cu" "${name}_cache" 1 "poisoned output"
  submit "$ex" "$tmp/cheats/${name}_mutate.cu" "${name}_mutate" 1 "inputs unmodified"
done
if [ -n "${EXERCISES_OUT:-}" ]; then tar czf "$EXERCISES_OUT" -C "$tmp" subs || fail "cannot write $EXERCISES_OUT"; fi
[ $failed -eq 0 ] || { echo "exercises_gpu.sh: FAILED (see above)"; exit 1; }
echo "exercises_gpu.sh: all checks passed"
