#!/bin/bash
# output_cases.sh KLADDER WORK: what the programs show of a file's strings (issue 34, "Output
# hygiene"). Terminal control sequences (OSC 52 clipboard writes, OSC 0 window titles, ESC [2J
# screen clears, a UTF-8 CSI) in ladder, rung and lesson titles, in a device profile's and a
# results file's device name, and in values that error messages quote, never reach stdout or
# stderr as control bytes, and a device name of 300,000 characters is shown cut short. In
# handout.md, raw HTML from a lesson and a results file is text, and a device name or title never
# becomes a Markdown image or link. CSV cells never begin a formula. A new handout folder gets
# the usual mode. See lib.sh for what each case asserts besides.
set -u
kladder=$(realpath "$1") work=$(realpath -m "$2")
export kladder work
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/hostile/lib.sh"
rm -rf "$work" && mkdir -p "$work/exports"
export XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config"
rec=$src/assets/recorded/h100_elementwise.json
export rec
ew=kernels/elementwise/ladder.toml
lesson=lessons/01_first_kernel/lesson.toml
# The sequences, as TOML and JSON write them (\u escapes): clipboard, window title, clear, 8-bit CSI.
controls='\u001b]52;c;cHduZWQK\u0007 \u001b]0;pwned\u0007 \u001b[2J\u001b[H \u009b2J'

# toml_put FILE OLD NEW: replaces the first line containing OLD in $root/FILE by NEW.
toml_put() { python3 - "$root/$1" "$2" "$3" <<'PY'
import sys
p, old, new = sys.argv[1:]
lines = open(p).read().split("\n")
i = next(i for i, l in enumerate(lines) if old in l)
lines[i] = new
open(p, "w").write("\n".join(lines))
PY
}

# no_controls WHAT: fails the case when the last command's stdout or stderr holds a control
# byte other than \n and \t, or a C1 control (U+0080-U+009F), or a line longer than 2,000 bytes;
# and unless stdout or stderr shows the sequences escaped ("\x1b"), as it must when WHAT was shown.
no_controls() {
    python3 - "$work/out.txt" "$work/err.txt" <<'PY' || fail "$1: a control sequence or an uncut line reached the terminal"
import re, sys
bad = False
for p in sys.argv[1:]:
    data = open(p, "rb").read()
    m = re.search(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", data)
    if m:
        print(f"    {p}: {data[max(0, m.start() - 60):m.end() + 20]!r}")
        bad = True
    longest = max((len(l) for l in data.split(b"\n")), default=0)
    if longest > 2000:
        print(f"    {p}: a line of {longest} bytes")
        bad = True
sys.exit(1 if bad else 0)
PY
    cat "$work/out.txt" "$work/err.txt" | grep -q '\\x1b' || fail "$1: not shown (no \\x1b in the output)"
}

# [SECTION] Terminal: titles, device names, quoted values
fresh_root
toml_put $ew 'title     = "Elementwise: vector add and GeLU"' "title = \"Elementwise $controls\""
toml_put $ew 'title     = "Vector add"' "title = \"Vector add $controls\""
toml_put $lesson 'title   = "GPU anatomy and the first kernel"' "title = \"GPU anatomy $controls\""
expect output.list_titles 0 "" "$kladder" list
no_controls "ladder, rung and lesson titles"

python3 - "$src/assets/devices/sm_90_h100.json" "$work/profile.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["name"] = "\x1b]0;pwned\x07H100 \x1b]52;c;cHduZWQK\x07\x1b[2J\u009b" + "G" * 300000
json.dump(d, open(sys.argv[2], "w"))
PY
expect output.plan_device_name 0 "" "$kladder" run elementwise --plan-on "$work/profile.json"
no_controls "a device profile's name"

fresh_root
toml_put $lesson 'rung     = "vector_add"' "rung = \"vector_add$controls\\nsecond line\""
expect output.error_quotes_lesson_value 2 "step\\[2\\]\\.rung: .*vector_add\\\\x1b\\]52" "$kladder" list lessons
no_controls "a lesson value quoted by an error"
expect output.check_lessons_quotes_value 2 "" "$kladder" check-lessons --recorded "$src/assets/recorded"
no_controls "check-lessons' offence quoting a lesson value"

fresh_root
python3 - "$rec" "$work/ladder_name.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for run in r["runs"]:
    run["ladder"] = "elementwise\x1b]52;c;cHduZWQK\x07\x1b[2J"
json.dump(r, open(sys.argv[2], "w"))
PY
expect output.error_quotes_results_value 2 "elementwise\\\\x1b\\]52" \
    "$kladder" export --results "$work/ladder_name.json" --plot bars -o "$work/exports/fig.svg"
no_controls "a results value quoted by an error"

# [SECTION] handout.md: raw HTML and Markdown from the lesson and the results file stay text
fresh_root
les=$root/lessons/67_output
mkdir -p "$les"
cat > "$les/lesson.toml" <<'TOML'
[lesson]
id = "output"
number = 67
title = "![t](http://evil.example/t.png) <script>alert(1)</script>"
summary = "<img src=x onerror=alert(2)> summary"

[[step]]
title = "[s](http://evil.example/s) <svg onload=alert(3)>"
text = "step.md"
ladder = "elementwise"
rung = "vector_add"
plot = "bars"
question = "<b onmouseover=alert(4)>Q</b>"
answer = "<iframe src=x></iframe> A"
TOML
cat > "$les/step.md" <<'MD'
Prose <script>alert(5)</script> and *Markdown* that stays: ![ok](https://example.com/ok.png)

```cpp
static_cast<float>(x);  // code keeps its < >
```
MD
python3 - "$rec" "$work/markup.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["device"]["name"] = "![x](http://evil.example/x.png) <script>alert(6)</script> \x1b]52;c;cHduZWQK\x07"
r["tool"] = "[t](http://evil.example/t) <b>kladder</b>"
json.dump(r, open(sys.argv[2], "w"))
PY
expect output.handout_markdown 0 "" "$kladder" export-lesson output --results "$work/markup.json" -o "$work/exports/h"
python3 - "$work/exports/h/handout.md" <<'PY' || fail "live HTML or Markdown from a file in handout.md"
import re, sys
md = open(sys.argv[1], encoding="utf-8").read()
problems = [live for live in ("<script", "<img", "<svg", "<iframe", "<b ", "<b>", "](http://evil") if live in md]
if re.search(r"[\x00-\x08\x0b-\x1f\x7f]", md): problems.append("a control character")
for needed in ("&lt;script>alert(5)", "*Markdown*", "![ok](https://example.com/ok.png)", "static_cast<float>(x)",
               "alert\\(6\\)", "\\!\\[x\\]\\(http\\://evil.example/x.png\\)"):
    if needed not in md: problems.append(f"missing {needed!r}")
for p in problems: print("    handout.md:", p)
sys.exit(1 if problems else 0)
PY
python3 "$src/tests/hostile/check_html.py" "$work/exports/h/handout.html" || fail "live markup in handout.html"
grep -q 'src="http://evil' "$work/exports/h/handout.html" && fail "a remote image from the device name in handout.html"

# [SECTION] CSV: no cell begins a formula; numbers stay numbers
fresh_root
toml_put $ew 'title     = "Elementwise: vector add and GeLU"' 'title = "=HYPERLINK(\"http://evil.example/\",\"x\")"'
toml_put $ew 'title     = "Vector add"' "title = \"@SUM(1+1)*cmd|' /C calc'!A0\""
expect output.csv_formulas 0 "" "$kladder" export --results "$rec" --plot bars --format csv -o "$work/exports/bars.csv"
python3 - "$work/exports/bars.csv" <<'PY' || fail "a CSV cell begins a formula"
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
number = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
bad = [c for r in rows for c in r if c[:1] in ("=", "+", "-", "@", "\t", "\r") and not number.match(c)]
for c in bad: print("    formula cell:", repr(c))
shown = [c for r in rows for c in r if c.startswith("'=HYPERLINK") or c.startswith("'@SUM")]
if not shown: print("    the titles are missing from the CSV"); sys.exit(1)
sys.exit(1 if bad else 0)
PY

# [SECTION] A new handout folder has the usual mode (0777 minus the umask), not mkdtemp's 0700
fresh_root
mode_check() { umask 022 && "$kladder" export-lesson first_kernel --results "$rec" -o "$work/exports/new"; }
export -f mode_check
expect output.handout_folder_mode 0 "" mode_check
got=$(stat -c %a "$work/exports/new" 2>/dev/null)
[ "$got" = 755 ] || fail "the new handout folder has mode $got, not 755 (umask 022)"

finish
