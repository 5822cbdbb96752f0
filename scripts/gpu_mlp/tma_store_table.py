#!/usr/bin/env python3
"""The table of one rung-4 device call (scripts/gpu_mlp/tma_store.sh): every recorded run with its
time, error, DRAM bytes and, where traced, each kernel's own time; then the acceptance lines:
each unfused pass against rung 4 (defaults) and U's round trip at the calibrated copy bandwidth.
tma_store_table.py PARTS_DIR"""
import glob, json, os, sys

parts = sys.argv[1]
rows, copy_gbps = [], None
for path in sorted(glob.glob(os.path.join(parts, "rec_*.json"))):
    try:
        d = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"table: {path}: {e}")
        continue
    copy_gbps = copy_gbps or (d.get("calibration") or {}).get("copy_gbps")
    for r in d["runs"]:
        s = r.get("sizes", {})
        size = "x".join(str(s[k]) for k in ("T", "D", "F") if k in s)
        t = (r.get("timing") or {}).get("median_ms")
        c = r.get("correctness") or {}
        dram = (r.get("counters") or {}).get("dram_bytes")
        ks = ((r.get("timeline") or {}).get("kernels")) or []
        spans = " + ".join(f"{k['name'][:18]} {(k['end_us'] - k['start_us']) / 1e3:.3f}" for k in ks)
        rows.append((os.path.basename(path)[4:-5], r["rung"], size, r.get("params", {}), t, c.get("passed"),
                     c.get("rel_l2"), dram, spans, r.get("error")))
f = lambda v, fmt: (fmt % v) if isinstance(v, (int, float)) else "-"
print(f"{'part':26} {'rung':18} {'ms':>7} {'ok':>5} {'rel_l2':>8} {'DRAM GB':>7}  kernels (ms) / params")
for part, rung, size, params, t, ok, rel, dram, spans, err in rows:
    print(f"{part[:26]:26} {rung:18} {f(t, '%.4f'):>7} {str(ok):>5} {f(rel, '%.1e'):>8} {f(dram and dram / 1e9, '%.2f'):>7}"
          f"  {spans} {json.dumps(params) if rung == 'gelu_tma_store' else ''} {err or ''}")
gpt = [r for r in rows if r[2] == "8192x4096x16384" and r[4]]
unfused = [r[4] for r in gpt if r[1] == "unfused"]
if copy_gbps and unfused:
    rt = 4 * 8192 * 16384 / (copy_gbps * 1e9) * 1e3
    print(f"U's round trip at {copy_gbps:.0f} GB/s: {rt:.4f} ms; unfused passes: " + ", ".join(f"{t:.4f}" for t in unfused))
    for r in gpt:
        if r[1] in ("gelu_tma_store", "gemm_gelu_epilogue", "cublaslt_gelu"):
            gaps = [tu - r[4] for tu in unfused]
            print(f"acceptance {r[0][:22]:22} {r[1]:18} {r[4]:.4f} ms: gap {min(gaps):.4f} .. {max(gaps):.4f} ms: "
                  f"{'PASS' if min(gaps) >= rt else ('PASS vs one pass' if max(gaps) >= rt else 'MISS')} "
                  f"{json.dumps(r[3]) if r[1] == 'gelu_tma_store' else ''}")
