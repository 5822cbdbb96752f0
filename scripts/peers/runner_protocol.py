"""The workbook runner's stopwatch, for the PyTorch and Triton peers (issue "One clock", part 3).

A peer and a rung compared in one device call must be timed the same way, or the ratio says who
held the stopwatch. The runner (app/gpu/timing.cpp, model/run_plan.h) does, per measurement:
  - 2 untimed calls, then a synchronize;
  - per repetition: L2 flushed by cudaMemsetAsync of a buffer of twice the L2 (at least 64 MiB),
    a different byte each repetition, on the stream that runs the work; then CUDA events around
    the call alone;
  - repetitions until at least 10 and 400 ms of timed GPU time (at most 300); the median.
Here the same: the memset is cudaMemsetAsync itself (ctypes, on torch's current stream), not a
torch fill kernel. tools/peers.py's bench (30 repetitions, a 256 MiB zero fill) and Triton's
do_bench (its own warm-up, its own flush) are replaced by `bench` below when run through
scripts/peers/peers_runner.py. KL_PEER_PROTOCOL=burst keeps 20 repetitions and no budget, to show
what the protocol changes (the clock falls during 400 ms of full load on Hopper)."""
import ctypes
import ctypes.util
import os

import torch

BURST = os.environ.get("KL_PEER_PROTOCOL", "runner") == "burst"
WARMUP, MIN_REPS, MAX_REPS, BUDGET_MS = 2, 10, 300, 400.0
PROTOCOL = ("burst: 20 repetitions, memset flush" if BURST else
            "runner: 2 warm-up, memset flush of 2x L2, until 400 ms and 10..300 repetitions, median")

_cudart = None
_flush = None


def _memset_async(buf, value):
    """cudaMemsetAsync(buf, value, bytes, torch's current stream), as the runner's flush does."""
    global _cudart
    if _cudart is None:
        name = ctypes.util.find_library("cudart")
        for candidate in ([name] if name else []) + ["libcudart.so", "libcudart.so.13", "libcudart.so.12"]:
            try:
                _cudart = ctypes.CDLL(candidate)
                break
            except OSError:
                continue
        if _cudart is None:
            raise RuntimeError("runner_protocol: libcudart not found for cudaMemsetAsync")
        _cudart.cudaMemsetAsync.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_void_p]
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    err = _cudart.cudaMemsetAsync(ctypes.c_void_p(buf.data_ptr()), value, buf.numel(), stream)
    if err != 0:
        raise RuntimeError(f"runner_protocol: cudaMemsetAsync failed with error {err}")


def _flush_buffer():
    global _flush
    if _flush is None:
        l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20)
        _flush = torch.empty(max(2 * l2, 64 << 20), dtype=torch.uint8, device="cuda")
    return _flush


def time_like_runner(fn):
    """Times fn() as the runner times a rung; returns the median and what it came from."""
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    flush = _flush_buffer()
    lo, hi, budget = (20, 20, 0.0) if BURST else (MIN_REPS, MAX_REPS, BUDGET_MS)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times, total = [], 0.0
    while len(times) < hi and (len(times) < lo or total < budget):
        _memset_async(flush, len(times) & 0xFF)
        start.record(); fn(); stop.record(); stop.synchronize()
        times.append(start.elapsed_time(stop)); total += times[-1]
    times.sort()
    n = len(times)
    return dict(ms=times[n // 2], min_ms=times[0], max_ms=times[-1], p10_ms=times[n // 10],
                p90_ms=times[min(n - 1, (9 * n) // 10)], reps=n, protocol=PROTOCOL)


def bench(fn, reps=None):
    """tools/peers.py's bench(fn, reps) -> median ms, on the runner's protocol (reps is ignored:
    the budget decides, as for the rungs)."""
    return time_like_runner(fn)["ms"]
