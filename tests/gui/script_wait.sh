#!/bin/sh
# script_wait.sh GUI OUT_DIR: a scripted wait on a condition that never comes true fails the run
# with one line naming it (exit 3) once its time-out has passed, instead of hanging or passing; a
# malformed wait is refused the same way. No runner, no GPU.
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2"
printf 'wait 2\nwait_until job 1\nwait 2\n' > "$out/never.txt"
printf 'wait_until results 0\nwait_until sometime\n' > "$out/bad.txt"
"$gui" --no-save --no-runner --size 1280x800 --lesson first_kernel --step 3 --script "$out/never.txt" \
    --max-seconds 60 > "$out/never.out" 2> "$out/never.err"
rc=$?
[ $rc -eq 3 ] || { echo "FAIL: a wait that never ends: exit code $rc, expected 3"; cat "$out/never.err"; exit 1; }
grep -q "script: wait_until job: not true after 1 s" "$out/never.err" ||
    { echo "FAIL: no line naming the wait:"; cat "$out/never.err"; exit 1; }
grep -q "max-seconds reached" "$out/never.err" && { echo "FAIL: the wait was not timed out by the script"; exit 1; }
"$gui" --no-save --no-runner --size 1280x800 --lesson first_kernel --step 3 --script "$out/bad.txt" \
    --max-seconds 60 > "$out/bad.out" 2> "$out/bad.err"
rc=$?
[ $rc -eq 3 ] || { echo "FAIL: malformed waits: exit code $rc, expected 3"; cat "$out/bad.err"; exit 1; }
n=$(grep -c "is not wait_until job|idle|results N \[SECONDS\]" "$out/bad.err")
[ "$n" -eq 2 ] || { echo "FAIL: expected both malformed waits refused, got $n:"; cat "$out/bad.err"; exit 1; }
echo ok
