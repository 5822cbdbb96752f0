#!/usr/bin/env python3
"""The short table a device call of gpu_precision_record.sh prints last: every run of the given
results files (rung, sizes, dtype, parameters, median us, GB/s, % of the calibrated copy,
rel_l2, max_abs, pass), then the peers.   precision_table.py PEERS.json RESULTS.json..."""
import json, sys

peers, files = sys.argv[1], sys.argv[2:]
print(f"{'rung':<20} {'sizes':<20} {'dt':<4} {'params':<32} {'us':>8} {'GB/s':>6} {'%copy':>6} {'rel_l2':>8} {'max_abs':>8} ok")
for path in files:
    try:
        d = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"({path}: {e})"); continue
    print(f"# {path.rsplit('/', 1)[-1]}  copy_gbps {d.get('calibration', {}).get('copy_gbps')}")
    for r in d["runs"]:
        if r.get("error"):
            print(f"{r['rung']:<20} ERROR {r['error'][:110]}"); continue
        sz = ",".join(f"{v}" for v in r["sizes"].values())
        pa = ",".join(f"{k}={v}" for k, v in r["params"].items() if k != "RMS")
        c = r.get("correctness") or {}
        t = r.get("timing") or {}
        rt = r.get("rates") or {}
        print(f"{r['rung']:<20} {sz:<20} {r['dtype']:<4} {pa:<32} {1000 * t.get('median_ms', 0):8.2f} "
              f"{rt.get('gbps') or 0:6.0f} {rt.get('pct_copy') or 0:6.1f} {c.get('rel_l2', -1):8.1e} "
              f"{c.get('max_abs', -1):8.1e} {c.get('passed')}")
try:
    for e in json.load(open(peers)):
        if e.get("what") != "device":
            print("peer", " ".join(f"{k}={round(v, 4) if isinstance(v, float) else v}" for k, v in e.items()))
except (OSError, ValueError) as e:
    print(f"(no peers: {e})")
