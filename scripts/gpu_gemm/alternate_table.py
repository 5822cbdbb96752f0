#!/usr/bin/env python3
"""The table of one alternated matmul device call (scripts/gpu_gemm/alternate.sh): per size and round,
each form's timed median, fastest repetition, the kernel's own time from the CUPTI timeline and
the SM clock after timing, with cuBLAS's ratio over the form (> 1: the form is faster); then per
form the mean ratios over the rounds and how many rounds were at or above 1.0.
alternate_table.py PARTS_DIR"""
import glob, json, os, re, sys
from statistics import mean

parts = sys.argv[1]
rows = {}  # (size, round) -> {form: row}
for path in sorted(glob.glob(os.path.join(parts, "rec_*.json"))):
    m = re.match(r"rec_(\d+)_r(\d+)_\w_(.*)\.json", os.path.basename(path))
    if not m:
        continue
    try:
        runs = json.load(open(path))["runs"]
    except (OSError, ValueError, KeyError) as e:
        print(f"table: {path}: {e}")
        continue
    for r in runs:
        if r.get("error") or not r.get("timing"):
            print(f"table: {path}: {str(r.get('error'))[:160]}")
            continue
        ks = (r.get("timeline") or {}).get("kernels") or []
        rows.setdefault((int(m.group(1)), int(m.group(2))), {})[m.group(3)] = {
            "med": r["timing"]["median_ms"], "min": r["timing"]["min_ms"],
            "traced": sum((k["end_us"] - k["start_us"]) / 1e3 for k in ks) if ks else None,
            "clk": (r.get("clock") or {}).get("after_mhz") or 0.0,
            "ok": (r.get("correctness") or {}).get("passed")}
ratios = {}  # (size, form) -> [(median ratio, traced ratio)]
print(f"{'size':>5} {'rd':>2} {'form':8} {'median':>8} {'min':>8} {'traced':>8} {'MHz':>5} {'ok':>5} {'cuB/med':>7} {'cuB/tr':>7}")
for (n, rd), forms in sorted(rows.items()):
    cub = forms.get("cublas")
    for form, r in forms.items():
        rm = cub["med"] / r["med"] if cub else None
        rt = cub["traced"] / r["traced"] if cub and cub["traced"] and r["traced"] else None
        if form != "cublas" and rm:
            ratios.setdefault((n, form), []).append((rm, rt))
        f = lambda v, s: (s % v) if v else "-"
        print(f"{n:5} {rd:2} {form:8} {r['med']:8.4f} {r['min']:8.4f} {f(r['traced'], '%8.4f'):>8} {r['clk']:5.0f}"
              f" {str(r['ok']):>5} {f(rm, '%7.4f'):>7} {f(rt, '%7.4f'):>7}")
print("\nper form: mean of cuBLAS/form over the rounds (median; traced), rounds >= 1.0")
for (n, form), v in sorted(ratios.items()):
    med = [a for a, _ in v]
    tr = [b for _, b in v if b]
    print(f"{n:5} {form:8} median {mean(med):.4f} ({sum(a >= 1 for a in med)}/{len(med)})"
          + (f"  traced {mean(tr):.4f} ({sum(b >= 1 for b in tr)}/{len(tr)})" if tr else ""))
