# shellcheck shell=sh disable=SC2154
# window_test.sh: what the window tests in tests/gui share. Sourced, never run:
#   here=$(cd "$(dirname "$0")" && pwd); . "$here/window_test.sh"   (the functions use $here)
# POSIX sh and coreutils only: the GPU-labelled tests source it on a machine that has nothing
# more than sh, python3 and coreutils.

# In a sanitizer build (KL_SANITIZE) the window's leaks cannot be checked: Mesa unloads its
# llvmpipe driver at exit, so what that driver kept shows as "<unknown module>" and no
# suppression can name it. Address and undefined-behaviour checks stay on. (No effect elsewhere.)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# fresh_out DIR [CACHE]: an empty output folder DIR (in $out) with its own settings and progress,
# and its own kernel cache unless CACHE names one (the GPU tests keep the caller's, to compile once).
# The learner's data (workspace, progress) goes to a temporary folder outside the repository tree,
# where the window accepts a workspace (under build/ it rightly refuses one), removed at exit
# unless the test sets a trap of its own.
fresh_out() {
    out=$1
    rm -rf "$out" && mkdir -p "$out"
    kl_test_data=$(mktemp -d "${TMPDIR:-/tmp}/kl-window-test.XXXXXX") || exit 1
    trap 'rm -rf "$kl_test_data"' EXIT
    export XDG_CONFIG_HOME="$out/config" XDG_CACHE_HOME="${2:-$out/cache}" XDG_DATA_HOME="$kl_test_data"
}

# trap_data_root ROOT [LESSON]: a data root (for KLADDER_ROOT) with the shipped common and
# elementwise kernels, the trapping test ladder of tests/gui/data, and the test lessons: all of
# them, or only the one folder LESSON.
trap_data_root() {
    mkdir -p "$1/kernels"
    ln -s "$here/../../kernels/common" "$1/kernels/common"
    ln -s "$here/../../kernels/elementwise" "$1/kernels/elementwise"
    ln -s "$here/data/kernels/trap" "$1/kernels/trap"
    if [ -n "${2:-}" ]; then
        mkdir -p "$1/lessons" && ln -s "$here/data/lessons/$2" "$1/lessons/$2"
    else
        ln -s "$here/data/lessons" "$1/lessons"
    fi
}

# run_gui GUI ARGS...: runs the workbook with its output in $out/stdout.txt and $out/stderr.txt,
# shows its stdout, and fails the test, showing its stderr, unless it exits 0.
run_gui() {
    "$@" > "$out/stdout.txt" 2> "$out/stderr.txt"
    rc=$?
    cat "$out/stdout.txt"
    [ $rc -eq 0 ] || { echo "FAIL: the workbook exited with code $rc"; cat "$out/stderr.txt"; exit 1; }
}

# skip_without_gpu REPORT: exits 77 (CTest's "skipped") when the runner in the workbook's
# REPORT found no GPU and says why; fails the test when REPORT does not say.
skip_without_gpu() {
    skip=$(python3 -c 'import json, sys
run = json.load(open(sys.argv[1]))["runner"]
print("" if run["gpu"] else "SKIP: no GPU: " + run["no_gpu_reason"])' "$1") || { echo "FAIL: $1: no runner state"; exit 1; }
    [ -z "$skip" ] || { echo "$skip"; exit 77; }
}

# verdict REPORT NAME CHECKS: CHECKS, a Python list of (ok, message) over `r` (the window's --report),
# `cards` (the strip's cards by rung) and `text(rung)` (a card's text). One line of verdict; exit 1
# with the failed messages. Shared by library_share.sh and stopwatch_window.sh.
verdict() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
cards = {c["rung"]: c for c in r["strip"]}
text = lambda rung: cards.get(rung, {}).get("text", "")
checks = [(r["script"]["finished"] and not r["script"]["errors"], f"script: {r['script']['errors']}")]
checks += eval(sys.argv[3])
bad = [msg for ok, msg in checks if not ok]
print(f"{sys.argv[2]}: {len(checks) - len(bad)} of {len(checks)} checks passed")
if bad:
    print("FAIL: " + "\n      ".join(bad))
    sys.exit(1)
PY
}
