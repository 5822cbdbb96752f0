#!/bin/sh
# figure_export_withheld.sh GUI OUT_DIR: a figure exported from the window while predictions wait
# (lesson 6 step 2: naive's prediction, and steps 3-9's rungs) carries no figure the picture leaves
# empty: its NAME.results.json leaves out every run whose card reads "hidden until ...", says so in
# `withheld` (one line per run), and keeps the runs that show (cuBLAS fp32, recorded at 4096^3).
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2"
mkdir -p "$out/home"
cat > "$out/script.txt" <<SCRIPT
wait 5
click button:export
wait 2
click button:export_go
wait 3
SCRIPT
run_gui env HOME="$out/home" "$gui" --no-save --no-runner --size 1280x800 --lesson matmul --step 2 \
    --script "$out/script.txt" --max-seconds 60 --report "$out/report.json"
python3 - "$out/report.json" "$out/home/kernel-ladder-figures" <<'PY' || exit 1
import glob, json, sys
r = json.load(open(sys.argv[1]))
files = glob.glob(sys.argv[2] + "/*.results.json")
if len(files) != 1:
    print(f"FAIL: expected one results copy in {sys.argv[2]}, found {files}"); sys.exit(1)
res = json.load(open(files[0]))
hidden = sorted(c["rung"] for c in r["strip"] if c["shows"] == "withheld")
shown = sorted(c["rung"] for c in r["strip"] if c["shows"] == "measured")
big = {"M": 4096, "N": 4096, "K": 4096}
at_4096 = lambda rung: [x for x in res["runs"] if x["rung"] == rung and x["sizes"] == big and x["dtype"] == "fp32"]
withheld = res.get("withheld", [])
checks = [
    (r["script"]["finished"] and not r["script"]["errors"], f"script: {r['script']['errors']}"),
    ("naive" in hidden and len(hidden) >= 5, f"cards hidden at step 2: {hidden}"),
    (not any(at_4096(k) for k in hidden), f"hidden rungs' runs in the file: {[k for k in hidden if at_4096(k)]}"),
    (all(any(w.startswith(f"matmul/{k} fp32 K=4096 M=4096 N=4096: until") for w in withheld) for k in hidden),
     f"`withheld` does not name every hidden run: {withheld}"),
    ("cublas_fp32" in shown and at_4096("cublas_fp32"), "cuBLAS fp32's run (it shows) was left out"),
    (any("runs left out until predicted" in l for l in r["log"]), "the log does not say: " + str(r["log"][-3:])),
]
bad = [msg for ok, msg in checks if not ok]
print(f"figure_export_withheld: {len(checks) - len(bad)} of {len(checks)} checks passed; {len(withheld)} runs left out")
if bad:
    print("FAIL: " + "\n      ".join(bad))
    sys.exit(1)
PY
echo ok
