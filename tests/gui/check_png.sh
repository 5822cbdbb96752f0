#!/bin/sh
# check_png.sh FILE [MIN_WIDTH MIN_HEIGHT]: fails unless FILE is a PNG that is not blank: at least
# 64 distinct colours and a standard deviation of the pixel values above 0.05 (ImageMagick).
f=$1
[ -s "$f" ] || { echo "FAIL: $f: missing or empty"; exit 1; }
# The same test in C++ where the tests name it (png_check.cpp, KL_PNG_CHECK); without it and
# without ImageMagick (the GPU machine), in Python's standard library.
[ -x "${KL_PNG_CHECK:-}" ] && exec "$KL_PNG_CHECK" "${2:-320}" "${3:-240}" "$f"
command -v identify > /dev/null 2>&1 || exec python3 "$(dirname "$0")/check_png.py" "$f" "${2:-320}" "${3:-240}"
info=$(identify -format '%m %w %h %k' "$f" 2>&1) || { echo "FAIL: $f: not an image ($info)"; exit 1; }
set -- $info "${2:-320}" "${3:-240}"
[ "$1" = PNG ] || { echo "FAIL: $f: format $1, not PNG"; exit 1; }
[ "$2" -ge "$5" ] && [ "$3" -ge "$6" ] || { echo "FAIL: $f: $2x$3 is smaller than $5x$6"; exit 1; }
[ "$4" -ge 64 ] || { echo "FAIL: $f: only $4 colours: blank?"; exit 1; }
sd=$(convert "$f" -format '%[fx:standard_deviation]' info:)
awk -v sd="$sd" 'BEGIN { exit !(sd > 0.05) }' || { echo "FAIL: $f: standard deviation $sd: blank?"; exit 1; }
exit 0
