#!/usr/bin/env bash
# Copies the built, stripped programs that the GPU machine runs into .carry/ (git-ignored),
# small enough to travel with the device tool's `carry`. They find kernels/ and lessons/ by
# walking up from their own folder.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .carry
for f in build/app/cli/kladder-core build/tests/test_gpu build/tests/test_engine build/tests/gui/test_gui_runner_gpu; do
  [ -f "$f" ] && strip -o ".carry/$(basename "$f" | sed s/-core//)" "$f"
done
[ -f ../shared/tools/peers.py ] && cp ../shared/tools/peers.py .carry/
du -sh .carry
