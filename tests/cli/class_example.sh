#!/bin/sh
# A class of 20 (issue 41's acceptance, docs/class-mode.md "A class of 20"): SYNTHETIC signed
# submissions made from recorded runs of an H100 and an H200 and made up on the A100 profile, with
# two made-up cheats (tests/class/make_class_folder.cpp), merged by `kladder class merge`: 20
# merged, 18 ranked over three devices, the cheats not ranked with their reasons, and the handout
# written as Markdown, HTML and PDF pages (class.pdf, each page read back by pdftoppm when present).
# Usage: class_example.sh KLADDER MAKE_CLASS_FOLDER SOURCE_DIR
set -u
kladder=$1; make=$2; src=$3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export KLADDER_ROOT="$src" XDG_DATA_HOME="$tmp/data" XDG_CACHE_HOME="$tmp/cache"
fail() { echo "FAIL: $*"; exit 1; }

"$make" recorded "$tmp/subs" "$tmp/class.key" || fail "make_class_folder recorded"
[ "$(ls "$tmp/subs" | grep -c '\.json$')" -eq 20 ] || fail "expected 20 submission files"
[ "$(grep -l 'SYNTHETIC class example' "$tmp"/subs/*.json | wc -l)" -eq 20 ] || fail "a file does not say it is synthetic"
"$kladder" class merge "$tmp/subs" -o "$tmp/class" --key "$tmp/class.key" > "$tmp/out" 2> "$tmp/err"
code=$?; cat "$tmp/out" "$tmp/err"
[ $code -eq 0 ] || fail "merge: expected exit 0, got $code"
grep -q "^20 submissions merged (18 accepted, 2 refused or flagged), 0 files not merged" "$tmp/out" || fail "merge counts"
for device in "NVIDIA H100 80GB HBM3" "NVIDIA H200" "NVIDIA A100-SXM4-40GB"; do
  grep -q "^\*\*$device\*\*, by time" "$tmp/class/class.md" || fail "class.md: no leaderboard of $device"
done
grep -q "refused by check 'poisoned output'" "$tmp/class/class.md" || fail "class.md: the cached cheat not refused"
grep -qF 'flagged \(source hash\)' "$tmp/class/class.md" || fail "class.md: the edited source not flagged"
python3 - "$tmp/class/class.pdf" <<'PY' || exit 1
import re, sys
data = open(sys.argv[1], "rb").read()
pages = len(re.findall(rb"/Type\s*/Page[^s]", data))
print(f"class.pdf: {len(data)} bytes, {pages} pages")
if not data.startswith(b"%PDF") or pages < 3:
    sys.exit("FAIL: class.pdf is not a PDF of at least three pages")
PY
if command -v pdftoppm > /dev/null; then
  pdftoppm -r 30 -png "$tmp/class/class.pdf" "$tmp/page" || fail "pdftoppm could not read class.pdf"
  [ "$(ls "$tmp" | grep -c '^page.*\.png$')" -ge 3 ] || fail "pdftoppm rendered fewer than three pages"
fi
echo "class_example.sh: all checks passed"
