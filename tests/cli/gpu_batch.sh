#!/bin/sh
# scripts/gpu_batch.sh, the plan-driven GPU batch, on plans of plain shell steps (no GPU needed):
# 1. a plan runs step by step: NAME=VALUE and `export` lines reach later steps, a '\' line goes on,
#    each step's output lands in batch.log under its name and its exit status in summary.txt, a
#    failing step does not stop the batch but makes it exit 1 and shows its last lines, and a step
#    past STEP_TIMEOUT is stopped and said so;
# 2. a plan with a malformed entry is refused in one line (exit 2) before any step runs;
# 3. a plan whose steps all pass exits 0;
# 4. --check names a scripts/ path that does not exist (exit 2) and passes the shipped plans.
# Usage: gpu_batch.sh SOURCE_DIR
set -u
src=$1
batch="$src/scripts/gpu_batch.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat > "$work/a.plan" <<'EOF'
# comment lines and blank lines are skipped

greet      echo "hello $WHO"
export     SETTING=kept
later      echo "setting is $SETTING" && \
           echo "continued line"
broken     echo "about to fail"; exit 3
slow       sleep 20
after      echo "still running after the failures"; touch "$OUT/after.txt"
EOF
OUT="$work/out" STEP_TIMEOUT=2 "$batch" WHO=world "$work/a.plan" > "$work/a.txt" 2>&1
rc=$?
[ "$rc" = 1 ] || fail "a plan with failing steps: exit $rc, not 1"
log="$work/out/batch.log"
grep -q '^== greet ' "$log" && grep -qx 'hello world' "$log" || fail "NAME=VALUE did not reach the step: $(cat "$log")"
grep -qx 'setting is kept' "$log" || fail "an export line did not reach the next step"
grep -qx 'continued line' "$log" || fail "a '\\' line did not continue"
grep -Eq '^broken +exit +3 ' "$work/out/summary.txt" || fail "summary lacks the failed step: $(cat "$work/out/summary.txt")"
grep -Eq '^slow +exit +124 .*STEP_TIMEOUT=2' "$work/out/summary.txt" || fail "the slow step was not stopped at STEP_TIMEOUT"
[ -f "$work/out/after.txt" ] || fail "a failing step stopped the batch"
grep -q '^about to fail$' "$work/a.txt" || fail "the failed step's last lines were not shown: $(cat "$work/a.txt")"
grep -q '2 of 5 steps failed' "$work/a.txt" || fail "no count of failed steps: $(tail -n 3 "$work/a.txt")"

printf 'first  touch "$OUT/ran.txt"\nnot/a/name  echo\n' > "$work/b.plan"
OUT="$work/out_b" "$batch" "$work/b.plan" > "$work/b.txt" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "a malformed plan: exit $rc, not 2"
[ "$(wc -l < "$work/b.txt")" = 1 ] && grep -q 'b.plan:2: .not/a/name. is not a step name' "$work/b.txt" ||
    fail "a malformed plan: not one line naming the entry: $(cat "$work/b.txt")"
[ ! -e "$work/out_b/ran.txt" ] || fail "a step ran before the plan was read whole"

printf 'one  true\ntwo  echo ok\n' > "$work/c.plan"
OUT="$work/out_c" "$batch" "$work/c.plan" > "$work/c.txt" 2>&1 || fail "a passing plan: exit $?: $(cat "$work/c.txt")"

printf 'step  sh scripts/no_such_script.sh\n' > "$work/d.plan"
"$batch" --check "$work/d.plan" > "$work/d.txt" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "scripts/no_such_script.sh' does not exist" "$work/d.txt" || fail "--check: exit $rc: $(cat "$work/d.txt")"
"$batch" --check "$src"/scripts/plans/*.plan > "$work/e.txt" 2>&1 || fail "--check of scripts/plans: $(cat "$work/e.txt")"
echo "gpu_batch: steps, exports, failures, time limit, malformed plan, --check: all as expected"
