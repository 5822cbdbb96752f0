# shellcheck shell=bash
# lib.sh: what the hostile-input tests share. Sourced by the tests/hostile/*.sh scripts.
# Every case runs a real program on a hostile input and asserts: it ends within its time limit,
# its exit code is the one expected (always 0-3), a refusal is one stderr line that names the
# file, field or value, no sanitizer report, and nothing is left behind in the folders watched.

fails=0
cases=0
# In a -DKL_SANITIZE=ON tree: fail on any report; leaks of system libraries are suppressed.
export LSAN_OPTIONS="suppressions=$(dirname "${BASH_SOURCE[0]}")/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# fresh_root: $root becomes a private copy of the shipped kernels/ and lessons/ (for KLADDER_ROOT),
# which a case then breaks; $cwd an empty folder the programs run in.
fresh_root() {
    rm -rf "$work/root" "$work/cwd"
    mkdir -p "$work/root" "$work/cwd"
    cp -r "$src/kernels" "$src/lessons" "$work/root/"
    root=$work/root
    cwd=$work/cwd
}

# put FILE OLD NEW: replaces the first line containing OLD in $root/FILE by NEW.
put() { python3 - "$root/$1" "$2" "$3" <<'PY'
import sys
p, old, new = sys.argv[1:]
lines = open(p).read().split("\n")
i = next(i for i, l in enumerate(lines) if old in l)
lines[i] = new
open(p, "w").write("\n".join(lines))
PY
}

# leftovers DIR...: names of staging or temporary files an interrupted or failed write left.
leftovers() {
    find "$@" \( -name '.*.kladder-*' -o -name '.*.tmp-*' -o -name '*.tmp-*' -o -name '.kladder-export-*' \
        -o -name '*.tmp.png' \) 2>/dev/null
}

fail() {
    echo "FAIL [$name]: $*"
    fails=$((fails + 1))
}

# expect NAME CODE REGEX CMD...: runs CMD (in $cwd, KLADDER_ROOT=$root, within $case_seconds, 120 s
# unless the script sets it lower so that a hang costs seconds). Passes when
# the exit code is CODE, stderr is one line matching REGEX (when CODE is not 0 and REGEX is not
# empty), stderr holds no sanitizer report, and $cwd and $root hold no leftovers.
expect() {
    name=$1 want=$2 pattern=$3
    shift 3
    cases=$((cases + 1))
    local before after
    before=$(ls -A "$cwd")
    # bash -c: CMD may be a function of the calling script (exported with export -f).
    (cd "$cwd" && KLADDER_ROOT="$root" timeout -k 5 "${case_seconds:-120}" bash -c '"$@"' bash "$@" \
        >"$work/out.txt" 2>"$work/err.txt" <"${stdin:-/dev/null}")
    got=$?
    after=$(ls -A "$cwd")
    if [ "$got" -eq 124 ] || [ "$got" -eq 137 ]; then fail "did not finish within ${case_seconds:-120} s (hang)"; return; fi
    if [ "$got" -gt 3 ]; then fail "exit code $got is outside 0-3"; fi
    if [ "$got" -ne "$want" ]; then fail "expected exit $want, got $got"; fi
    if grep -Eq 'Sanitizer|runtime error:|internal error' "$work/err.txt"; then
        fail "sanitizer report or internal error:"
        head -20 "$work/err.txt"
    fi
    if [ "$want" -ne 0 ] && [ -n "$pattern" ]; then
        lines=$(grep -c '' "$work/err.txt")
        [ "$lines" -eq 1 ] || fail "expected one line on stderr, got $lines"
        grep -Eq -- "$pattern" "$work/err.txt" || fail "stderr does not match /$pattern/"
    fi
    [ "$before" = "$after" ] || fail "files left behind in the working folder: $after"
    left=$(leftovers "$cwd" "$root" "$work/exports")
    [ -z "$left" ] || fail "temporary files left behind: $left"
    echo "-- $name: exit $got: $(head -c 300 "$work/err.txt" | head -1)"
}

finish() {
    echo "hostile: $cases cases, $fails failed"
    [ "$fails" -eq 0 ]
}
