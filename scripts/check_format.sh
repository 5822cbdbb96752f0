#!/usr/bin/env bash
# Fails (exit 1) when any C++/CUDA file of the tree differs from .clang-format's style, naming
# each such file. CTest runs it as lint.clang_format. To fix: clang-format -i FILE...
set -uo pipefail
cd "$(dirname "$0")/.."
command -v clang-format > /dev/null || { echo "check_format: clang-format is not installed (scripts/setup.sh installs it)" >&2; exit 2; }
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.h' '*.cu' '*.cuh')
else
    mapfile -t files < <(find app kernels tests -name '*.cpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh')
fi
# One clang-format for all files (a process per file takes half a minute on a loaded machine).
out=$(clang-format --dry-run --Werror "${files[@]}" 2>&1)
rc=$?
mapfile -t bad < <(printf '%s\n' "$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ "$rc" -ne 0 ] && [ ${#bad[@]} -eq 0 ]; then
    echo "check_format: clang-format failed (exit $rc): $(printf '%s\n' "$out" | head -1)" >&2
    exit 1
fi
if [ ${#bad[@]} -gt 0 ]; then
    echo "check_format: ${#bad[@]} of ${#files[@]} files are not clang-formatted (clang-format -i FILE): ${bad[*]}" >&2
    exit 1
fi
echo "check_format: ${#files[@]} files formatted"
