#!/bin/sh
# library_share.sh GUI OUT_DIR: the matmul strip on a laptop's window (1280 x 720), lesson 6 step 2,
# recorded H100 results. cuBLAS TF32's card reads its rate as a multiple of cuBLAS fp32, the
# reference it is compared with ("7.5x cuBLAS fp32"), never as a share of it ("748% cuBLAS" read
# as a bug); the same-precision rungs keep their "% cuBLAS" (report::library_share).
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2"
cat > "$out/script.txt" <<SCRIPT
wait 5
shot $out/strip.png
SCRIPT
run_gui "$gui" --size 1280x720 --no-save --no-runner --lesson matmul --step 2 --script "$out/script.txt" \
    --max-seconds 60 --report "$out/report.json"
python3 - "$out/report.json" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
cards = {c["rung"]: c for c in r["strip"]}
text = lambda rung: cards.get(rung, {}).get("text", "")
checks = [
    (r["script"]["finished"] and not r["script"]["errors"], f"script: {r['script']['errors']}"),
    ("x cuBLAS fp32" in text("cublas_tf32") and "%" not in text("cublas_tf32").split("|")[1],
     f"cuBLAS TF32's card: {text('cublas_tf32')}"),
    ("% cuBLAS" in text("cublas_fp32"), f"cuBLAS fp32's card: {text('cublas_fp32')}"),
    (cards.get("naive", {}).get("shows") == "withheld", f"naive's card (predicted at this step): {cards.get('naive')}"),
]
bad = [msg for ok, msg in checks if not ok]
print(f"library_share: {len(checks) - len(bad)} of {len(checks)} checks passed")
if bad:
    print("FAIL: " + "\n      ".join(bad))
    sys.exit(1)
PY
sh "$here/check_png.sh" "$out/strip.png" 1280 720 || exit 1
echo ok
