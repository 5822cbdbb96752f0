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
#   KL_PACK_TESTS="test_gpu test_gpu_torch" scripts/pack_for_gpu.sh   only those test programs
# The programs travel as one xz archive, .carry/carry.tar.xz, which scripts/gpu_batch.sh unpacks
# first: the tracked tree and the carry share the device tool's 64 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .carry
# A stale kladder-core travels silently (building only --target kladder leaves it old): refuse it.
# (ninja's dry run always re-checks the globbed folders; a compile or a link is what counts.)
if [ -f build/build.ninja ] && ninja -C build -n kladder-core 2>/dev/null | grep -qE "(Building|Linking) "; then
  echo "pack_for_gpu: build/app/cli/kladder-core is out of date: cmake --build build --target kladder-core" >&2
  exit 2
fi
for f in build/app/cli/kladder-core build/tests/test_gpu build/tests/test_gpu_live build/tests/test_gpu_mlp \
         build/tests/test_gpu_launch build/tests/test_gpu_torch build/tests/test_engine build/tests/gui/test_gui_runner_gpu; do
  [ -f "$f" ] && strip -o ".carry/$(basename "$f" | sed s/-core//)" "$f"
done
[ -f ../shared/tools/peers.py ] && cp ../shared/tools/peers.py .carry/
if [ -n "${KL_PACK_TESTS:-}" ]; then
  for t in .carry/test_*; do
    case " $KL_PACK_TESTS " in *" $(basename "$t") "*) ;; *) rm -f "$t" ;; esac
  done
fi
if [ "${1:-}" = "--gui" ]; then
  gui=build/app/gui/kernel-ladder
  [ -f "$gui" ] || { echo "pack_for_gpu: $gui is not built (cmake --build build --target kernel-ladder)" >&2; exit 2; }
  strip -o .carry/kernel-ladder "$gui"
  rm -rf .carry/lib && mkdir -p .carry/lib .carry/fonts
  ldd "$gui" | awk '$3 ~ /^\// {print $3}' |
    grep -vE '/(libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so|/usr/local/cuda|lib(GLdispatch|OpenGL|EGL|GLX|GL)\.so' |
    # Libraries every Linux has, in a newer version there: Debian's older copy first on the path
    # kept the in-process Python of the PyTorch peers from loading (libexpat's missing symbols).
    grep -vE '/lib(expat|z|bsd|md)\.so' |
    while read -r lib; do cp -L "$lib" .carry/lib/; done
  cp /usr/share/fonts/truetype/dejavu/DejaVuSans{,-Bold,-Oblique,-BoldOblique,Mono}.ttf .carry/fonts/
  [ -n "$(ls .gl/*.deb 2>/dev/null)" ] || echo "pack_for_gpu: no .gl/*.deb: fetch the GL loaders first (docs/gui.md)" >&2
fi
# The window's libraries and fonts (--gui) travel in the archive too: loose, they are 9 MB.
programs=$(cd .carry && ls -d kladder test_* peers.py kernel-ladder lib fonts 2>/dev/null || true)
tar -cJf .carry/carry.tar.xz -C .carry $programs
(cd .carry && rm -rf $programs)
du -sh .carry
