#!/usr/bin/env python3
"""cuDNN's SDPA forward timed by PyTorch's own CUDA events, three ways, on the GPU machine.

Issue 36's acceptance compares torch's own CUDA-event figure for cuDNN with the runner's burst
figure. tools/peers.py times each call between two events right after a 256 MiB zero fill, with
nothing holding the GPU: when the fill ends before Python has dispatched the call, the start event
fires and the GPU idles through the dispatch, which then sits inside the events. So each shape is
timed here three ways, all with torch.cuda.Event:
  - flush:    as tools/peers.py (zero fill, start event, call, stop event), REPS calls, median;
  - held:     the same, with torch.cuda._sleep(CYCLES) queued before the start event, so the GPU is
              still busy when the call is queued (the runner's hold, in PyTorch's terms);
  - held_read: held, with the zero fill replaced by a read of the same 256 MiB (a sum): L2 is
              left holding clean lines, as the runner's flush leaves it, where the fill leaves
              about an L2 of dirty lines for the timed call to write back;
  - held_lse: held, calling aten's cuDNN op as the runner's peer does (the log-sum-exp asked for,
              as the ladder checks it; F.scaled_dot_product_attention without grad does not ask);
  - loop:     LOOP calls back to back between one pair of events, divided by LOOP (the GPU never
              waits for Python; L2 holds whatever the previous call left).
Prints one JSON line per figure and writes them all to --out. Needs PyTorch with CUDA.
Usage: torch_sdpa_events.py --out FILE.json [--reps N] [--loop N] [--rounds N]
"""
import argparse
import json
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def one_call_each(fn, reps, flush, hold_cycles, read_flush=False):
    times = []
    for _ in range(reps):
        if read_flush:
            flush.view(torch.float32).sum()
        else:
            flush.zero_()
        if hold_cycles:
            torch.cuda._sleep(hold_cycles)
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def kernel_names(plain, with_lse):
    """The GPU kernels of one call each way, by name, with their CUDA time in us (torch.profiler)."""
    from torch.profiler import ProfilerActivity, profile
    names = {}
    for label, fn in (("sdpa", plain), ("aten_with_lse", with_lse)):
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        names[label] = {e.key: round(e.device_time_total, 1) for e in prof.key_averages() if e.device_time_total > 0}
    return names


def back_to_back(fn, loop):
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(loop):
        fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) / loop


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--loop", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--kernels", action="store_true", help="also name each way's kernels (torch.profiler)")
    ap.add_argument("--hold-cycles", type=int, default=4_000_000, help="about 2 ms at 1.98 GHz")
    args = ap.parse_args()
    rows = [{"what": "device", "name": torch.cuda.get_device_name(), "torch": torch.__version__}]
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for d in (64, 128):
        for causal in (False, True):
            B, H, N = 8, 16, 4096
            q = torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16)
            k, v = torch.randn_like(q), torch.randn_like(q)
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # noqa: E731
                for _ in range(5):
                    fn()
                torch.cuda.synchronize()
                scale = 1.0 / d ** 0.5
                with_lse = lambda: torch.ops.aten._scaled_dot_product_cudnn_attention(  # noqa: E731
                    q, k, v, None, True, 0.0, causal, False, scale=scale)[:2]
                figures = {"flush": [], "held": [], "held_read": [], "held_lse": [], "loop": []}
                for _ in range(args.rounds):  # alternated, so drift shows as spread
                    figures["flush"].append(one_call_each(fn, args.reps, flush, 0))
                    figures["held"].append(one_call_each(fn, args.reps, flush, args.hold_cycles))
                    figures["held_read"].append(one_call_each(fn, args.reps, flush, args.hold_cycles, True))
                    figures["held_lse"].append(one_call_each(with_lse, args.reps, flush, args.hold_cycles))
                    figures["loop"].append(back_to_back(fn, args.loop))
            if args.kernels:
                row_kernels = kernel_names(fn, with_lse)
            row = {"what": "attention", "backend": "cudnn", "B": B, "H": H, "N": N, "d": d, "causal": causal,
                   "ms": {k: statistics.median(v) for k, v in figures.items()}, "rounds_ms": figures}
            if args.kernels:
                row["kernels"] = row_kernels
            rows.append(row)
            print(json.dumps(row), flush=True)
            del q, k, v
            torch.cuda.empty_cache()
    with open(args.out, "w") as f:
        json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
