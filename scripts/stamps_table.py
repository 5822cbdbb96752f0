#!/usr/bin/env python3
"""The block timeline of a persistent GEMM, from the lines a STAMPS form prints
(kernels/common/kl_cluster_gemm.cuh): where each SM's time went.

  stamps_table.py <kladder output> [...]   (one table per file)

Per block: its start on the global timer, the end of each unit's math (its SM's cycles, turned
into nanoseconds with that block's own cycles-per-ns over its life), and its exit. Printed: the
kernel's span; how late blocks started; when each block's whole tiles and its last unit ended;
the spread of per-block tile times (the slowest pair sets a static schedule's end); and each
block's idle time against the span, split into before its start and after its last unit."""
import re
import statistics as st
import sys


def read(path):
    blocks = {}
    for line in open(path, errors="replace"):
        m = re.match(r"stamp (\d+) sm (\d+) ns (\d+) (\d+) cycles (\d+) (\d+) units (\d+)", line)
        if m:
            b = int(m.group(1))
            blocks[b] = dict(sm=int(m.group(2)), ns0=int(m.group(3)), ns1=int(m.group(4)), c0=int(m.group(5)),
                             c1=int(m.group(6)), n=int(m.group(7)), units=[])
            continue
        m = re.match(r"stamp_units (\d+) (\d+) (.*)", line)
        if m and int(m.group(1)) in blocks:
            vals = [int(v) for v in m.group(3).split()]
            blk = blocks[int(m.group(1))]
            blk["units"].extend(vals[: max(0, blk["n"] - int(m.group(2)))])
    return blocks


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))]


def table(path):
    blocks = read(path)
    if not blocks:
        print(f"{path}: no stamp lines")
        return
    t0 = min(b["ns0"] for b in blocks.values())
    span = max(b["ns1"] for b in blocks.values()) - t0
    for b in blocks.values():
        b["ghz"] = (b["c1"] - b["c0"]) / max(1, b["ns1"] - b["ns0"])
        b["ends"] = [b["ns0"] - t0 + c / b["ghz"] for c in b["units"]]
    counts = sorted({b["n"] for b in blocks.values()})
    whole = min(counts)
    print(f"== {path}: {len(blocks)} blocks, span {span / 1e3:.1f} us, units per block {counts}, "
          f"clock {st.mean(b['ghz'] for b in blocks.values()):.3f} GHz (mean over blocks)")
    starts = [b["ns0"] - t0 for b in blocks.values()]
    print(f"start after the first block (us): median {st.median(starts) / 1e3:.2f}  p90 {pct(starts, .9) / 1e3:.2f}"
          f"  max {max(starts) / 1e3:.2f}")
    first = [b["ends"][0] - (b["ns0"] - t0) for b in blocks.values() if b["ends"]]
    print(f"first unit (us, from the block's start): median {st.median(first) / 1e3:.2f}  max {max(first) / 1e3:.2f}")
    if whole > 1:
        # Tile time per block over its whole units after the first (a pair's pace).
        pace = {k: (b["ends"][whole - 1] - b["ends"][0]) / (whole - 1) for k, b in blocks.items()}
        p = sorted(pace.values())
        print(f"tile time over units 2..{whole} (us): min {p[0] / 1e3:.2f}  median {st.median(p) / 1e3:.2f}  "
              f"max {p[-1] / 1e3:.2f}  (max/min {p[-1] / p[0]:.4f})")
        w_end = sorted(b["ends"][whole - 1] for b in blocks.values())
        print(f"end of unit {whole} (us): min {w_end[0] / 1e3:.1f}  median {st.median(w_end) / 1e3:.1f}  "
              f"max {w_end[-1] / 1e3:.1f}  spread {(w_end[-1] - w_end[0]) / 1e3:.1f}")
        slow = sorted(pace, key=pace.get)[-6:]
        print("slowest blocks (block sm tile-us):", "  ".join(f"{k}/{blocks[k]['sm']}/{pace[k] / 1e3:.2f}" for k in slow))
        fast = sorted(pace, key=pace.get)[:6]
        print("fastest blocks (block sm tile-us):", "  ".join(f"{k}/{blocks[k]['sm']}/{pace[k] / 1e3:.2f}" for k in fast))
    # Each unit's own length in SM cycles (clock-free: a narrow last-round piece against a whole tile).
    most = max(len(b["units"]) for b in blocks.values())
    per_unit = []
    for i in range(most):
        c = [b["units"][i] - (b["units"][i - 1] if i else 0) for b in blocks.values() if len(b["units"]) > i]
        per_unit.append(f"{i + 1}: {st.median(c) / 1e3:.1f}k ({len(c)})")
    print("cycles per unit, median over blocks (blocks):", "  ".join(per_unit))
    last = sorted(b["ends"][-1] for b in blocks.values() if b["ends"])
    print(f"end of the last unit (us): min {last[0] / 1e3:.1f}  median {st.median(last) / 1e3:.1f}  max {last[-1] / 1e3:.1f}")
    extra = {k: b for k, b in blocks.items() if b["n"] > whole}
    if extra:
        e = [b["ends"][-1] - b["ends"][whole - 1] for b in extra.values()]
        print(f"{len(extra)} blocks with units past {whole}: those units took {min(e) / 1e3:.1f}-{max(e) / 1e3:.1f} us;"
              f" they started at {min(b['ends'][whole - 1] for b in extra.values()) / 1e3:.1f}-"
              f"{max(b['ends'][whole - 1] for b in extra.values()) / 1e3:.1f} us")
    exits = [b["ns1"] - t0 for b in blocks.values()]
    print(f"exit (us): min {min(exits) / 1e3:.1f}  median {st.median(exits) / 1e3:.1f}  max {max(exits) / 1e3:.1f}")
    busiest = max(blocks, key=lambda k: blocks[k]["ns1"] - blocks[k]["ns0"])
    b = blocks[busiest]
    print(f"busiest block {busiest} (sm {b['sm']}): alive {(b['ns1'] - b['ns0']) / 1e3:.1f} us, idle before "
          f"{(b['ns0'] - t0) / 1e3:.2f}, after its exit {(t0 + span - b['ns1']) / 1e3:.2f}; last unit ended "
          f"{(b['ns1'] - t0 - b['ends'][-1]) / 1e3:.2f} us before its exit")
    tail = [(t0 + span - b["ns1"]) / 1e3 for b in blocks.values()]
    print(f"idle after exit (us): median {st.median(tail):.1f}  max {max(tail):.1f}")


for f in sys.argv[1:]:
    table(f)
