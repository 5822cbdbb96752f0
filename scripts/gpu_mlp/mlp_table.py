#!/usr/bin/env python3
"""The table of one mlp device call (scripts/gpu_mlp_record.sh): every recorded run with its
time, rate, error and DRAM bytes, then the acceptance line: the epilogue rung against the unfused
one, and the intermediate U's round trip (write + read of T x F bf16) at the calibrated copy
bandwidth.  mlp_table.py OUT TAG"""
import json, os, sys

out, tag = sys.argv[1], sys.argv[2]
rows, copy_gbps, gpt = [], None, {}
for name in (f"{tag}_mlp.json", f"{tag}_mlp_qkv_sweep.json", f"{tag}_mlp_first_gemm.json",
             f"{tag}_matmul_fp8.json", f"{tag}_mlp_pingpong.json"):
    try:
        d = json.load(open(os.path.join(out, name)))
    except (OSError, ValueError) as e:
        print(f"mlp_table: {name}: {e}")
        continue
    copy_gbps = copy_gbps or (d.get("calibration") or {}).get("copy_gbps")
    for r in d["runs"]:
        s = r.get("sizes", {})
        size = "x".join(str(s[k]) for k in ("T", "D", "F", "M", "N", "K") if k in s)
        t = (r.get("timing") or {}).get("median_ms")
        c = r.get("correctness") or {}
        dram = (r.get("counters") or {}).get("dram_bytes")
        rows.append((r["rung"], size, json.dumps(r.get("params", {})), t, (r.get("rates") or {}).get("tflops"),
                     c.get("passed"), c.get("max_abs"), dram, r.get("error")))
        p = r.get("params", {})
        default = {"gelu_pingpong": {"BM": 64, "BN": 256, "STAGES": 5, "GROUP_M": 16}}.get(r["rung"])
        is_default = p == default if default else (p.get("BN", 256) == 256 and p.get("GROUP_M", 8) == 8)
        if s == {"T": 8192, "D": 4096, "F": 16384} and t and is_default:
            gpt.setdefault(r["rung"], []).append((t, dram))
print(f"{'rung':20} {'size':18} {'ms':>9} {'TFLOP/s':>8} {'ok':>5} {'max_abs':>9} {'DRAM GB':>8}  params / error")
for rung, size, params, t, tf, ok, mx, dram, err in rows:
    f = lambda v, fmt: (fmt % v) if isinstance(v, (int, float)) else "-"
    print(f"{rung:20} {size:18} {f(t, '%.4f'):>9} {f(tf, '%.1f'):>8} {str(ok):>5} {f(mx, '%.2e'):>9} "
          f"{f(dram and dram / 1e9, '%.2f'):>8}  {params} {err or ''}")
if "unfused" in gpt and copy_gbps:
    round_trip_ms = 4 * 8192 * 16384 / (copy_gbps * 1e9) * 1e3
    for top in ("gemm_gelu_epilogue", "gelu_pingpong"):
        for i, ((tu, _), (tt, _)) in enumerate(zip(gpt["unfused"], gpt.get(top, []))):
            gap = tu - tt
            print(f"acceptance 8192x4096x16384 pass {i + 1}: unfused {tu:.4f} ms, {top} {tt:.4f} ms, gap {gap:.4f} ms "
                  f"vs U round trip {round_trip_ms:.4f} ms at {copy_gbps:.0f} GB/s: "
                  f"{'PASS' if gap >= round_trip_ms else 'MISS'}")
    if "cublaslt_gelu" in gpt:
        print(f"cuBLASLt GELU epilogue: {gpt['cublaslt_gelu'][0][0]:.4f} ms")
fp8 = {r[0]: r[4] for r in rows if r[1] == "8192x8192x8192" and r[2] in ("{}", json.dumps(
    {"BM": 128, "BN": 256, "GROUP_M": 8, "PERSISTENT": 1, "STAGES": 4}))}
if fp8.get("cublaslt_fp8") and fp8.get("wgmma_fp8"):
    ratio = fp8["wgmma_fp8"] / fp8["cublaslt_fp8"]
    print(f"acceptance fp8 8192^3: wgmma_fp8 {fp8['wgmma_fp8']:.1f} vs cuBLASLt {fp8['cublaslt_fp8']:.1f} TFLOP/s: "
          f"{ratio:.3f}x {'PASS' if ratio >= 0.8 else 'MISS'} (>= 0.8x)")
