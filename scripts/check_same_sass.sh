#!/usr/bin/env bash
# Proves that a source change left the machine code of CUDA rungs untouched: compiles each rung
# as it is at a git revision and as it is in the working tree, with nvcc -cubin for sm_90a, at
# its manifest's defaults and at one other combination of its params, and compares the bytes of
# every kernel entry's .text section. Prints one line per (rung, params, entry): identical or
# DIFFERS. Exit 1 if any entry differs or a compile fails; needs no GPU.
# Usage: scripts/check_same_sass.sh REV kernels/<ladder>/<rung>.cu...
set -euo pipefail
if [[ $# -lt 2 ]]; then
    echo "usage: $0 REV RUNG.cu..." >&2
    exit 2
fi
rev=$1
shift
root=$(git rev-parse --show-toplevel)
cd "$root"
git rev-parse --verify -q "$rev^{commit}" >/dev/null || { echo "$0: unknown git revision: $rev" >&2; exit 2; }
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/before"
git archive "$rev" kernels | tar -x -C "$tmp/before"

# Prints the define sets of one rung: its params at their defaults; then candidates for the
# other combination, each line starting with "?": every param moved to its first other allowed
# value (from `values`, else `min` or `max`), then one param moved at a time. The first
# candidate that compiles at REV is used (some combinations fail the rung's static_asserts).
define_sets() {
    python3 - "$1" "$2" <<'PY'
import sys, tomllib
toml, name = sys.argv[1], sys.argv[2]
for rung in tomllib.load(open(toml, "rb")).get("rung", []):
    if rung.get("file") != name:
        continue
    params = rung.get("params", {})
    default = {k: p["default"] for k, p in params.items()}
    other = {}
    for k, p in params.items():
        alts = [v for v in p.get("values", [p.get("min"), p.get("max")]) if v is not None and v != p["default"]]
        other[k] = alts[0] if alts else p["default"]
    line = lambda s: " ".join(f"-D{k}={v}" for k, v in s.items())
    print(line(default))
    print("?" + line(other))
    for k in params:
        if other[k] != default[k]:
            print("?" + line({**default, k: other[k]}))
    break
else:
    sys.exit(f"{toml}: no rung with file = \"{name}\"")
PY
}

# Compiles $1 (source) into $2 (cubin) with the defines in $3 from the tree at $4.
compile() {
    local src=$1 out=$2 defs=$3 tree=$4
    # shellcheck disable=SC2086
    "$nvcc" -cubin -arch=sm_90a -std=c++17 -lineinfo -I "$tree/kernels/common" -I "$tree/$(dirname "$src")" \
        $defs "$tree/$src" -o "$out" 2>"$out.log"
}

status=0
n=0
for rung in "$@"; do
    [[ -f "$rung" ]] || { echo "$0: no such rung file: $rung" >&2; exit 2; }
    sets=$(define_sets "$(dirname "$rung")/ladder.toml" "$(basename "$rung")") || exit 2
    alt_found=0
    while IFS= read -r defs; do
        n=$((n + 1))
        if [[ $defs == "?"* ]]; then
            defs=${defs#\?}
            [[ $alt_found == 0 ]] || continue
            compile "$rung" "$tmp/b$n.cubin" "$defs" "$tmp/before" || continue
            alt_found=1
        elif ! compile "$rung" "$tmp/b$n.cubin" "$defs" "$tmp/before"; then
            echo "$rung [$defs]: does not compile at $rev (see below)"; cat "$tmp/b$n.cubin.log"; status=1; continue
        fi
        if ! compile "$rung" "$tmp/a$n.cubin" "$defs" "$root"; then
            echo "$rung [$defs]: DIFFERS (does not compile now)"; cat "$tmp/a$n.cubin.log"; status=1; continue
        fi
        entries=$(readelf -SW "$tmp/b$n.cubin" 2>/dev/null | grep -o '\.text\.[A-Za-z0-9_]*' | sort -u)
        [[ -n "$entries" ]] || { echo "$rung [$defs]: no .text sections at $rev"; status=1; continue; }
        after_entries=$(readelf -SW "$tmp/a$n.cubin" 2>/dev/null | grep -o '\.text\.[A-Za-z0-9_]*' | sort -u)
        [[ "$entries" == "$after_entries" ]] || { echo "$rung [$defs]: DIFFERS (other entries)"; status=1; }
        for sec in $entries; do
            if cmp -s <(readelf -x "$sec" "$tmp/b$n.cubin" 2>&1) <(readelf -x "$sec" "$tmp/a$n.cubin" 2>&1); then
                echo "$rung [$defs] ${sec#.text.}: identical"
            else
                echo "$rung [$defs] ${sec#.text.}: DIFFERS"
                status=1
            fi
        done
    done <<<"$sets"
    [[ $alt_found == 1 ]] || { echo "$rung: no non-default combination compiles at $rev"; status=1; }
done
exit $status
