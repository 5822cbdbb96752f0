#!/bin/bash
# handout_markup.sh KLADDER WORK: a lesson and a results file full of markup (script tags, event
# attributes, javascript: links, raw HTML blocks, entity-obfuscated schemes) exported with
# `kladder export-lesson`; check_html.py parses handout.html and fails on any live tag outside
# the handout's own vocabulary, any on* attribute, or any link or image URL with a scheme other
# than http, https or mailto.
set -u
kladder=$(realpath "$1") work=$(realpath -m "$2")
export kladder work
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/hostile/lib.sh"
rm -rf "$work" && mkdir -p "$work/exports"
export XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config"
fresh_root
les=$root/lessons/66_markup
mkdir -p "$les"
cat > "$les/lesson.toml" <<'TOML'
[lesson]
id = "markup"
number = 66
title = "<script>alert('title')</script><img src=x onerror=alert(1)>"
summary = "<iframe src=\"javascript:alert(2)\"></iframe> [sum](javascript:alert(3))"

[[step]]
title = "<svg onload=alert(4)>"
text = "step.md"
question = "<b onmouseover=alert(5)>Q</b> [q](JaVaScRiPt:alert(6))"
answer = "<a href=\"javascript:alert(7)\">A</a> <javascript:alert(8)>"
look_at = "<style>body{display:none}</style>"

[[step]]
title = "bars"
text = "step.md"
ladder = "elementwise"
rung = "vector_add"
plot = "bars"
TOML
cat > "$les/step.md" <<'MD'
# Heading <script>alert(9)</script>

<div onclick="alert(10)">raw block</div>

<script>
alert(11)
</script>

Inline <img src="x" onerror="alert(12)"> and <a href="javascript:alert(13)">link</a>.

[plain](javascript:alert(14)) [tab](java	script:alert(15)) [entity](jav&#x61;script:alert(16))
[upper](JAVASCRIPT:alert(17)) [data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxOCk8L3NjcmlwdD4=)
[vb](vbscript:msgbox(19)) [ok](https://example.com/) [rel](figure.png) [mail](mailto:a@b.c)
![img](javascript:alert(20)) ![img2](x" onerror="alert(21))
<javascript:alert(22)> www.example.com https://example.com/x?a=1&b=2

`<script>alert(23)</script>` in code

```html
<script>alert(24)</script>
```
MD
python3 - "$src/assets/recorded/h100_elementwise.json" "$work/markup.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["device"]["name"] = "<img src=x onerror=alert(25)> [d](javascript:alert(26))"
r["tool"] = "<script>alert(27)</script>"
r["created"] = "<b onmouseover=alert(28)>2026</b>"
for run in r["runs"]:
    run["title"] = "<script>alert(29)</script>" + run.get("title", "")
json.dump(r, open(sys.argv[2], "w"))
PY
expect handout.export 0 "" "$kladder" export-lesson markup --results "$work/markup.json" -o "$work/exports/markup"
python3 "$src/tests/hostile/check_html.py" "$work/exports/markup/handout.html" || fail "live markup in handout.html"
grep -q "alert(9)" "$work/exports/markup/handout.html" || fail "the escaped text is missing: was the step dropped?"
finish
