#!/usr/bin/env bash
# Fails (exit 1) when a C++ file of app/ is over 500 lines, a header and the source of the same
# name together over 800, or one of its functions over 100 lines
# (docs/ARCHITECTURE.md, "Engineering limits"), naming each. Functions are found by Universal
# Ctags (their first and last line); lambdas count toward the function that holds them. CTest runs
# it as lint.sizes.
set -uo pipefail
cd "$(dirname "$0")/.."
command -v ctags > /dev/null && ctags --version 2>/dev/null | grep -q "Universal Ctags" ||
    { echo "check_sizes: Universal Ctags is not installed (scripts/setup.sh installs universal-ctags)" >&2; exit 2; }
mapfile -t files < <(find app -name '*.cpp' -o -name '*.h' | sort)
bad=0
for f in "${files[@]}"; do
    lines=$(wc -l < "$f")
    if [ "$lines" -gt 500 ]; then echo "check_sizes: $f has $lines lines (at most 500)" >&2; bad=$((bad + 1)); fi
done
# A module (x.h with x.cpp) read together stays under 800 lines.
for f in "${files[@]}"; do
    [[ $f == *.h && -f ${f%.h}.cpp ]] || continue
    pair=$(cat "$f" "${f%.h}.cpp" | wc -l)
    if [ "$pair" -gt 800 ]; then echo "check_sizes: $f and ${f%.h}.cpp have $pair lines together (at most 800)" >&2; bad=$((bad + 1)); fi
done
# One ctags for all files: name, file, first line, last line of every function definition.
while IFS=$'\t' read -r name file start end; do
    if [ $((end - start + 1)) -gt 100 ]; then
        echo "check_sizes: $file: $name is $((end - start + 1)) lines (at most 100), from line $start" >&2
        bad=$((bad + 1))
    fi
done < <(ctags --c++-kinds=f --fields=+ne --extras=-q -f - "${files[@]}" 2>/dev/null |
         awk -F'\t' '$0 !~ /^!/ && $2 ~ /\.(cpp|h)$/ { s = ""; e = "";
             for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) s = substr($i, 6); if ($i ~ /^end:/) e = substr($i, 5) }
             if (s != "" && e != "" && $1 !~ /^__anon/) print $1 "\t" $2 "\t" s "\t" e }')
if [ "$bad" -gt 0 ]; then echo "check_sizes: $bad over the limits" >&2; exit 1; fi
echo "check_sizes: ${#files[@]} files, none over 500 lines, no .h + .cpp over 800, no function over 100"
