#!/usr/bin/env python3
"""The short table a device call of gpu_live_record.sh prints last.  live_table.py OUT TAG"""
import json, os, sys

out, tag = sys.argv[1], sys.argv[2]
def load(name):
    try:
        return json.load(open(os.path.join(out, f"{tag}_{name}.json")))
    except (OSError, ValueError) as e:
        print(f"(no {name}: {e})"); return None
print(f"{'rung':<18} {'sizes':<22} {'dt':<5} {'params':<22} {'ms':>8} {'GB/s':>7} {'%copy':>6} {'dram/ideal':>10} ok")
for name in ("recompute", "elementwise_sincos", "layernorm"):
    d = load(name)
    if not d:
        continue
    if name == "recompute":
        print("copy_gbps (calibration):", d.get("calibration", {}).get("copy_gbps"))
    for r in d["runs"]:
        if r.get("error"):
            print(f"{r['rung']:<18} ERROR {r['error'][:100]}"); continue
        c = r.get("counters") or {}
        dram = c.get("dram_bytes")
        ratio = f"{dram / r['work']['ideal_bytes']:.2f}" if dram else "-"
        sz = ",".join(f"{k}={v}" for k, v in r["sizes"].items())
        pa = ",".join(f"{k}={v}" for k, v in r["params"].items())
        ok = (r.get("correctness") or {}).get("passed")
        print(f"{r['rung']:<18} {sz:<22} {r['dtype']:<5} {pa:<22} {r['timing']['median_ms']:8.4f} "
              f"{r['rates']['gbps']:7.0f} {r['rates'].get('pct_copy') or 0:6.1f} {ratio:>10} {ok}")
p = load("peers_live")
for e in p or []:
    if e.get("what") != "device":
        print("peer", {k: (round(v, 4) if isinstance(v, float) else v) for k, v in e.items()})
