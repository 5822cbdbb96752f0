#!/usr/bin/env python3
"""PyTorch SDPA backends (flash, cudnn, efficient) on the attention ladder's shapes, timed by the
same protocol as the workbook's runner, for comparison in the same device call.

    python3 sdpa_peers.py OUT.json B H d causal N [N ...]      (B = 0: B x N = 8 x 4096 tokens)

Protocol (app/gpu/timing.cpp, run_plan.h): 2 untimed runs; then, per repetition, L2 flushed by
a memset of twice its size, CUDA events around the call; repeat until 400 ms of timed GPU time
(at least 10, at most 300 repetitions); median. Why it matters: an H100 at full tensor load
reaches its power cap within tens of milliseconds and lowers its clock (1,980 -> ~1,650 MHz,
docs/tuning/timing.md "Power"). A peer timed over 20 repetitions (~35 ms) stays at full clock
while a rung timed over 400 ms does not, which made the attention rungs look 6-10% slower than
they are against cuDNN. KL_PEER_PROTOCOL=burst keeps the old 20-repetition timing to compare.
Prints one JSON line per measurement and writes them all to OUT.json."""
import json, os, sys
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

BURST = os.environ.get("KL_PEER_PROTOCOL", "runner") == "burst"


def time_like_runner(fn):
    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20)
    flush = torch.empty(max(2 * l2, 64 << 20), dtype=torch.uint8, device="cuda")
    lo, hi, budget = (20, 20, 0.0) if BURST else (10, 300, 400.0)
    times, total = [], 0.0
    a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
    while len(times) < hi and (len(times) < lo or total < budget):
        flush.fill_(len(times) & 0xFF)
        a.record(); fn(); b.record(); b.synchronize()
        times.append(a.elapsed_time(b)); total += times[-1]
    times.sort()
    return dict(ms=times[len(times) // 2], min_ms=times[0], max_ms=times[-1], reps=len(times),
                protocol="burst: 20 repetitions" if BURST else "runner: until 400 ms, 10..300 repetitions")


def main():
    if len(sys.argv) < 7:
        sys.exit(__doc__)
    out, B, H, d, causal = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
    rows = []
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
                "efficient": SDPBackend.EFFICIENT_ATTENTION}
    for N in map(int, sys.argv[6:]):
        b = B if B > 0 else max(1, 8 * 4096 // N)
        q = torch.randn(b, H, N, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn_like(q); v = torch.randn_like(q)
        flops = 4 * b * H * N * N * d * (0.5 if causal else 1.0)
        for name, be in backends.items():
            row = dict(what="attention", backend=name, device=torch.cuda.get_device_name(), torch=torch.__version__,
                       B=b, H=H, N=N, d=d, causal=int(causal))
            try:
                with sdpa_kernel(be):
                    t = time_like_runner(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
                row.update(t, tflops=flops / t["ms"] / 1e9)
            except Exception as e:
                row.update(error=type(e).__name__ + ": " + str(e)[:200])
            rows.append(row); print(json.dumps(row), flush=True)
        del q, k, v; torch.cuda.empty_cache()
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
