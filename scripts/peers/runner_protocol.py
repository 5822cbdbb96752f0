"""The workbook runner's stopwatch, for the PyTorch and Triton peers (issue "One clock", part 3).

A peer and a rung compared in one device call must be timed the same way, or the ratio says who
held the stopwatch. The runner (app/gpu/timing.cpp, model/run_plan.h) does, per measurement:
  - 2 untimed calls, then a synchronize;
  - per repetition: L2 flushed on the stream that runs the work, then CUDA events around the
    call alone. From sm_80 the flush is the runner's default (app/gpu/timing.h): a buffer of
    twice the L2 (at least 64 MiB) written with evict_last stores, then its lines discarded
    (kernels/common/l2_flush.cu and l2_discard.cu, compiled here with NVRTC and launched through
    the driver API, by ctypes); below sm_80, or with KL_L2_FLUSH=write, cudaMemsetAsync of the
    buffer, a different byte each repetition, as the runner does there;
  - repetitions until at least 10 and 400 ms of timed GPU time (at most 300); the median.
Here the same kernels and calls, not a torch fill kernel. tools/peers.py's bench (30 repetitions, a 256 MiB zero fill) and Triton's
do_bench (its own warm-up, its own flush) are replaced by `bench` below when run through
scripts/peers/peers_runner.py. KL_PEER_PROTOCOL=burst keeps 20 repetitions and no budget, to show
what the protocol changes (the clock falls during 400 ms of full load on Hopper)."""
import ctypes
import ctypes.util
import os

import torch

BURST = os.environ.get("KL_PEER_PROTOCOL", "runner") == "burst"
WARMUP, MIN_REPS, MAX_REPS, BUDGET_MS = 2, 10, 300, 400.0
PROTOCOL = ("burst: 20 repetitions, the runner's flush" if BURST else
            "runner: 2 warm-up, the runner's flush of 2x L2, until 400 ms and 10..300 repetitions, median")

_cudart = None
_flush = None
_clean_flush = None
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def _load(names):
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise RuntimeError(f"runner_protocol: none of {names} could be loaded")


class _CleanFlush:
    """The runner's default flush from sm_80: evict_last stores over the buffer, then discard."""

    def __init__(self, buf):
        nvrtc = _load([ctypes.util.find_library("nvrtc") or "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"])
        self.cuda = _load(["libcuda.so.1", "libcuda.so"])
        major, minor = torch.cuda.get_device_capability(0)
        source = b""
        for f in ("l2_flush.cu", "l2_discard.cu"):
            with open(os.path.join(ROOT, "kernels", "common", f), "rb") as fh:
                source += fh.read() + b"\n"
        prog = ctypes.c_void_p()
        self._ok(nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source, b"l2_flush.cu", 0, None, None), "nvrtcCreateProgram")
        opts = (ctypes.c_char_p * 1)(f"--gpu-architecture=compute_{major}{minor}".encode())
        if nvrtc.nvrtcCompileProgram(prog, 1, opts) != 0:
            raise RuntimeError("runner_protocol: NVRTC could not compile the flush kernels")
        size = ctypes.c_size_t()
        self._ok(nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size)), "nvrtcGetPTXSize")
        ptx = ctypes.create_string_buffer(size.value)
        self._ok(nvrtc.nvrtcGetPTX(prog, ptx), "nvrtcGetPTX")
        torch.cuda.synchronize()  # the runtime's primary context is current from here on
        self.module = ctypes.c_void_p()
        self._ok(self.cuda.cuModuleLoadData(ctypes.byref(self.module), ptx), "cuModuleLoadData")
        self.store, self.discard = ctypes.c_void_p(), ctypes.c_void_p()
        self._ok(self.cuda.cuModuleGetFunction(ctypes.byref(self.store), self.module, b"kl_l2_flush_store_last"), "store")
        self._ok(self.cuda.cuModuleGetFunction(ctypes.byref(self.discard), self.module, b"kl_l2_discard"), "discard")
        self.buf = buf

    @staticmethod
    def _ok(err, what):
        if err != 0:
            raise RuntimeError(f"runner_protocol: {what} failed with error {err}")

    def _launch(self, fn, items, args):
        grid = min((items + 255) // 256, 4096)
        params = (ctypes.c_void_p * len(args))(*[ctypes.addressof(a) for a in args])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        self._ok(self.cuda.cuLaunchKernel(fn, grid, 1, 1, 256, 1, 1, 0, stream, params, None), "cuLaunchKernel")

    def __call__(self, rep):
        base = ctypes.c_void_p(self.buf.data_ptr())
        vectors, lines = self.buf.numel() // 16, self.buf.numel() // 128
        self._launch(self.store, vectors, [base, ctypes.c_longlong(vectors), ctypes.c_int(rep & 0xFF)])
        self._launch(self.discard, lines, [base, ctypes.c_longlong(lines)])


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


def _flush_function():
    """The runner's flush on this GPU: the clean one from sm_80 unless KL_L2_FLUSH=write."""
    global _clean_flush
    buf = _flush_buffer()
    if torch.cuda.get_device_capability(0)[0] < 8 or os.environ.get("KL_L2_FLUSH") == "write":
        return "write", lambda rep: _memset_async(buf, rep & 0xFF)
    if _clean_flush is None:
        _clean_flush = _CleanFlush(buf)
    return "store_last_discard", _clean_flush


def time_like_runner(fn):
    """Times fn() as the runner times a rung; returns the median and what it came from."""
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    flush_name, flush = _flush_function()
    lo, hi, budget = (20, 20, 0.0) if BURST else (MIN_REPS, MAX_REPS, BUDGET_MS)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times, total = [], 0.0
    while len(times) < hi and (len(times) < lo or total < budget):
        flush(len(times))
        start.record(); fn(); stop.record(); stop.synchronize()
        times.append(start.elapsed_time(stop)); total += times[-1]
    times.sort()
    n = len(times)
    return dict(ms=times[n // 2], min_ms=times[0], max_ms=times[-1], p10_ms=times[n // 10],
                p90_ms=times[min(n - 1, (9 * n) // 10)], reps=n, protocol=PROTOCOL, l2_flush=flush_name)


def bench(fn, reps=None):
    """tools/peers.py's bench(fn, reps) -> median ms, on the runner's protocol (reps is ignored:
    the budget decides, as for the rungs)."""
    return time_like_runner(fn)["ms"]
