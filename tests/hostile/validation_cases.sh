#!/bin/bash
# validation_cases.sh KLADDER WORK: files that are well-formed but wrong, through the real
# `kladder`: rungs that check-kernels never compiles, manifest expressions that cannot be
# evaluated, a broken ladder.toml that the lessons would be blamed for, results with impossible
# values, and device cards that would overwrite each other or be written half. No GPU needed.
# See lib.sh for what each case asserts.
set -u
kladder=$(realpath "$1") work=$(realpath -m "$2")
export kladder work
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/hostile/lib.sh"
rm -rf "$work" && mkdir -p "$work/exports"
export XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config"
ew=kernels/elementwise/ladder.toml
rec=$src/assets/recorded/h100_elementwise.json
export rec

# only_vector_add: the elementwise ladder keeps its first rung alone, so that check-kernels
# compiles 15 variants, not the whole ladder (the lessons that name its other rungs break, but
# check-kernels reads no lesson).
only_vector_add() { python3 - "$root/$ew" <<'PY'
import sys
p = sys.argv[1]
text = open(p).read()
first = text.index("[[rung]]")
second = text.index("[[rung]]", first + 1)
open(p, "w").write(text[:second])
PY
}
# constraint EXPR: a constraint of vector_add (rung[0]), on the lines after its launch's args.
constraint() { put $ew 'args  = ["c", "a", "b", "n:i64"]' "  args  = [\"c\", \"a\", \"b\", \"n:i64\"]
  [[rung.constraint]]
  expr = \"$1\"
  message = \"hostile\""; }
# out_has REGEX: the case's stdout has a line matching REGEX.
out_has() { grep -Eq -- "$1" "$work/out.txt" || fail "no stdout line matches /$1/: $(head -c 400 "$work/out.txt")"; }
# first_err REGEX: the case's first stderr line matches REGEX (the ladder's error comes first).
first_err() { head -1 "$work/err.txt" | grep -Eq -- "$1" || fail "first stderr line does not match /$1/"; }
check_ew() { "$kladder" check-kernels --ladder elementwise; }
export -f check_ew

# [SECTION] check-kernels: a rung that no variant is compiled for passes nothing
fresh_root; only_vector_add
# A control: the ladder cut to vector_add passes, so each failure below is the hostile edit's.
expect check.baseline_vector_add 0 "" check_ew
fresh_root; only_vector_add; : > "$root/kernels/elementwise/01_vector_add.cu"; constraint 'TPB < 0'
expect check.empty_source_all_variants_skipped 2 "" check_ew
# 7: the defaults in its three dtypes, and its four range ends in the widest (fp32) only.
out_has "^FAIL  elementwise/vector_add on sm_90: no variant was compiled \\(7 skipped by the rung's constraints.*its file is empty"
fresh_root; only_vector_add; constraint 'EPT > 16'
expect check.every_variant_skipped 2 "" check_ew
out_has "^FAIL  elementwise/vector_add on sm_90: no variant was compiled"

# [SECTION] Manifest expressions that cannot be evaluated: the manifest's error, with its line
# (TPB = 1024, a range end that check-kernels tries, divides by zero; the other variants hold)
fresh_root; only_vector_add; constraint 'n / (TPB - 1024) <= 0'
expect check.constraint_divides_by_zero 2 "" check_ew
out_has "^FAIL  .*elementwise/ladder.toml:38: rung\\[0\\]\\.constraint\\[0\\]\\.expr: expression 'n / \\(TPB - 1024\\) <= 0': division by zero \\(with TPB=1024, n=268435456\\)"
fresh_root; only_vector_add; put $ew 'entry = "vector_add"' '  entry = "vector_add"
  when = "n / (TPB - 1024) <= 0"'
expect check.when_divides_by_zero 2 "" check_ew
out_has "^FAIL  .*elementwise/ladder.toml:34: rung\\[0\\]\\.launch\\[0\\]\\.when: expression .*division by zero"
fresh_root; constraint 'n / (TPB - 1024) <= 0'
expect run.constraint_divides_by_zero 2 \
    "^kladder: .*elementwise/ladder.toml:[0-9]+: rung\\[0\\]\\.constraint\\[0\\]\\.expr: expression .*division by zero" \
    "$kladder" run elementwise --rung vector_add --param TPB=1024

# [SECTION] A broken ladder.toml is named first, before the lessons it breaks
broken='elementwise/ladder.toml:7: ladder\.id: expected a string, found an integer'
fresh_root; put $ew 'id        = "elementwise"' 'id = 5'
expect ladder_broken.list 2 "" "$kladder" list
first_err "^kladder: .*$broken"
expect ladder_broken.list_lessons 2 "" "$kladder" list lessons
first_err "^kladder: .*$broken"
expect ladder_broken.check_lessons 2 "" "$kladder" check-lessons --recorded "$src/assets/recorded"
head -1 "$work/out.txt" | grep -Eq -- "$broken" || fail "first offence is not the ladder's own error"
expect ladder_broken.export_lesson 2 "^kladder: .*$broken; so .*unknown ladder 'elementwise'" \
    "$kladder" export-lesson 01_first_kernel --results "$rec" -o "$work/exports/lesson"
expect ladder_broken.export_figure 2 "^kladder: .*$broken; so .*unknown ladder 'elementwise'" \
    "$kladder" export --results "$rec" --plot bars -o "$work/exports/fig.svg"
expect ladder_broken.check_kernels 2 "" "$kladder" check-kernels --ladder recompute --verbose
head -1 "$work/out.txt" | grep -Eq -- "^FAIL  .*$broken" || fail "check-kernels does not print the ladder's error first"

# [SECTION] Results with impossible values: refused on read, naming file, field and value
fresh_root
results() {  # results NAME PYTHON-EDIT: a copy of the recorded elementwise results, edited
    python3 - "$rec" "$work/$1.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(r))
PY
}
export_bars() { "$kladder" export --results "$1" --plot bars -o "$work/exports/fig.svg"; }
export -f export_bars
results rate_zero 'r["runs"][0]["rates"]["gbps"] = 0'
expect results.rate_zero 2 "rate_zero.json: runs\\[0\\]\\.rates\\.gbps: 0 for a timed run that moved" \
    export_bars "$work/rate_zero.json"
results rate_negative 'r["runs"][1]["rates"]["tflops"] = -3.5'
expect results.rate_negative 2 "rate_negative.json: runs\\[1\\]\\.rates\\.tflops: -3.5 is negative" \
    export_bars "$work/rate_negative.json"
results size_negative 'r["runs"][0]["sizes"]["n"] = -1'
expect results.size_negative 2 "size_negative.json: runs\\[0\\]\\.sizes\\.n: -1 is negative" \
    export_bars "$work/size_negative.json"
results size_zero 'r["runs"][0]["sizes"]["n"] = 0'
expect results.size_zero 2 "size_zero.json: runs\\[0\\]\\.sizes\\.n: 0 is outside 1\\.\\." \
    export_bars "$work/size_zero.json"
results dtype_fp7 'r["runs"][0]["dtype"] = "fp7"'
expect results.dtype_unknown 2 "dtype_fp7.json: runs\\[0\\]\\.dtype: 'fp7' is not a dtype" \
    export_bars "$work/dtype_fp7.json"
# JSON has no NaN: a writer that cannot say NaN writes it as a string, which was read as no tolerance.
results tol_nan 'r["runs"][0]["correctness"]["tolerance"] = "NaN"'
expect results.tolerance_nan 2 "tol_nan.json: runs\\[0\\]\\.correctness\\.tolerance: expected an object .*\"NaN\"" \
    export_bars "$work/tol_nan.json"
results tol_negative 'r["runs"][0]["correctness"]["tolerance"]["rel"] = -1e-5'
expect results.tolerance_negative 2 "tol_negative.json: runs\\[0\\]\\.correctness\\.tolerance\\.rel: -1e-05 is negative" \
    export_bars "$work/tol_negative.json"
results time_zero 'r["runs"][0]["timing"]["min_ms"] = 0'
expect results.time_zero 2 "time_zero.json: runs\\[0\\]\\.timing\\.min_ms: 0 ms: a measured time is above zero" \
    export_bars "$work/time_zero.json"
results mismatches 'r["runs"][0]["correctness"]["mismatches"] = r["runs"][0]["correctness"]["elements"] + 1'
expect results.more_mismatches_than_elements 2 "mismatches.json: runs\\[0\\]\\.correctness\\.mismatches: [0-9]+ is more than" \
    export_bars "$work/mismatches.json"

# [SECTION] make-cards: one card per device, all written or none
# recorded NAME DEVICE...: a recordings folder under exports/ (watched for leftovers) holding one
# copy of the elementwise recording per device name.
recorded() {
    local dir=$work/exports/$1 i=0
    shift
    rm -rf "$dir" && mkdir -p "$dir"
    for device in "$@"; do
        i=$((i + 1))
        python3 - "$rec" "$dir/r$i.json" "$device" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["device"]["name"] = sys.argv[3]
open(sys.argv[2], "w").write(json.dumps(r))
PY
    done
}
fresh_root
recorded collide "NVIDIA H100 80GB HBM3" "nvidia-h100-80gb-hbm3"
expect cards.slug_collision 2 "devices 'NVIDIA H100 80GB HBM3' \\(.*r1.json\\) and 'nvidia-h100-80gb-hbm3' \\(.*r2.json\\) would both be card nvidia_h100_80gb_hbm3.json" \
    "$kladder" make-cards --recorded "$work/exports/collide"
[ ! -e "$work/exports/collide/cards" ] || fail "cards written: $(ls "$work/exports/collide/cards")"
recorded halfway "GPU A" "GPU B"
expect cards.both_written 0 "" "$kladder" make-cards --recorded "$work/exports/halfway"
grep -q '"device": "GPU A"' "$work/exports/halfway/cards/gpu_a.json" || fail "card gpu_a.json not written"
grep -q '"device": "GPU B"' "$work/exports/halfway/cards/gpu_b.json" || fail "card gpu_b.json not written"
# A newer recording of GPU A changes its card; GPU B's card cannot be written (a folder has its name).
cp "$work/exports/halfway/cards/gpu_a.json" "$work/card_a_before.json"
python3 - "$work/exports/halfway/r1.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["created"] = "2099-01-01T00:00:00Z"
open(sys.argv[1], "w").write(json.dumps(r))
PY
rm "$work/exports/halfway/cards/gpu_b.json" && mkdir "$work/exports/halfway/cards/gpu_b.json"
expect cards.second_unwritable 2 "gpu_b.json.*not replaced" "$kladder" make-cards --recorded "$work/exports/halfway"
cmp -s "$work/card_a_before.json" "$work/exports/halfway/cards/gpu_a.json" ||
    fail "card gpu_a.json was replaced though gpu_b.json could not be written"

finish
