#!/usr/bin/env bash
# The main command: install what is missing, build, and start the workbook (the window when a
# display is available, else the command-line program on the first ladder). Without a GPU the
# run ends with exit 3 and says what can be done here instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ -x build/app/gui/kernel-ladder ] && [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec build/app/gui/kernel-ladder --lesson first_kernel "$@"
fi
echo "(no display: running the first ladder with the command-line program)"
build/app/cli/kladder list ladders
rc=0
build/app/cli/kladder run elementwise "$@" || rc=$?
if [ "$rc" -eq 3 ]; then
    cat <<'NEXT'

Next steps without a GPU here (the lessons and the results recorded on real GPUs still work):
  build/app/gui/kernel-ladder --lesson first_kernel   # on a desktop: lessons with recorded results
  build/app/cli/kladder export --results assets/recorded/h100_elementwise.json --plot bars -o bars.pdf
  build/app/cli/kladder export-lesson fusion --results assets/recorded/h100_elementwise.json -o handout/
  build/app/cli/kladder check-kernels                 # compiles every rung with NVRTC (no GPU needed)
With an NVIDIA GPU and its driver, scripts/run.sh runs every rung live.
NEXT
fi
exit "$rc"
