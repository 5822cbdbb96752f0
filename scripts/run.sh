#!/usr/bin/env bash
# The main command: install what is missing, build, and start the workbook (the GUI when it
# was built and a display is available, else the CLI on the first ladder).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ -x build/app/gui/kernel-ladder ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec build/app/gui/kernel-ladder --lesson first_kernel "$@"
fi
echo "(no GUI display: running the first ladder with the CLI)"
build/app/cli/kladder list ladders
exec build/app/cli/kladder run elementwise "$@"
