#!/bin/sh
# Class mode on a GPU (label gpu, issue 41's acceptance): three learners submit lesson 1's vector
# add exercise (tests/class/): a slow solution and a good one are accepted; the cheats are each
# refused by the check that caught them (NaN output: 'correct'; an output cached across calls:
# 'poisoned output'; an input written: 'inputs unmodified'), each with exit 1 and a signed file.
# Then the instructor's merge: all five verified, the good one ranked above the slow one, the
# cheats listed as refused, the class folder written (with the full kladder; kladder-core, which
# the GPU machine runs, has no merge: CLASS_OUT=FILE.tgz keeps the submissions to merge here).
# Usage: [CLASS_OUT=FILE.tgz] class_gpu.sh KLADDER SOURCE_DIR
set -u
kladder=$1; src=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache"
fail() { echo "FAIL: $*"; exit 1; }
ex=01_first_kernel/8
mkdir "$tmp/subs"
"$kladder" class keygen -o "$tmp/class.key" --class "GPU test" || fail "keygen"

submit() {  # NAME FILE EXPECTED_EXIT [EXPECTED_REFUSAL]
  "$kladder" submit "$ex" "$src/tests/class/$2" --name "$1" --key "$tmp/class.key" -o "$tmp/subs/$1.json" \
    > "$tmp/out" 2>&1
  code=$?; cat "$tmp/out"
  [ $code -eq "$3" ] || fail "$2: expected exit $3, got $code"
  [ -f "$tmp/subs/$1.json" ] || fail "$2: no submission written"
  if [ -n "${4:-}" ]; then
    grep -q "^refused by check '$4': " "$tmp/out" || fail "$2: not refused by the check '$4'"
  else
    grep -q "^accepted; signed submission written to " "$tmp/out" || fail "$2: not accepted"
    for check in "correct" "inputs unmodified" "poisoned output" "odd sizes" "planted NaN/Inf" "several seeds" "cold L2"; do
      grep -Eq "^  $check +passed" "$tmp/out" || fail "$2: check '$check' did not pass"
    done
  fi
}
submit slow slow.cu 0
submit good good.cu 0
submit nan cheat_nan.cu 1 "correct"
submit cacher cheat_cache.cu 1 "poisoned output"
submit mutator cheat_mutate.cu 1 "inputs unmodified"

"$kladder" class verify "$tmp/subs/good.json" --key "$tmp/class.key" || fail "verify good.json"
"$kladder" class verify "$tmp/subs/cacher.json" --key "$tmp/class.key"
[ $? -eq 1 ] || fail "verify cacher.json: expected exit 1 (refused)"
# The submissions made on this GPU, for a merge elsewhere (the GPU machine runs kladder-core, which
# has no merge): CLASS_OUT=FILE.tgz keeps them with the key.
if [ -n "${CLASS_OUT:-}" ]; then tar czf "$CLASS_OUT" -C "$tmp" subs class.key || fail "cannot write $CLASS_OUT"; fi
"$kladder" class merge "$tmp/subs" -o "$tmp/class" --key "$tmp/class.key" > "$tmp/out" 2>&1
code=$?; cat "$tmp/out"
if grep -q "leaves out: run the full kladder" "$tmp/out"; then
  echo "class_gpu.sh: submissions passed; merge not run (kladder-core): tar xzf \$CLASS_OUT, then kladder class merge subs -o class --key class.key"
  exit 0
fi
[ $code -eq 0 ] || fail "merge: expected exit 0, got $code"
grep -q "^5 submissions merged (2 accepted, 3 refused or flagged)" "$tmp/out" || fail "merge: not 5 merged, 2 accepted"
for f in class.md class.html gradebook.csv 01_first_kernel_8_times.pdf 01_first_kernel_8_roof.pdf; do
  [ -s "$tmp/class/$f" ] || fail "merge: $f missing"
done
first=$(grep -m1 '^| 1 | ' "$tmp/class/class.md")
case "$first" in *"| good |"*) ;; *) fail "merge: good.cu is not first: $first" ;; esac
grep -q "^| cacher | .* | refused by check 'poisoned output'" "$tmp/class/class.md" || fail "merge: the cacher is not listed refused"
echo "class_gpu.sh: all checks passed"
