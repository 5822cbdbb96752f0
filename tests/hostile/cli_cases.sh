#!/bin/bash
# cli_cases.sh KLADDER WORK: hostile manifests, lessons, expressions and results files through
# the real `kladder` (list, run, check-kernels, export). No GPU needed: every refusal comes
# before the GPU is touched. See lib.sh for what each case asserts.
set -u
kladder=$(realpath "$1") work=$(realpath -m "$2")
export kladder work
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/hostile/lib.sh"
rm -rf "$work" && mkdir -p "$work/exports"
export XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config"
ew=kernels/elementwise/ladder.toml
lesson=lessons/01_first_kernel/lesson.toml
rec=$src/assets/recorded/h100_elementwise.json
export rec

# constraint EXPR: appends a constraint to the first rung (vector_add) of the elementwise ladder.
constraint() { put $ew 'args  = ["c", "a", "b", "n:i64"]' "  args  = [\"c\", \"a\", \"b\", \"n:i64\"]
  [[rung.constraint]]
  expr = \"$1\"
  message = \"hostile\""; }
run_ew() { "$kladder" run elementwise --rung vector_add "$@"; }
export -f run_ew

# [SECTION] Expressions: int64 edges, division, depth (crashed with SIGFPE / SIGSEGV / UB)
fresh_root; constraint '(-9223372036854775807 - 1) / -1 == 0'
expect expr.int64_min_div 2 "does not fit in a 64-bit integer" run_ew
fresh_root; constraint '(-9223372036854775807 - 1) % -1 == 0'
expect expr.int64_min_mod 3 "no CUDA GPU|no NVIDIA driver" env CUDA_VISIBLE_DEVICES= "$kladder" run elementwise --rung vector_add
fresh_root; constraint 'n * 9223372036854775807 > 0'
expect expr.mul_overflow 2 "n \\* 9223372036854775807|268435456 \\* 9223372036854775807" run_ew
fresh_root; constraint 'cdiv(-9223372036854775807 - 1, -1) > 0'
expect expr.cdiv_overflow 2 "cdiv|64-bit" run_ew
fresh_root; constraint 'TPB / (EPT - EPT) == 0'
expect expr.div_zero 2 "division by zero" run_ew
fresh_root; constraint "$(printf '(%.0s' $(seq 1000))1$(printf ')%.0s' $(seq 1000))"
expect expr.deep_parens 2 "elementwise/ladder.toml:[0-9]+: .*nested deeper than 100 levels" "$kladder" list ladders
fresh_root; constraint "$(printf '(%.0s' $(seq 3000))1$(printf ')%.0s' $(seq 3000))"
expect expr.too_long 2 "longer than 4096 characters" "$kladder" list ladders
fresh_root; constraint "$(printf -- '-%.0s' $(seq 3000))1 < 0"
expect expr.deep_unary 2 "nested deeper than 100 levels" "$kladder" list ladders
fresh_root; constraint '99999999999999999999 > 0'
expect expr.number_too_big 2 "number out of range" "$kladder" list ladders

# [SECTION] Parameter ranges (hung at the top of int64; crashed on a power-of-two range)
fresh_root; put $ew 'default = 256' '  default = 9223372036854775806'; put $ew 'min = 32' '  min = 9223372036854775806'
put $ew 'max = 1024' '  max = 9223372036854775807'; put $ew 'pow2 = true' ''
expect param.range_at_int64_max 2 "" "$kladder" check-kernels --ladder elementwise
fresh_root; put $ew 'default = 256' '  default = 3'; put $ew 'min = 32' '  min = 3'; put $ew 'max = 1024' '  max = 3'
expect param.pow2_range_without_power 2 "rung\\[0\\]\\.params\\.TPB: no power of two lies in 3\\.\\.3" "$kladder" list ladders
fresh_root; put $ew 'min = 32' '  min = 3'; put $ew 'max = 1024' '  max = 9223372036854775807'
expect param.pow2_range_to_int64_max 0 "" "$kladder" list ladders
fresh_root; put $ew 'default = 256' '  default = 99999999999999999999'
expect toml.integer_too_big 2 "elementwise/ladder.toml:[0-9]+: " "$kladder" list ladders

# [SECTION] Paths in manifests: outside the tree, absolute, devices, FIFOs, links, loops
fresh_root; put $ew 'file      = "01_vector_add.cu"' 'file = "../../../../../../../etc/passwd"'
expect rung.file_dotdot 2 "rung\\[0\\]\\.file: .*'\\.\\.' is not allowed" "$kladder" list ladders
fresh_root; put $ew 'file      = "01_vector_add.cu"' 'file = "/etc/hostname"'
expect rung.file_absolute 2 "rung\\[0\\]\\.file: '/etc/hostname' is absolute" "$kladder" list ladders
fresh_root; ln -s /dev/zero "$root/kernels/elementwise/zero.cu"; put $ew 'file      = "01_vector_add.cu"' 'file = "zero.cu"'
expect rung.file_device 2 "rung\\[0\\]\\.file: .*zero.cu is a device file" "$kladder" list ladders
fresh_root; mkfifo "$root/kernels/elementwise/fifo.cu"; put $ew 'file      = "01_vector_add.cu"' 'file = "fifo.cu"'
expect rung.file_fifo 2 "rung\\[0\\]\\.file: .*fifo.cu is a FIFO" "$kladder" list ladders
fresh_root; ln -s /etc/hostname "$root/kernels/elementwise/out.cu"; put $ew 'file      = "01_vector_add.cu"' 'file = "out.cu"'
expect rung.file_link_outside 2 "rung\\[0\\]\\.file: 'out.cu' is a link to .*outside the folder" "$kladder" list ladders
fresh_root; ln -s loop.cu "$root/kernels/elementwise/loop.cu"; put $ew 'file      = "01_vector_add.cu"' 'file = "loop.cu"'
expect rung.file_symlink_loop 2 "rung\\[0\\]\\.file: .*loop.cu: Too many levels of symbolic links" "$kladder" list ladders
fresh_root; ln -s loopdir "$root/kernels/loopdir"; ln -s loopdir2 "$root/lessons/loopdir2"
expect tree.symlink_loop_folders 0 "" "$kladder" list

fresh_root; put $lesson 'text     = "01_anatomy.md"' 'text = "../../../../../../etc/passwd"'
expect lesson.text_dotdot 2 "step\\[0\\]\\.text: .*'\\.\\.' is not allowed" "$kladder" list lessons
fresh_root; put $lesson 'text     = "01_anatomy.md"' 'text = "/dev/zero"'
expect lesson.text_absolute_device 2 "step\\[0\\]\\.text: '/dev/zero' is absolute" "$kladder" list lessons
fresh_root; ln -s /dev/zero "$root/lessons/01_first_kernel/zero.md"; put $lesson 'text     = "01_anatomy.md"' 'text = "zero.md"'
expect lesson.text_device 2 "step\\[0\\]\\.text: .*zero.md is a device file" "$kladder" list lessons
fresh_root; mkfifo "$root/lessons/01_first_kernel/fifo.md"; put $lesson 'text     = "01_anatomy.md"' 'text = "fifo.md"'
expect lesson.text_fifo 2 "step\\[0\\]\\.text: .*fifo.md is a FIFO" "$kladder" list lessons
fresh_root; ln -s /etc/passwd "$root/lessons/01_first_kernel/pw.md"; put $lesson 'text     = "01_anatomy.md"' 'text = "pw.md"'
expect lesson.text_link_outside 2 "step\\[0\\]\\.text: 'pw.md' is a link to /etc/passwd, outside" "$kladder" list lessons
fresh_root; mkdir "$root/lessons/01_first_kernel/dir.md"; put $lesson 'text     = "01_anatomy.md"' 'text = "dir.md"'
expect lesson.text_folder 2 "step\\[0\\]\\.text: .*dir.md is a folder" "$kladder" list lessons

# [SECTION] Oversized and wrong-typed integers in lessons (were truncated silently)
fresh_root; put $lesson 'number  = 1' 'number = 4294967297'
expect lesson.number_wraps 2 "lesson.number: 4294967297 is outside 0\\.\\.9999" "$kladder" list lessons
fresh_root; put $lesson 'number  = 1' 'number = 1.0'
expect lesson.number_float 2 "lesson.number: expected an integer, found a number" "$kladder" list lessons

# [SECTION] check-kernels: empty sources, missing entry points, --ladder naming nothing
fresh_root
expect check.unknown_ladder 2 "unknown ladder 'nope'" "$kladder" check-kernels --ladder nope
: > "$root/kernels/elementwise/01_vector_add.cu"
expect check.empty_source 2 "" "$kladder" check-kernels --ladder elementwise
grep -q "no kernel 'vector_add'.*the file is empty" "$work/out.txt" || fail "no FAIL line naming the empty file"
fresh_root; put $ew 'entry = "vector_add"' '  entry = "no_such_kernel"'
expect check.missing_entry 2 "" "$kladder" check-kernels --ladder elementwise
grep -q "no kernel 'no_such_kernel'" "$work/out.txt" || fail "no FAIL line naming the missing entry point"

# [SECTION] Results files: wrong types, depth, versions, oversized integers, not files
fresh_root
results() {  # results NAME PYTHON-EDIT: a copy of the recorded elementwise results, edited
    python3 - "$rec" "$work/$1.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(r) if not isinstance(r, str) else r)
PY
}
export_bars() { "$kladder" export --results "$1" --plot bars -o "$work/exports/fig.svg"; }
export -f export_bars
results name_number 'r["device"]["name"] = 5'
expect results.device_name_number 2 "name_number.json: device.name: expected a string" export_bars "$work/name_number.json"
results uuid_number 'r["device"]["uuid"] = [1]'
expect results.device_uuid_list 2 "device.uuid: expected a string" export_bars "$work/uuid_number.json"
results title_object 'r["runs"][0]["title"] = {}'
expect results.title_object 2 "runs\\[0\\]\\.title: expected a string" export_bars "$work/title_object.json"
results version_float 'r["version"] = 2.0'
expect results.version_float 2 "version: expected an integer, found 2.0" export_bars "$work/version_float.json"
results version_newer 'r["version"] = 99'
expect results.version_newer 2 "version: 99 is newer" export_bars "$work/version_newer.json"
results param_huge 'r = json.dumps(r).replace("\"params\": {", "\"params\": {\"X\": 18446744073709551615, ", 1)'
expect results.param_over_int64 2 "params\\.X: expected a 64-bit integer" export_bars "$work/param_huge.json"
results elements_float 'r["runs"][0]["correctness"]["elements"] = 1e300'
expect results.elements_float 2 "correctness\\.elements: expected an integer" export_bars "$work/elements_float.json"
python3 -c 'print("[" * 300000 + "]" * 300000)' > "$work/deep.json"
expect results.deep_nesting 2 "deep.json: nested deeper than 64 levels" export_bars "$work/deep.json"
results deep_counters 'r["runs"][0]["counters"] = "DEEP"; r = json.dumps(r).replace("\"DEEP\"", "[" * 100000 + "]" * 100000, 1)'
expect results.deep_counters 2 "nested deeper than 64 levels" export_bars "$work/deep_counters.json"
expect results.dev_zero 2 "cannot read /dev/zero: not a regular file" export_bars /dev/zero
mkfifo "$work/fifo.json"
expect results.fifo 2 "fifo.json: not a regular file" export_bars "$work/fifo.json"
expect results.folder 2 "not a regular file" export_bars "$work"
expect results.missing 2 "cannot read .*nope.json: No such file" export_bars "$work/nope.json"

# [SECTION] Command lines: one line, exit 2
fresh_root
expect cmdline.unknown_option 2 "^kladder: .*frobnicate.* \\(see kladder --help\\)$" "$kladder" run elementwise --frobnicate
expect cmdline.missing_subcommand 2 "see kladder --help" "$kladder"
expect cmdline.bad_plot 2 "--plot" "$kladder" export --results "$rec" --plot pie -o "$work/exports/x.svg"
expect cmdline.size_overflow 2 "n" "$kladder" run elementwise --size n=99999999999999999999999
expect cmdline.size_suffix_overflow 2 "does not fit in a 64-bit integer" "$kladder" run elementwise --size n=9999999999999999M
expect cmdline.size_pow_overflow 2 "n" "$kladder" run elementwise --size n=2^70

finish
