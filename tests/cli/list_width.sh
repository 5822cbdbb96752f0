#!/bin/sh
# `kladder list` (and `kladder list rungs --lab`) fits a 120-column terminal: fails naming every
# longer line.
# Usage: list_width.sh KLADDER
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
"$1" list > "$out" || { echo "list_width: kladder list failed" >&2; exit 1; }
"$1" list rungs --lab >> "$out" || { echo "list_width: kladder list rungs --lab failed" >&2; exit 1; }
awk 'length > 120 { printf "list_width: line %d is %d columns: %s\n", NR, length, substr($0, 1, 60); bad = 1 } END { exit bad }' "$out"
