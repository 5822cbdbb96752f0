#!/usr/bin/env python3
"""The table of one rung-5 device call (scripts/gpu_mlp/cluster.sh): per round, each form's MLP
median and its kernels' own times (CUPTI); then the acceptance line per round: unfused minus
rung 5 against U's round trip at the calibrated copy bandwidth, and the same at kernel level
(cuBLAS's GEMM + the GeLU kernel against rung 5's fused first product).  cluster_table.py PARTS_DIR"""
import glob, json, os, re, sys

parts = sys.argv[1]
rounds, copy_gbps, other = {}, None, []
for path in sorted(glob.glob(os.path.join(parts, "rec_*.json"))):
    try:
        d = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"table: {path}: {e}")
        continue
    copy_gbps = copy_gbps or (d.get("calibration") or {}).get("copy_gbps")
    name = os.path.basename(path)[4:-5]
    for r in d["runs"]:
        ks = ((r.get("timeline") or {}).get("kernels")) or []
        row = {"rung": r["rung"], "ms": (r.get("timing") or {}).get("median_ms"),
               "ok": (r.get("correctness") or {}).get("passed"), "err": r.get("error"),
               "dram": (r.get("counters") or {}).get("dram_bytes"),
               "kernels": [(k["name"], (k["end_us"] - k["start_us"]) / 1e3) for k in ks]}
        m = re.match(r"r(\d+)_\w_(.*)", name)
        if m:
            rounds.setdefault(int(m.group(1)), {})[m.group(2)] = row
        else:
            other.append((name, row))
f = lambda v, fmt: (fmt % v) if isinstance(v, (int, float)) else "-"
print(f"{'round':5} {'form':12} {'ms':>7} {'ok':>5}  kernels (ms)")
for n, forms in sorted(rounds.items()):
    for form, r in forms.items():
        spans = " + ".join(f"{k[:22]} {t:.3f}" for k, t in r["kernels"])
        print(f"{n:5} {form:12} {f(r['ms'], '%.4f'):>7} {str(r['ok']):>5}  {spans} {r['err'] or ''}")
for name, r in other:
    print(f"{name:18} {r['rung']:14} {f(r['ms'], '%.4f'):>7} {str(r['ok']):>5} DRAM {f(r['dram'] and r['dram'] / 1e9, '%.3f')} GB")
if not copy_gbps:
    sys.exit(0)
rt = 4 * 8192 * 16384 / (copy_gbps * 1e9) * 1e3
print(f"U's round trip at {copy_gbps:.0f} GB/s: {rt:.4f} ms")
first = lambda r: r["kernels"][0][1] if r and r["kernels"] else None
for n, forms in sorted(rounds.items()):
    u, r4 = forms.get("unfused"), forms.get("r4")
    for name, r5 in forms.items():
        if r5["rung"] != "gelu_cluster" or not (u and u["ms"] and r5["ms"]):
            continue
        save = u["ms"] - r5["ms"]
        k_save = (sum(t for _, t in u["kernels"][:2]) - first(r5)) if len(u["kernels"]) >= 2 and first(r5) else None
        vs4 = f"{r4['ms'] / r5['ms']:.3f}" if r4 and r4["ms"] else "-"
        print(f"round {n} {name}: saving {save:.4f} ms ({'PASS' if save >= rt else 'MISS'}); kernel-level "
              f"{f(k_save, '%.4f')} ms ({'PASS' if k_save and k_save >= rt else 'MISS'}); first product "
              f"{f(first(r5), '%.4f')} vs cuBLAS GEMM {f(u['kernels'][0][1] if u['kernels'] else None, '%.4f')}; "
              f"rung 4 / rung 5 time {vs4}")
