#!/bin/bash
# cache_window.sh GUI WORK: the window's PTX view runs `kladder ptx` in a child process. A rung
# whose compile does not end (tests/hostile/slow_compile.cu keeps NVRTC busy for hours), or that
# #includes a FIFO, must not keep the window from closing: it closes within seconds of being asked
# (--max-seconds), and leaves no `kladder ptx` behind. The view's Cancel button ends the child.
set -u
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"  # as window_broken.sh says
gui=$(realpath "$1") work=$(realpath -m "$2")
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work"
export XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config"
fails=0

# window_closes NAME: the window on lesson 1 step 3 (vector_add), PTX view, asked to close after 4 s.
window_closes() {
    local name=$1 start took rc
    start=$(date +%s)
    KLADDER_ROOT=$root timeout -k 5 40 "$gui" --no-save --no-runner --size 1024x700 --lesson first_kernel --step 3 \
        --view ptx --max-seconds 4 > "$work/$name.out" 2> "$work/$name.err"
    rc=$? took=$(($(date +%s) - start))
    echo "-- $name: exit $rc after $took s"
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        echo "FAIL [$name]: the window did not close within 40 s (it waited for its PTX child)"
        fails=$((fails + 1))
    elif [ $rc -ne 0 ]; then
        echo "FAIL [$name]: exit $rc"; head -5 "$work/$name.err"; fails=$((fails + 1))
    fi
    for p in $(pgrep -x kladder); do
        if { tr '\0' '\n' < "/proc/$p/environ"; } 2>/dev/null | grep -qx "KLADDER_ROOT=$root"; then
            echo "FAIL [$name]: kladder (pid $p) is still running"; kill -9 "$p"; fails=$((fails + 1))
        fi
    done
}

root=$work/slow
mkdir -p "$root" && cp -r "$src/kernels" "$src/lessons" "$root/"
cp "$src/tests/hostile/slow_compile.cu" "$root/kernels/elementwise/01_vector_add.cu"
window_closes window.ptx_compile_never_ends

# The view's Cancel button ends the child while the window stays open.
cat > "$work/cancel.script" <<SCRIPT
wait 20
report $work/before_cancel.json
click button:cancel_ptx
wait 20
report $work/after_cancel.json
SCRIPT
KLADDER_ROOT=$root timeout -k 5 60 "$gui" --no-save --no-runner --size 1024x700 --lesson first_kernel --step 3 \
    --view ptx --script "$work/cancel.script" > "$work/cancel.out" 2> "$work/cancel.err"
rc=$?
python3 - "$work/before_cancel.json" "$work/after_cancel.json" <<'PY' || fails=$((fails + 1))
import json, sys
before, after = (json.load(open(p))["state"]["ptx"] for p in sys.argv[1:])
print(f"-- window.ptx_cancel_button: {before} -> {after}")
if (before, after) != ("compiling", "cancelled"):
    print("FAIL [window.ptx_cancel_button]: expected compiling -> cancelled"); sys.exit(1)
PY
[ $rc -eq 0 ] || { echo "FAIL [window.ptx_cancel_button]: exit $rc"; fails=$((fails + 1)); }

root=$work/fifo
mkdir -p "$root" && cp -r "$src/kernels" "$src/lessons" "$root/"
mkfifo "$root/kernels/elementwise/fifo.cuh"
sed -i '1i #include "fifo.cuh"' "$root/kernels/elementwise/01_vector_add.cu"
window_closes window.ptx_include_fifo

echo "hostile window cases: $fails failed"
[ "$fails" -eq 0 ]
