#!/bin/sh
# A calibration measured under compute-sanitizer is not cached (label gpu): under the tool every
# kernel runs many times slower, and a cached figure would give every later run on the device a
# roof a tenth of the real one. Then a calibration without the tool is cached, and a run under the
# tool reads that cache instead of measuring. Skips (exit 0, a line) where compute-sanitizer is absent.
# Usage: calibration_tool_gpu.sh KLADDER
set -u
kladder=$1
command -v compute-sanitizer > /dev/null 2>&1 || { echo "SKIP: no compute-sanitizer"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
fail() { echo "FAIL: $*"; exit 1; }
cached() { ls "$tmp"/cache/kernel-ladder/calibration/*.v5.json 2> /dev/null | head -1; }

compute-sanitizer --tool memcheck --error-exitcode 9 "$kladder" calibrate --force > "$tmp/under" 2>&1 \
    || { cat "$tmp/under"; fail "calibrate under compute-sanitizer failed"; }
[ -z "$(cached)" ] || fail "a calibration measured under compute-sanitizer was cached: $(cached)"
"$kladder" calibrate > "$tmp/plain" 2>&1 || { cat "$tmp/plain"; fail "calibrate failed"; }
file=$(cached); [ -n "$file" ] || fail "a calibration without the tool was not cached"
before=$(cat "$file")
compute-sanitizer --tool memcheck "$kladder" calibrate > "$tmp/reads" 2>&1 || fail "calibrate (cached) under the tool failed"
[ "$(cat "$file")" = "$before" ] || fail "the cached calibration changed under the tool"
grep -q "$(grep -o '"measured_at": *"[^"]*"' "$file" | sed 's/.*: *"//; s/"$//')" "$tmp/reads" \
    || fail "under the tool, calibrate did not show the cached figures"
echo "calibration under a tool: not cached; cached one read under the tool"
