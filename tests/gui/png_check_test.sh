#!/bin/sh
# png_check_test.sh PNG_CHECK OUT_DIR: the screenshot checker says what check_png.py says: a busy
# image passes both; a blank one, one of ten colours, one of many close colours and a too-small one
# fail both, each with its reason; a file that is not a PNG fails, and bad usage exits 2.
tool=$1
here=$(cd "$(dirname "$0")" && pwd)
out=$2
rm -rf "$out" && mkdir -p "$out"
python3 - "$out" <<'PY' || exit 1
import struct, sys, zlib
def png(path, w, h, pixel):
    rows = b"".join(b"\0" + b"".join(pixel(x, y) for x in range(w)) for y in range(h))
    chunk = lambda k, b: struct.pack(">I", len(b)) + k + b + struct.pack(">I", zlib.crc32(k + b))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                           + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
out = sys.argv[1]
png(f"{out}/busy.png", 400, 300, lambda x, y: bytes([x * 5 % 256, y * 7 % 256, (x ^ y) % 256]))
png(f"{out}/blank.png", 400, 300, lambda x, y: b"\x20\x20\x20")
png(f"{out}/few.png", 400, 300, lambda x, y: bytes([(x // 40) * 20] * 3))        # 10 colours, high spread
png(f"{out}/flat.png", 400, 300, lambda x, y: bytes([100 + (x + y) % 80 // 8, 100 + x % 9, 100]))  # many, low spread
png(f"{out}/small.png", 100, 80, lambda x, y: bytes([x * 2 % 256, y * 3 % 256, (x * y) % 256]))
open(f"{out}/text.png", "w").write("not a PNG\n")
PY
failed=0
expect() {  # expect EXIT PATTERN FILE: both checkers exit EXIT and print PATTERN
    for c in "$tool 320 240" "python3 $here/check_png.py --each 320 240"; do
        msg=$($c "$3" 2>&1); rc=$?
        if [ $rc -ne "$1" ] || { [ -n "$2" ] && ! printf '%s' "$msg" | grep -q -- "$2"; }; then
            echo "FAIL: ${c%% *} on $3: exit $rc, '$msg' (expected exit $1 and '$2')"; failed=$((failed + 1))
        fi
    done
}
expect 0 "" "$out/busy.png"
expect 1 "only 1 colours: blank?" "$out/blank.png"
expect 1 "only 10 colours: blank?" "$out/few.png"
expect 1 "standard deviation 0.0" "$out/flat.png"
expect 1 "100x80 is smaller than 320x240" "$out/small.png"
expect 1 "not an image" "$out/text.png"
"$tool" 320 > /dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: bad usage did not exit 2"; failed=$((failed + 1)); }
[ $failed -eq 0 ] && echo "png_check agrees with check_png.py on 7 files"
[ $failed -eq 0 ]
