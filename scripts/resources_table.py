#!/usr/bin/env python3
"""Table of the per-launch resources that `kladder run --json` recorded (schema v2), the
cross-check of our occupancy arithmetic against the runtime's, and, where ncu logs exist,
Nsight Compute's launch statistics beside ours. Used by scripts/gpu_resources_record.sh.
  resources_table.py <out folder> <device tag>"""
import glob, json, os, re, sys

out, tag = sys.argv[1], sys.argv[2]
mismatch = total = 0
for path in sorted(glob.glob(os.path.join(out, f"{tag}_*.json"))):
    if path.endswith("_peers.json"):
        continue
    doc = json.load(open(path))
    print(f"== {os.path.basename(path)} ({doc['device']['name']}, schema v{doc['version']})")
    for r in doc["runs"]:
        if r.get("error"):
            print(f"  {r['rung']:16s} {r['error']['kind']}: {r['error']['message'][:110]}")
            continue
        t = (r.get("timing") or {}).get("median_ms", float("nan"))
        ok = "PASS" if (r.get("correctness") or {}).get("passed") else "FAIL"
        for l in r.get("resources", []):
            o = l["occupancy"]
            total += 1
            same = o["runtime_blocks_per_sm"] == o["blocks_per_sm"]
            mismatch += not same
            smem = l["static_smem_bytes"] + l["dynamic_smem_bytes"]
            print(f"  {r['rung']:16s} {l['entry'][:26]:26s} block {l['block'][0]*l['block'][1]*l['block'][2]:5d} "
                  f"regs {l['regs_per_thread']:3d} smem {smem:7d} local {l['local_bytes']:4d} "
                  f"blocks/SM {o['blocks_per_sm']:2d} (runtime {o['runtime_blocks_per_sm']}) "
                  f"warps {o['active_warps']:2d}/{o['max_warps']} {o['limiter']:13s} {t:9.4f} ms {ok}"
                  + ("" if same else "  MISMATCH"))
print(f"occupancy cross-check: {total - mismatch} of {total} launches agree with cudaOccupancyMaxActiveBlocksPerMultiprocessor")

def ncu_metrics(text):
    want = ["Registers Per Thread", "Static Shared Memory Per Block", "Dynamic Shared Memory Per Block",
            "Block Limit Registers", "Block Limit Shared Mem", "Block Limit Warps", "Block Limit SM",
            "Theoretical Active Warps per SM", "Theoretical Occupancy", "Block Size"]
    got = {}
    for line in text.splitlines():
        for w in want:
            m = re.match(r"\s*" + re.escape(w) + r"\s+(\S+)?\s+([\d.,]+)\s*$", line)
            if m and w not in got:
                got[w] = m.group(2).replace(",", "")
    return got

for log in sorted(glob.glob(os.path.join(out, "parts", "ncu_*.txt"))):
    name = os.path.basename(log)[4:-4]
    m = ncu_metrics(open(log, errors="replace").read())
    ours = None
    jp = os.path.join(out, "parts", f"ncu_{name}.json")
    if os.path.exists(jp):
        runs = json.load(open(jp))["runs"]
        if runs and runs[0].get("resources"):
            ours = runs[0]["resources"][0]
    print(f"== ncu {name}: " + ", ".join(f"{k} {v}" for k, v in m.items()))
    if ours:
        o = ours["occupancy"]
        print(f"   kladder {name}: Registers Per Thread {ours['regs_per_thread']}, Static Shared Memory Per Block "
              f"{ours['static_smem_bytes']}, Dynamic Shared Memory Per Block {ours['dynamic_smem_bytes']}, "
              f"Block Limit Registers {o['blocks_by']['registers']}, Block Limit Shared Mem {o['blocks_by']['shared_memory']}, "
              f"Block Limit Warps {o['blocks_by']['threads']}, Block Limit SM {o['blocks_by']['blocks']}, "
              f"Theoretical Active Warps per SM {o['active_warps']}, "
              f"Theoretical Occupancy {100.0 * o['active_warps'] / o['max_warps']:.2f}")
