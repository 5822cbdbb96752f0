#!/usr/bin/env python3
"""Merges the per-run JSON records of a device call (OUT/parts/GROUP_NNN.json, in run order) into
one recording per group (OUT/h100_matmul_pingpong_GROUP.json) and prints a table: each run's
rate against the nearest cuBLAS run before it at the same size and dtype (the call runs cuBLAS
before and after, so its spread shows in the table).
Usage: gpu_gemm_table.py OUT COMMAND GROUP..."""
import glob
import json
import os
import sys


def main():
    out, command, groups = sys.argv[1], sys.argv[2], sys.argv[3:]
    for g in groups:
        files = sorted(glob.glob(os.path.join(out, "parts", g + "_*.json")))
        if not files:
            continue
        doc = json.load(open(files[0]))
        for f in files[1:]:
            doc["runs"] += json.load(open(f))["runs"]
        doc["command"] = command + ": kladder run matmul --rung R [-p P=V] --size S --json ..., merged (" + g + ")"
        name = os.path.join(out, "h100_matmul_pingpong_" + g + ".json")
        json.dump(doc, open(name, "w"), separators=(",", ":"))  # compact: the error maps are large
        print("==", os.path.basename(name))
        ref = {}
        for r in doc["runs"]:
            s, t = r["sizes"], r.get("timing") or {}
            key = (s["M"], s["N"], s["K"], r["dtype"])
            tf = 2 * s["M"] * s["N"] * s["K"] / t["median_ms"] / 1e9 if t.get("median_ms") else 0.0
            if r["rung"].startswith("cublas"):
                ref[key] = tf
            c = r.get("correctness") or {}
            base = ref.get(key) or float("nan")
            prm = " ".join(f"{k}={v}" for k, v in sorted(r.get("params", {}).items()) if k in ("STAGES", "CLUSTER", "GROUP_M", "BM", "BN", "BK"))
            clk = (r.get("clock") or {}).get("after_mhz") or 0
            ok = "PASS" if c.get("passed") else "FAIL " + str(c.get("summary", r.get("error", "")))[:60]
            print(f"{s['M']}x{s['N']}x{s['K']} {r['rung']:20s} {prm[:44]:44s} {t.get('median_ms', float('nan')):8.4f} ms "
                  f"{tf:6.1f} TF {tf / base:6.3f}x {clk:5.0f}MHz {ok}")


if __name__ == "__main__":
    main()
