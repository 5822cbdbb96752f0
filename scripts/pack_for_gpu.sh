#!/usr/bin/env bash
# Copies the built, stripped programs that the GPU machine runs into .carry/ (git-ignored),
# small enough to travel with the device tool's `carry`. They find kernels/ and lessons/ by
# walking up from their own folder.
#   scripts/pack_for_gpu.sh          the CLI runner and the GPU test programs
#   scripts/pack_for_gpu.sh --gui    also the workbook for headless runs (scripts/plans/gui.plan):
#                                    kernel-ladder, the shared libraries it needs that are not
#                                    the C/C++ runtime, CUDA or OpenGL/EGL (.carry/lib), and the
#                                    DejaVu fonts (.carry/fonts). The GL/EGL loaders travel
#                                    separately as Debian packages in .gl/ (docs/gui.md).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .carry
for f in build/app/cli/kladder-core build/tests/test_gpu build/tests/test_gpu_live build/tests/test_gpu_mlp \
         build/tests/test_gpu_launch build/tests/test_gpu_torch build/tests/test_engine build/tests/gui/test_gui_runner_gpu; do
  [ -f "$f" ] && strip -o ".carry/$(basename "$f" | sed s/-core//)" "$f"
done
[ -f ../shared/tools/peers.py ] && cp ../shared/tools/peers.py .carry/
if [ "${1:-}" = "--gui" ]; then
  gui=build/app/gui/kernel-ladder
  [ -f "$gui" ] || { echo "pack_for_gpu: $gui is not built (cmake --build build --target kernel-ladder)" >&2; exit 2; }
  strip -o .carry/kernel-ladder "$gui"
  rm -rf .carry/lib && mkdir -p .carry/lib .carry/fonts
  ldd "$gui" | awk '$3 ~ /^\// {print $3}' |
    grep -vE '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so|/usr/local/cuda|lib(GLdispatch|OpenGL|EGL|GLX|GL)\.so' |
    while read -r lib; do cp -L "$lib" .carry/lib/; done
  cp /usr/share/fonts/truetype/dejavu/DejaVuSans{,-Bold,-Oblique,-BoldOblique,Mono}.ttf .carry/fonts/
  [ -n "$(ls .gl/*.deb 2>/dev/null)" ] || echo "pack_for_gpu: no .gl/*.deb: fetch the GL loaders first (docs/gui.md)" >&2
fi
du -sh .carry
