#!/usr/bin/env bash
# Installs what Kernel Ladder needs on Debian 12 (apt only; the CUDA 13 toolkit is expected in
# /usr/local/cuda) and configures + builds into build/. Safe to run again: it installs only
# what is missing and rebuilds incrementally.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config libimgui-dev libglfw3-dev libegl-dev libcairo2-dev libmd4c-dev libmd4c-html0-dev
          nlohmann-json3-dev libcli11-dev libtomlplusplus-dev libgtest-dev xvfb xauth fonts-dejavu-core poppler-utils)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] && [ ! -e /usr/local/cuda/include/nvrtc.h ]; then
  echo "setup: the CUDA 13 toolkit is missing from /usr/local/cuda (install it from NVIDIA's Debian 12 repository)" >&2
  exit 2
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT=/usr/local/cuda > build-configure.log 2>&1 || {
  cat build-configure.log >&2; exit 2; }
rm -f build-configure.log
cmake --build build -j "$(nproc)"
