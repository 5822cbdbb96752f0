#!/bin/sh
# Every program must start on a machine without an NVIDIA driver: none may need libcuda.so.1
# at load time, directly or through a library it links (CUPTI needs it, so CUPTI is dlopen'ed).
# Usage: no_libcuda.sh PROGRAM...
status=0
for p in "$@"; do
    needed=$(LC_ALL=C readelf -d "$p" 2> /dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    [ -n "$needed" ] || { echo "no_libcuda: cannot read the dynamic section of $p" >&2; status=1; continue; }
    for lib in $needed; do
        case $lib in
        libcuda.so* | libcupti.so* | libnvidia-*)
            echo "no_libcuda: $p needs $lib at load time (it would not start without the NVIDIA driver)" >&2
            status=1
            ;;
        esac
    done
    # What the dynamic loader resolves, recursively: a linked library may bring libcuda in.
    if LC_ALL=C ldd "$p" 2> /dev/null | grep -E 'libcuda\.so|libcupti\.so' > /dev/null; then
        echo "no_libcuda: $p loads $(LC_ALL=C ldd "$p" | grep -oE 'lib(cuda|cupti)\.so[.0-9]*' | head -1) through a library it links" >&2
        status=1
    fi
done
[ "$status" -eq 0 ] && echo "no_libcuda: $# programs start without libcuda"
exit $status
