#!/bin/sh
# laptop_layout.sh GUI OUT_DIR: a laptop's window (issue 38). At 1280 x 720 and 1366 x 768 the
# step text gets at least 40% of the window's height by default, with the recorded-results
# banner folded to one line; the banner unfolds; the splitter between the step text and the
# controls drags; and both are remembered: a second start with the same settings folder opens
# unfolded, at the dragged height.
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2"
cat > "$out/script.txt" <<SCRIPT
wait 5
report $out/before.json
drag splitter:controls 0 -60
wait 3
click button:banner_fold
wait 5
shot $out/after.png
SCRIPT
run_gui "$gui" --size 1280x720 --lesson first_kernel --step 4 --script "$out/script.txt" --max-seconds 120 \
    --report "$out/after.json"
# Again with the settings the first run saved: the fold and the splitter kept.
run_gui "$gui" --size 1280x720 --lesson first_kernel --step 4 --max-seconds 5 --report "$out/again.json"
# The other laptop size, fresh settings.
export XDG_CONFIG_HOME="$out/config_1366"
run_gui "$gui" --size 1366x768 --lesson first_kernel --step 4 --max-seconds 5 --report "$out/1366.json"
python3 - "$out" <<'PY' || exit 1
import json, sys
d = sys.argv[1]
before, after, again, other = (json.load(open(f"{d}/{n}.json")) for n in ("before", "after", "again", "1366"))
share = lambda r: r["layout"]["step_text_h"] / r["layout"]["window_h"]
lines = lambda r: r["banner_lines"]
checks = [
    (not after["script"]["errors"] and after["script"]["finished"], f"script: {after['script']['errors']}"),
    (share(before) >= 0.4, f"1280x720: the step text has {share(before):.0%} of the height, expected at least 40%"),
    (share(other) >= 0.4, f"1366x768: the step text has {share(other):.0%} of the height, expected at least 40%"),
    (before["layout"]["banner_collapsed"] and not after["layout"]["banner_collapsed"], "the banner did not unfold"),
    (lines(after) > lines(before) + 0.3, f"banner: {lines(before):.2f} lines folded, {lines(after):.2f} unfolded"),
    (abs(after["layout"]["controls_h"] - before["layout"]["controls_h"] - 60) < 2,
     f"splitter: controls {before['layout']['controls_h']:.0f} -> {after['layout']['controls_h']:.0f} px, dragged by 60"),
    (not again["layout"]["banner_collapsed"], "the unfolded banner was not remembered"),
    (abs(again["layout"]["controls_h"] - after["layout"]["controls_h"]) < 2,
     f"the splitter was not remembered: {again['layout']['controls_h']:.0f} px after {after['layout']['controls_h']:.0f}"),
]
bad = [m for ok, m in checks if not ok]
print(f"laptop_layout: {len(checks) - len(bad)} of {len(checks)} checks; step text {share(before):.0%} at 1280x720, "
      f"{share(other):.0%} at 1366x768; banner {lines(before):.2f} lines folded, {lines(after):.2f} unfolded")
if bad:
    print("FAIL: " + "\n      ".join(bad))
    sys.exit(1)
PY
sh "$here/check_png.sh" "$out/after.png" 1280 720 || exit 1
echo ok
