#!/bin/bash
# cache_cases.sh KLADDER WORK: the compile cache and what NVRTC is made to read. Includes in a
# subfolder, cache entries copied over other keys or damaged, `try` against deleted headers,
# what `try` stages and with which mode, a cache folder inside the data tree, FIFOs and NUL bytes
# in kernel sources, option-like and quoted file names, and the compile time limit. No GPU needed.
# A case that would hang runs under `timeout` (a hang costs seconds, and fails). See lib.sh.
set -u
kladder=$(realpath "$1") work=$(realpath -m "$2")
export kladder work
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/hostile/lib.sh"
rm -rf "$work" && mkdir -p "$work"
cache=$work/cache
export XDG_CACHE_HOME="$cache" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data"
limit=25  # seconds a case may take before it counts as a hang
entries=$cache/kernel-ladder/kernels

# A one-rung ladder "tiny" (two variants) beside the shipped ones: check-kernels --ladder tiny
# compiles two cubins in a few seconds.
tiny() {
    fresh_root
    rm -rf "$cache"
    mkdir -p "$root/kernels/tiny"
    cp "$root/kernels/elementwise/01_vector_add.cu" "$root/kernels/tiny/add.cu"
    cat > "$root/kernels/tiny/ladder.toml" <<'TOML'
[ladder]
id = "tiny"
title = "Tiny"
operation = "vector_add"
summary = "one rung for the cache cases"
sizes = { n = 1024 }
dtypes = ["fp32"]

[[rung]]
id = "add"
title = "Add"
file = "add.cu"
operation = "vector_add"
idea = "c = a + b"
  [rung.params.TPB]
  default = 256
  values = [256]
  [rung.params.EPT]
  default = 4
  values = [4, 8]
  [[rung.launch]]
  entry = "vector_add"
  grid  = ["cdiv(n, TPB * EPT)"]
  block = ["TPB"]
  args  = ["c", "a", "b", "n:i64"]
TOML
}
add=kernels/tiny/add.cu
check() { timeout -k 2 "$limit" "$kladder" check-kernels --ladder tiny -v; }
ptx() { timeout -k 2 "$limit" "$kladder" ptx tiny --rung add; }
try_mine() { timeout -k 2 "$limit" "$kladder" try tiny "$@" --compile-only; }
export -f check ptx try_mine
export limit

# [SECTION] The cache key covers every file the compile read
tiny
mkdir -p "$root/kernels/tiny/sub"
echo 'extern "C" __device__ int kl_marker_one = 1;' > "$root/kernels/tiny/sub/marker.cuh"
sed -i '1i #include "sub/marker.cuh"' "$root/$add"
expect key.subfolder_include 0 "" ptx
grep -q kl_marker_one "$work/out.txt" || fail "the first PTX lacks the header's symbol"
echo 'extern "C" __device__ int kl_marker_two = 2;' > "$root/kernels/tiny/sub/marker.cuh"
expect key.subfolder_include_edited 0 "" ptx
grep -q kl_marker_two "$work/out.txt" || fail "an edited include in a subfolder was served from the cache (stale)"

# [SECTION] Cache entries: copied over another key, damaged
tiny
expect entry.fill 0 "" check
[ "$(ls "$entries"/*.cubin | wc -l)" -eq 2 ] || fail "expected two cubin entries"
first=$(ls "$entries"/*.cubin | head -1) second=$(ls "$entries"/*.cubin | tail -1)
cp "$first" "$second"
expect entry.copied_over_another_key 0 "" check
[ "$(grep -c '(cached)' "$work/out.txt")" -eq 1 ] || fail "an entry copied over another key was used as cached"
grep -q "warning: .*written for another key" "$work/err.txt" || fail "no warning about the copied entry"
for e in "$entries"/*.cubin; do printf 'garbage' | dd of="$e" bs=1 seek=200 conv=notrunc status=none; done
expect entry.damaged 0 "" check
grep -q FAIL "$work/out.txt" && fail "a damaged cache entry was blamed on the source"
[ "$(grep -c 'warning: .*damaged' "$work/err.txt")" -eq 2 ] || fail "expected one warning per damaged entry"
grep -q '(cached)' "$work/out.txt" && fail "a damaged entry was used"

# [SECTION] A cache folder inside the data tree is refused
tiny
for cmd in check ptx; do
    XDG_CACHE_HOME=$root/cache expect "cache_in_tree.$cmd" 2 "cache folder .*/root/cache/kernel-ladder is inside the data tree" $cmd
done
[ -e "$root/cache" ] && fail "a cache folder was created inside the data tree"
mkdir -p "$work/mine" && cp "$root/$add" "$work/mine/mine.cu"
XDG_CACHE_HOME=$root/kernels/cache expect cache_in_tree.try 2 "is inside the data tree" try_mine "$work/mine/mine.cu"
ln -sfn "$root" "$work/root-link"
XDG_CACHE_HOME=$work/root-link/c expect cache_in_tree.through_link 2 "is inside the data tree" ptx
rm -rf "$root/cache" "$root/kernels/cache" "$work/root-link"

# [SECTION] Includes that are FIFOs, devices, links out of the tree; NUL bytes
tiny
mkfifo "$root/kernels/tiny/fifo.cuh"
sed -i '1i #include "fifo.cuh"' "$root/$add"
expect include_fifo.check_kernels 2 "add.cu:1: #include \"fifo.cuh\": .*fifo.cuh is a FIFO" check
expect include_fifo.ptx 2 "add.cu:1: #include \"fifo.cuh\": .*fifo.cuh is a FIFO" ptx
tiny
mkdir -p "$root/kernels/tiny/sub"
mkfifo "$root/kernels/tiny/sub/deep.cuh"
echo '#include "deep.cuh"' > "$root/kernels/tiny/sub/outer.cuh"
sed -i '1i #include "sub/outer.cuh"' "$root/$add"
expect include_fifo.nested 2 "sub/outer.cuh:1: #include \"deep.cuh\": .*sub/deep.cuh is a FIFO" ptx
rm -f "$work/fifo" && mkfifo "$work/fifo"  # outside the tree; NVRTC would block on it
tiny
sed -i "1i #if __has_include(\"$work/fifo\")\n#endif" "$root/$add"
expect include_has_include_absolute 2 "add.cu:1: __has_include\\(\".*/fifo\"\\): an absolute path" ptx
tiny
sed -i "1i #include \"../../../../../../../../../../../..$work/fifo\"" "$root/$add"
expect include_dotdot_fifo 2 "add.cu:1: #include .*(leads out of CUDA's include folder|is a FIFO)" ptx
tiny
ln -s /etc/passwd "$root/kernels/tiny/pw.cuh"
sed -i '1i #include "pw.cuh"' "$root/$add"
expect include_link_outside 2 "add.cu:1: #include \"pw.cuh\": .*is a link to /etc/passwd" ptx
tiny
sed -i "1i #define KL_WHERE \"$work/fifo\"\n#include KL_WHERE" "$root/$add"
expect include_macro 2 "add.cu:2: #include KL_WHERE: only #include" ptx
tiny
printf '\n/* after the NUL: */ this would not compile\n' > "$work/tail.txt"
nul_line=$(($(wc -l < "$root/$add") + 1))
{ cat "$root/$add"; printf '\0'; cat "$work/tail.txt"; } > "$work/add.cu" && mv "$work/add.cu" "$root/$add"
expect nul.kernel_source 2 "add.cu:$nul_line: a NUL byte in the source" check
mkdir -p "$work/mine" && { printf '// mine\n\0'; cat "$root/$add"; } > "$work/mine/nul.cu"
expect nul.try_file 2 "nul.cu:2: a NUL byte" try_mine "$work/mine/nul.cu"

# [SECTION] try: deleted headers, what is staged and its mode, FIFOs, names
tiny
rm -rf "$work/mine" && mkdir -p "$work/mine"
echo '#define KL_MINE_SCALE 1.0f' > "$work/mine/helper.cuh"
{ echo '#include "helper.cuh"'; cat "$root/$add"; } > "$work/mine/mine.cu"
expect try.with_header 3 "" try_mine "$work/mine/mine.cu"
rm "$work/mine/helper.cuh"
expect try.deleted_header 2 "" try_mine "$work/mine/mine.cu"
grep -q 'cannot open source file "helper.cuh"' "$work/err.txt" || fail "try compiled against a stale copy of a deleted header"
mkfifo "$work/mine/helper.cuh"
expect try.include_fifo 2 "mine.cu:1: #include \"helper.cuh\": .*helper.cuh is a FIFO" try_mine "$work/mine/mine.cu"
rm -f "$work/mine/helper.cuh"

# While a slow compile runs, the staging folder holds the file and only the header it names,
# private: look at it, then stop the compile.
tiny
rm -rf "$work/mine" "$cache" && mkdir -p "$work/mine"
echo '#define KL_USED 1' > "$work/mine/used.cuh" && chmod 600 "$work/mine/used.cuh"
echo '#define KL_UNRELATED 1' > "$work/mine/unrelated.cuh"
{ echo '#include "used.cuh"'; cat "$src/tests/hostile/slow_compile.cu"; } > "$work/mine/mine.cu"
chmod 600 "$work/mine/mine.cu"
name=try.staging_mode_and_contents
cases=$((cases + 1))
(cd "$work/cwd" && KLADDER_ROOT=$root KL_COMPILE_TIMEOUT_S=0 exec timeout -k 2 60 "$kladder" try tiny \
    "$work/mine/mine.cu" --compile-only >/dev/null 2>&1) &
pid=$!
staged=
for _ in $(seq 100); do
    staged=$(find "$cache/kernel-ladder/try" -name '*.cu' 2>/dev/null | head -1)
    [ -n "$staged" ] && break
    sleep 0.2
done
if [ -z "$staged" ]; then
    fail "no staged copy appeared"
else
    folder=$(dirname "$staged")
    listing=$(cd "$folder" && find . -type f | sort | tr '\n' ' ')
    [ "$listing" = "./mine.cu ./used.cuh " ] || fail "staged: $listing (expected the file and used.cuh only)"
    for f in "$folder"/*; do
        mode=$(stat -c %a "$f")
        [ "$mode" = 600 ] || fail "$(basename "$f") staged with mode $mode (its original is 600)"
    done
    mode=$(stat -c %a "$folder")
    [ "$mode" = 700 ] || fail "the staging folder has mode $mode, not 700"
fi
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
echo "-- $name: ${staged:-no staged file}"

# File names: like options, with quotes and newlines (staged under a plain name)
tiny
rm -rf "$work/mine" && mkdir -p "$work/mine"
for f in -DFOO.cu --help.cu 'q"uote.cu' $'new\nline.cu'; do cp "$root/$add" "$work/mine/$f"; done
try_in_mine() { cd "$work/mine" && timeout -k 2 "$limit" "$kladder" try --compile-only tiny "$@"; }
export -f try_in_mine
expect try.name_like_define 3 "" try_in_mine ./-DFOO.cu
grep -q "compiled as a rung" "$work/out.txt" || fail "./-DFOO.cu did not compile"
expect try.name_like_option_after_dashes 3 "" try_in_mine -- --help.cu
grep -q "compiled as a rung" "$work/out.txt" || fail "--help.cu did not compile"
expect try.name_with_quote 3 "" try_in_mine 'q"uote.cu'
grep -q "compiled as a rung" "$work/out.txt" || fail "a name with a quote did not compile"
expect try.name_with_newline 3 "" try_in_mine $'new\nline.cu'
grep -q "compiled as a rung" "$work/out.txt" || fail "a name with a newline did not compile"

# [SECTION] The compile time limit: one line naming the rung, exit 2, within seconds
tiny
cp "$src/tests/hostile/slow_compile.cu" "$root/$add"
KL_COMPILE_TIMEOUT_S=2 expect watchdog.check_kernels 2 "compiling tiny/add took longer than 2 s" check
KL_COMPILE_TIMEOUT_S=2 expect watchdog.ptx 2 "compiling tiny/add took longer than 2 s" ptx
mkdir -p "$work/mine" && cp "$src/tests/hostile/slow_compile.cu" "$work/mine/slow.cu"
KL_COMPILE_TIMEOUT_S=2 expect watchdog.try 2 "compiling tiny/slow took longer than 2 s" try_mine "$work/mine/slow.cu"
tiny
KL_COMPILE_TIMEOUT_S=soon expect watchdog.bad_setting 2 "KL_COMPILE_TIMEOUT_S: 'soon' is not a number" ptx

finish
