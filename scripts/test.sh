#!/usr/bin/env bash
# The test command: install what is missing, build, and run the whole test suite. Tests that
# need a GPU (CTest label `gpu`) run only where a GPU is present; elsewhere they are listed as
# skipped. Exit status is CTest's.
# Environment (as scripts/setup.sh): KL_BUILD_DIR, KL_CMAKE_ARGS; KL_CTEST_EXCLUDE, a regex of
# further labels to leave out (CI's sanitizer pass leaves out `no_sanitizer`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd "${KL_BUILD_DIR:-build}"
extra=${KL_CTEST_EXCLUDE:-}
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then
    ctest --output-on-failure -j 2 ${extra:+-LE "$extra"}
else
    echo "test: no GPU on this machine: skipping the tests labelled gpu:"
    ctest -N -L gpu | grep -E '^\s*Test\s+#' | sed 's/^/  skipped: /'
    ctest --output-on-failure -j 2 -LE "gpu${extra:+|$extra}"
fi
