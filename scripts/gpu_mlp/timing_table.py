#!/usr/bin/env python3
"""The timing check's table (scripts/gpu_mlp_timing.sh): per case, the event median, the CUPTI
kernel sums with KIND_KERNEL (tlk_*.json) and CONCURRENT_KERNEL (tlc_*.json), and ncu's
gpu__time_duration.sum (ncu_*.csv: 3 repetitions of L launches; per launch position the median
over the repetitions, summed), with the ratios to ncu and the SM clock around the trace.
timing_table.py PARTS_DIR"""
import csv, glob, json, os, statistics, sys

d = sys.argv[1]
UNIT = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6}


def run0(path):
    try:
        return json.load(open(path))["runs"][0]
    except (OSError, ValueError, KeyError, IndexError):
        return None


def ncu_sum_us(path):
    """Sum over launch positions of the median over repetitions, in microseconds."""
    try:
        lines = [l for l in open(path, errors="replace") if l.startswith('"')]
    except OSError:
        return None, 0
    rows = list(csv.DictReader(lines))
    ts = []
    for r in rows:
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        v = float(r["Metric Value"].replace(",", ""))
        ts.append(v * UNIT.get(r.get("Metric Unit", "nsecond"), 1e-3))
    if not ts or len(ts) % 3:
        return (sum(ts) / 3 if ts else None), len(ts)
    per_rep = len(ts) // 3
    return sum(statistics.median(ts[i::per_rep]) for i in range(per_rep)), per_rep


print(f"{'case':16} {'launches':>8} {'events us':>10} {'CUPTI kern':>10} {'CUPTI conc':>10} {'ncu us':>10} "
      f"{'ev/ncu':>7} {'kern/ncu':>8} {'conc/ncu':>8}  clock MHz (timing before/after; trace before/after)")
for path in sorted(glob.glob(os.path.join(d, "tlk_*.json"))):
    name = os.path.basename(path)[4:-5]
    k, c = run0(path), run0(os.path.join(d, f"tlc_{name}.json"))
    ncu, n = ncu_sum_us(os.path.join(d, f"ncu_{name}.csv"))
    ev = k and (k.get("timing") or {}).get("median_ms")
    ks = k and (k.get("timeline") or {}).get("kernel_sum_ms")
    cs = c and (c.get("timeline") or {}).get("kernel_sum_ms")
    f = lambda v: f"{v:10.1f}" if isinstance(v, (int, float)) else f"{'-':>10}"
    r = lambda a, b: f"{a / b:8.4f}" if a and b else f"{'-':>8}"
    ev_us, ks_us, cs_us = (ev or 0) * 1e3, (ks or 0) * 1e3, (cs or 0) * 1e3
    clk = (k or {}).get("clock") or {}
    tl = (k or {}).get("timeline") or {}
    tc = (c or {}).get("timeline") or {}
    print(f"{name:16} {n:8d} {f(ev_us)} {f(ks_us)} {f(cs_us)} {f(ncu)} {r(ev_us, ncu)[1:]} {r(ks_us, ncu)} "
          f"{r(cs_us, ncu)}  {clk.get('before_mhz', 0):.0f}/{clk.get('after_mhz', 0):.0f}; kernel "
          f"{tl.get('clock_before_mhz', 0):.0f}/{tl.get('clock_after_mhz', 0):.0f}, concurrent "
          f"{tc.get('clock_before_mhz', 0):.0f}/{tc.get('clock_after_mhz', 0):.0f}")
