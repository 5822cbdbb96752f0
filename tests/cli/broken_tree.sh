#!/bin/sh
# A manifest with an unknown field: `kladder list` refuses with one line naming file, line, field.
set -u
kladder=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/kernels/bad" "$root/lessons"
cat > "$root/kernels/bad/ladder.toml" <<'TOML'
[ladder]
id = "bad"
title = "Bad"
operation = "gelu"
sizes = { n = 10 }
speed = "fast"
TOML
out=$(KLADDER_ROOT="$root" "$kladder" list 2>&1 >/dev/null); code=$?
echo "$out"
[ "$code" -eq 2 ] || { echo "expected exit 2, got $code"; exit 1; }
echo "$out" | grep -q "kernels/bad/ladder.toml:6: ladder.speed: unknown field" || { echo "message lacks file:line: field"; exit 1; }
