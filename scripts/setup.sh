#!/usr/bin/env bash
# Installs what Kernel Ladder needs on Debian 12 and builds it into build/. Safe to run again:
# it installs only what is missing and rebuilds incrementally.
#
# Order matters: the CUDA toolkit is checked first, so a machine without it changes nothing.
# Packages come from Debian (apt) only; as root they are installed directly, as a user through
# sudo; a user without sudo gets one line naming the packages and the command to run as root.
#
# Environment: CUDA_HOME (default /usr/local/cuda), KL_BUILD_DIR (default build),
# KL_CMAKE_ARGS (extra CMake arguments, e.g. -DKL_SANITIZE=ON).
set -euo pipefail
cd "$(dirname "$0")/.."

cuda=${CUDA_HOME:-/usr/local/cuda}
build=${KL_BUILD_DIR:-build}
cuda_min_major=13 # keep in step with find_package(CUDAToolkit ...) in CMakeLists.txt and README.md

# 1. The CUDA toolkit (not a Debian package: NVIDIA's repository or runfile; README.md says how).
need=(include/cuda_runtime.h include/nvrtc.h include/cublas_v2.h lib64/libcudart.so lib64/libnvrtc.so lib64/libcublas.so)
for f in "${need[@]}"; do
    if [ ! -e "$cuda/$f" ]; then
        echo "setup: no CUDA ${cuda_min_major} toolkit in $cuda ($f is missing): install NVIDIA's cuda-toolkit-${cuda_min_major}-0 for Debian 12 (README.md, Prerequisites), or set CUDA_HOME to where it is" >&2
        exit 2
    fi
done
# CUDART_VERSION is major * 1000 + minor * 10 (13000 for 13.0).
version=$(sed -n 's/^#define CUDART_VERSION *\([0-9][0-9]*\).*/\1/p' "$cuda/include/cuda_runtime_api.h" 2>/dev/null | head -1)
version=$((${version:-0} / 1000))
if [ "$version" -lt "$cuda_min_major" ]; then
    echo "setup: the CUDA toolkit in $cuda is version $version; Kernel Ladder needs ${cuda_min_major} or newer (README.md, Prerequisites)" >&2
    exit 2
fi

# 2. Debian packages.
packages=(cmake ninja-build g++ pkg-config libimgui-dev libglfw3-dev libegl-dev libcairo2-dev libmd4c-dev libmd4c-html0-dev
    nlohmann-json3-dev libcli11-dev libtomlplusplus-dev libgtest-dev xvfb xauth fonts-dejavu-core poppler-utils
    clang-format universal-ctags python3 libgl1-mesa-dri libxtst6)
# libxtst6 lets the window's input tests (gui.key_taps, gui.idle_redraw) press keys through XTEST;
# without it they are skipped, not run.
# libgl1-mesa-dri is Mesa's llvmpipe, the GL that the window's tests draw with under Xvfb. Debian 12
# pulls it in through libglfw3's GL dependencies today; it is named so that stays true.
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    install=(apt-get install -y -q --no-install-recommends "${missing[@]}")
    if [ "$(id -u)" -eq 0 ]; then
        sudo=()
    elif command -v sudo > /dev/null 2>&1; then
        sudo=(sudo)
    else
        echo "setup: ${#missing[@]} Debian packages are missing and this user cannot install them (not root, no sudo); as root run: apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
        exit 2
    fi
    echo "setup: installing ${#missing[@]} Debian packages: ${missing[*]}"
    mkdir -p "$build"
    apt_log="$build/apt.log"
    if ! { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive "${install[@]}"; } > "$apt_log" 2>&1; then
        tail -20 "$apt_log" >&2
        echo "setup: apt-get could not install the packages (full log in $apt_log)" >&2
        exit 2
    fi
    # What it cost: packages, download and disk (apt's own summary lines).
    grep -E '^[0-9]+ upgraded|^Need to get|^After this operation' "$apt_log" | sed 's/^/setup: /'
fi

# 3. Configure (once; again only when CMake asks for it) and build.
log="$build/configure.log"
mkdir -p "$build"
if [ ! -f "$build/build.ninja" ]; then
    # shellcheck disable=SC2086 # KL_CMAKE_ARGS is a list of arguments
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT="$cuda" -DKL_UNITY=ON ${KL_CMAKE_ARGS:-} > "$log" 2>&1 || {
        cat "$log" >&2
        echo "setup: CMake could not configure the build (full log above and in $log)" >&2
        exit 2
    }
fi
started=$(date +%s)
cmake --build "$build" -j "$(nproc)"
echo "setup: built in $(($(date +%s) - started)) s ($build/)"
