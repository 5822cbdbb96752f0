#!/bin/sh
# The window does no GPU work itself (runs go to `kladder serve`, PTX to `kladder ptx`), so it
# links no CUDA library: not the runtime, NVRTC or cuBLAS, directly or through another library.
# Usage: window_links_no_cuda.sh KERNEL_LADDER
p=$1
needed=$(LC_ALL=C readelf -d "$p" 2> /dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || { echo "window_links_no_cuda: cannot read the dynamic section of $p" >&2; exit 1; }
found=$(LC_ALL=C ldd "$p" 2> /dev/null | grep -oE 'lib(cudart|nvrtc|nvrtc-builtins|cublas|cublasLt|cuda|cupti)\.so[.0-9]*' | sort -u)
if [ -n "$found" ]; then
    echo "window_links_no_cuda: $p loads $(echo $found | tr '\n' ' ')" >&2
    exit 1
fi
echo "window_links_no_cuda: $p loads no CUDA library"
