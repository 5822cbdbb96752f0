#!/bin/sh
# ladder_skip.sh GUI FAKE_RUNNER OUT_DIR: Run ladder at a size some rungs cannot take (issue 34).
# LayerNorm at cols = 4097: the rungs that hold the row in registers cannot take it. The window
# sends every rung as part of a whole-ladder run; the runner (a test double that resolves each
# rung with the engine, as `kladder serve` does) answers those with skipped records, and the
# others run. The window shows them as skipped with the reason on their cards, not as failures
# or errors, and the job ends with the others measured. No GPU needed.
gui=$1
fake=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$3"
# The runner refuses a workspace inside the repository tree (where $out may be): fresh_out puts
# the data folder outside it.
export KLADDER_SERVE="$fake --delay-ms 20"
cat > "$out/script.txt" <<SCRIPT
wait 5
click input:size:cols
type 4097
key Enter
wait 3
click button:run_ladder
wait_until job
wait_idle
wait 3
shot $out/skipped.png
SCRIPT
run_gui "$gui" --size 1600x900 --no-save --no-recorded --lesson transformer_block --step 2 \
    --script "$out/script.txt" --max-seconds 180 --report "$out/report.json"
python3 - "$out/report.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
sc, run, log = r["script"], r["runner"], r["log"]
cards = {c["rung"]: c for c in r["strip"]}
fits = lambda c: "fails with" in c["detail"] and "cols=4097" in c["detail"]  # the constraint, at this size
skipped = sorted(k for k, c in cards.items() if c["shows"] == "skipped")
measured = sorted(k for k, c in cards.items() if c["shows"] == "measured")
checks = [
    (sc["finished"] and not sc["errors"], f"script: {sc['errors']}"),
    (cards.get("row_regs_vec", {}).get("shows") == "skipped" and
     "the row must fit in the block's registers" in cards["row_regs_vec"]["detail"],
     f"row_regs_vec's card: {cards.get('row_regs_vec')}"),
    (all(fits(cards[k]) for k in skipped), f"a skipped card without the reason: {[cards[k] for k in skipped]}"),
    ("unfused" in measured and "welford" in measured, f"the rungs that take cols=4097 did not run: {measured}"),
    (not any(c["shows"] == "failed" for c in cards.values()), f"failed cards: {cards}"),
    (run["failures"] == 0 and not r["errors_shown"], f"errors shown: {r['errors_shown']}"),
    (any("layernorm/row_regs_vec skipped: the row must fit" in l for l in log), "no skip in the log"),
    (any("ladder:" in l and f", {len(skipped)} skipped" in l for l in log),
     "the job's summary does not count the skips: " + str([l for l in log if "ladder:" in l])),
]
bad = [msg for ok, msg in checks if not ok]
print(f"ladder_skip: {len(checks) - len(bad)} of {len(checks)} checks passed; skipped {skipped}; measured {measured}")
if bad:
    print("FAIL: " + "\n      ".join(bad))
    sys.exit(1)
PY
sh "$here/check_png.sh" "$out/skipped.png" 1600 900 || exit 1
echo ok
