#!/bin/sh
# Class mode without a GPU (issue 41): keygen makes a private key and never overwrites one; submit
# refuses bad input in one line (exit 2), a file that does not compile with its NVRTC messages
# (exit 2), and says there is no GPU (exit 3), writing nothing; merge
# names each bad file in one line, goes on, writes the class folder and exits 2, and refuses a class
# folder inside the submissions folder. Signed files (tampered, foreign key, duplicates) are the
# engine tests' (tests/engine/test_class.cpp), since only a GPU run makes a real one.
# Usage: class.sh KLADDER SOURCE_DIR
set -u
kladder=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache"
fail() { echo "FAIL: $*"; exit 1; }
expect() { sh "$src/tests/cli/expect.sh" "$@" || fail "$*"; }

"$kladder" class keygen -o "$tmp/class.key" > /dev/null || fail "keygen"
[ "$(stat -c %a "$tmp/class.key")" = 600 ] || fail "class.key is not 0600"
cp "$tmp/class.key" "$tmp/before.key"
expect 2 "class.key: exists; a class key is never overwritten" "$kladder" class keygen -o "$tmp/class.key"
cmp -s "$tmp/class.key" "$tmp/before.key" || fail "keygen changed an existing key"

good="$src/tests/class/good.cu"
expect 2 "nope.key" "$kladder" submit 01_first_kernel/8 "$good" --name Ada --key "$tmp/nope.key" -o "$tmp/a.json"
expect 2 "--name: give the learner's name" "$kladder" submit 01_first_kernel/8 "$good" --name "" --key "$tmp/class.key" -o "$tmp/a.json"
expect 2 "step 3 of 01_first_kernel has none" "$kladder" submit 01_first_kernel/3 "$good" --name Ada --key "$tmp/class.key" -o "$tmp/a.json"
expect 3 "kladder: no CUDA GPU|kladder: no NVIDIA driver" env CUDA_VISIBLE_DEVICES= \
  "$kladder" submit 01_first_kernel/8 "$good" --name Ada --key "$tmp/class.key" -o "$tmp/a.json"
[ -e "$tmp/a.json" ] && fail "a submission was written without a GPU"
# A file that does not compile: NVRTC's message named by the file, exit 2, before any GPU.
printf '#include "kl_common.cuh"\nextern "C" __global__ void vector_add(ELEM* c, const ELEM* a, const ELEM* b, long long n) { c[0] = x; }\n' \
  > "$tmp/broken.cu"
"$kladder" submit 01_first_kernel/8 "$tmp/broken.cu" --name Ada --key "$tmp/class.key" -o "$tmp/b.json" 2> "$tmp/err"
code=$?; cat "$tmp/err"
[ $code -eq 2 ] || fail "broken.cu: expected exit 2, got $code"
grep -q "broken.cu:2:[0-9]*: error: identifier \"x\" is undefined" "$tmp/err" || fail "broken.cu: no diagnostic"
grep -q "^kladder: .*broken.cu did not compile (1 error, 0 warnings); nothing was judged or written" "$tmp/err" || fail "broken.cu"
[ -e "$tmp/b.json" ] && fail "a submission was written for a file that does not compile"

mkdir "$tmp/subs"
printf '{"schema": "kernel-ladder/submission", "version": 1, "learner": "A' > "$tmp/subs/truncated.json"
printf '{"schema": "kernel-ladder/submission", "version": 9}' > "$tmp/subs/future.json"
ln -s /etc/passwd "$tmp/subs/link.json"
"$kladder" class merge "$tmp/subs" -o "$tmp/class" --key "$tmp/class.key" > "$tmp/out" 2> "$tmp/err"
code=$?; cat "$tmp/out" "$tmp/err"
[ $code -eq 2 ] || fail "merge with bad files: expected exit 2, got $code"
[ "$(grep -c '' "$tmp/err")" -eq 3 ] || fail "merge: expected one stderr line per bad file"
grep -q "^kladder: truncated.json: truncated: " "$tmp/err" || fail "merge: truncated.json not named"
grep -q "^kladder: future.json: future version: submission version 9 needs a newer workbook" "$tmp/err" || fail "future.json"
grep -q "^kladder: link.json: a symbolic link; only regular files are read" "$tmp/err" || fail "link.json"
[ -s "$tmp/class/class.md" ] && [ -s "$tmp/class/gradebook.csv" ] || fail "merge: the class folder was not written"
expect 2 "the class folder must be outside the submissions folder" \
  "$kladder" class merge "$tmp/subs" -o "$tmp/subs/class" --key "$tmp/class.key"
[ -e "$tmp/subs/class" ] && fail "a class folder was written inside the submissions"
echo "class.sh: all checks passed"
