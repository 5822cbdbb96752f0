#!/bin/bash
# tuned_cases.sh KLADDER WORK: the learner's tuned settings ($XDG_DATA_HOME/kernel-ladder/tuned.json,
# model/tuned_store.h) are untrusted input. A truncated, huge, mistyped, newer, linked or FIFO store
# is refused in one line naming the file (and the field), exit 2, before any GPU is asked for, by
# every command that reads it (`tune --list`, `tune`, `run --tuned`, `sweep --tuned`); the file is
# left as it was. A store inside the repository tree is refused. No GPU needed. See lib.sh.
set -u
kladder=$(realpath "$1") work=$(realpath -m "$2")
export kladder work
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/hostile/lib.sh"
rm -rf "$work" && mkdir -p "$work"
# The store must lie outside the repository tree, where the build folder (and $work) may lie.
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
export XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$data"
export case_seconds=30
store=$data/kernel-ladder/tuned.json
fresh_root
mkdir -p "$(dirname "$store")"

entry='{"device": {"name": "NVIDIA H200", "cc": 90, "driver": 13000}, "ladder": "elementwise",
 "rung": "gelu_fused_vec", "dtype": "fp32", "sizes": {"n": 268435456}, "params": {"TPB": 512, "VPT": 1},
 "source_sha256": "'$(printf 'a%.0s' $(seq 64))'", "tuned_at": "2026-11-29T12:00:00Z",
 "points_tried": 24, "points_total": 24, "partial": false, "checked": true, "best_ms": 0.51, "default_ms": 0.53}'
good='{"schema": "kernel-ladder/tuned", "version": 1, "entries": ['$entry']}'

# The commands that read the store refuse a broken one with the same line (checked once for
# each command; they all read it through load_tuned_store).
refused_everywhere() {  # NAME REGEX [all]
    local n=$1 re=$2 before
    before=$(stat -c '%F %s %Y' "$store"; [ -f "$store" ] && md5sum < "$store")
    expect "$n.list" 2 "$re" "$kladder" tune elementwise --list
    if [ "${3:-}" = all ]; then
        expect "$n.run" 2 "$re" "$kladder" run elementwise --tuned
        expect "$n.tune" 2 "$re" "$kladder" tune elementwise --rung gelu_fused_vec
        expect "$n.sweep" 2 "$re" "$kladder" sweep elementwise --rung gelu_fused_vec --axis TPB --values 128,256 --tuned
    fi
    [ "$(stat -c '%F %s %Y' "$store"; [ -f "$store" ] && md5sum < "$store")" = "$before" ] ||
        fail "the store was changed"
}

printf '%s\n' "$good" > "$store"
expect good.list 0 "" "$kladder" tune elementwise --list
grep -q "gelu_fused_vec .*TPB=512 VPT=1.*stale: source changed" "$work/out.txt" ||
    fail "the listed entry is not shown as stale (its source hash is not the rung's)"

printf '%s' "${good:0:150}" > "$store"
refused_everywhere truncated "tuned.json: not valid JSON" all
head -c $((5 << 20)) /dev/zero | tr '\0' ' ' > "$store"
refused_everywhere huge "tuned.json: .* bytes is more than the 4 MiB limit"
printf '%s\n' "${good/\"TPB\": 512/\"TPB\": \"fast\"}" > "$store"
refused_everywhere wrong_type "tuned.json: entries\[0\]\.params\.TPB: expected a 64-bit integer"
printf '%s\n' "${good/\"version\": 1/\"version\": 2}" > "$store"
refused_everywhere newer "tuned.json: version: 2 is newer than this program reads"

rm -f "$store"
printf '%s\n' "$good" > "$data/elsewhere.json"
ln -s "$data/elsewhere.json" "$store"
refused_everywhere symlink "tuned.json: a symbolic link"
rm -f "$store"
mkfifo "$store"
refused_everywhere fifo "tuned.json: not a regular file"
rm -f "$store"

XDG_DATA_HOME=$root/data expect in_tree 2 "is inside the repository tree" "$kladder" tune elementwise --list
[ -e "$root/data" ] && fail "a data folder was created inside the tree"

finish
