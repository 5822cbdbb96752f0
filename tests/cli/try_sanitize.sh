#!/bin/sh
# `kladder try --sanitize` where it cannot run: without a GPU (CUDA_VISIBLE_DEVICES hides one)
# and without compute-sanitizer (KL_COMPUTE_SANITIZER names a file that is not there), one line
# on stderr names what is missing, exit 3, nothing on stdout; --json carries the same reason; a
# tool that is not memcheck or racecheck is refused (exit 2); a file that does not compile is
# still exit 2 with its message first. Runs on any machine, GPU or not.
# Usage: try_sanitize.sh KLADDER SOURCE_DIR
set -u
kladder=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache" CUDA_VISIBLE_DEVICES=
fail() { echo "FAIL: $*"; exit 1; }
cp "$src/kernels/elementwise/01_vector_add.cu" "$tmp/mine.cu"
printf '#!/bin/sh\nexit 0\n' > "$tmp/fake-sanitizer"; chmod +x "$tmp/fake-sanitizer"
cd "$tmp" || exit 1

# No compute-sanitizer (and no GPU): both named, in one line.
KL_COMPUTE_SANITIZER="$tmp/not-there" "$kladder" try elementwise mine.cu --like vector_add --sanitize >"$tmp/out" 2>"$tmp/err"
code=$?; cat "$tmp/err"
[ $code -eq 3 ] || fail "no sanitizer: expected exit 3, got $code"
[ "$(grep -c '' "$tmp/err")" -eq 1 ] || fail "no sanitizer: expected one line on stderr"
[ ! -s "$tmp/out" ] || fail "no sanitizer: something on stdout"
grep -q "needs a GPU" "$tmp/err" || fail "no sanitizer: the missing GPU is not named"
grep -q "compute-sanitizer" "$tmp/err" && grep -q "$tmp/not-there is not an executable file" "$tmp/err" ||
  fail "no sanitizer: the missing compute-sanitizer is not named"

# A sanitizer there, no GPU: the line names the GPU only, and the sanitizer is never started.
KL_COMPUTE_SANITIZER="$tmp/fake-sanitizer" "$kladder" try elementwise mine.cu --like vector_add --sanitize=racecheck \
  >"$tmp/out" 2>"$tmp/err"
code=$?; cat "$tmp/err"
[ $code -eq 3 ] || fail "no GPU: expected exit 3, got $code"
grep -qx "kladder: --sanitize needs a GPU (.*)" "$tmp/err" || fail "no GPU: not the one line saying so"

# --json: the same reason, under "sanitize".
KL_COMPUTE_SANITIZER="$tmp/fake-sanitizer" "$kladder" try elementwise mine.cu --like vector_add --sanitize --json \
  >"$tmp/out" 2>"$tmp/err"
code=$?
[ $code -eq 3 ] || fail "--json: expected exit 3, got $code"
tr -d ' \n' < "$tmp/out" > "$tmp/flat"
grep -q '"sanitize":{' "$tmp/flat" && grep -q '"ran":false' "$tmp/flat" && grep -q '"tool":"memcheck"' "$tmp/flat" &&
  grep -q '"reason":"--sanitizeneedsaGPU' "$tmp/flat" || { cat "$tmp/out"; fail "--json: no sanitize object with the reason"; }

"$kladder" try elementwise mine.cu --sanitize=helgrind >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "helgrind not in {memcheck,racecheck}" "$tmp/err" || fail "--sanitize=helgrind: expected exit 2"

sed 's/kl_to_float(b\[i\]))/kl_to_float(b[i]) + oops)/' mine.cu > broken.cu
"$kladder" try elementwise broken.cu --like vector_add --sanitize >"$tmp/out" 2>"$tmp/err"
code=$?
[ $code -eq 2 ] && head -n 1 "$tmp/err" | grep -q '^broken.cu:[0-9]*:[0-9]*: error: identifier "oops" is undefined' ||
  fail "broken.cu --sanitize: expected exit 2 with the compile error first, got $code"
echo "try_sanitize.sh: all checks passed"
