#!/usr/bin/env python3
"""The profiling lesson's recorded side (issue 39 part 1): the mlp ladder's forward pass,
Linear -> GeLU -> Linear (H = GeLU(X W1) in bf16, Y = H W2 in fp32, as the `torch.mlp` peer runs
it), under torch.profiler, eager and torch.compile, at the ladder's size and at a small,
launch-bound one. One peers-format entry per mode and shape ("what": "profile_mlp"):
  kernels      kernels one forward launches (median repetition), with `kernel_list` (name, us);
  triton_kernels  how many of them torch.compile generated (Triton), the rest being library calls;
  gpu_us       their summed GPU time; span_us first kernel start to last end; gap_us the part of
               the span no kernel covers;
  cpu_us       the host's time in the forward (the profiler's user range around the Python call);
  launch_us    the mean host time of one launch call (cudaLaunchKernel / cuLaunchKernel...);
  ms           the forward on the peers' stopwatch (tools/peers.py bench: CUDA events, L2 flushed
               before each repetition, median), outside the profiler.
Spans come from the profiler's Chrome trace (kernel events matched to the launches inside each
forward's user range by correlation id), so the figures are torch.profiler's own, not ours.
Needs tools/peers.py beside this file or on PYTHONPATH (carried, as record_peers.plan does)."""
import argparse, json, os, statistics, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function
from peers import bench, emit

SHAPES = [(8192, 4096, 16384), (64, 1024, 4096)]
REPETITIONS = 7
LAUNCH_CALLS = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx")


def forward_fn(tokens, d_model, hidden):
    x = torch.randn(tokens, d_model, device="cuda", dtype=torch.bfloat16)
    w1 = torch.randn(d_model, hidden, device="cuda", dtype=torch.bfloat16) / d_model ** 0.5
    w2 = torch.randn(hidden, d_model, device="cuda", dtype=torch.bfloat16) / hidden ** 0.5

    def forward():
        h = F.gelu(x @ w1, approximate="tanh")
        return h, torch.mm(h, w2, out_dtype=torch.float32)
    return forward


def covered_us(spans):
    total, end = 0.0, None
    for start, stop in sorted(spans):
        if end is None or start > end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total


def one_forward(events, annotation):
    """The kernels and launch calls of one forward: those whose launch lies in its user range."""
    lo, hi = annotation["ts"], annotation["ts"] + annotation["dur"]
    launches = [e for e in events if e.get("cat") in ("cuda_runtime", "cuda_driver")
                and lo <= e["ts"] <= hi and e.get("name") in LAUNCH_CALLS]
    ids = {e["args"].get("correlation") for e in launches}
    kernels = sorted((e for e in events if e.get("cat") == "kernel" and e["args"].get("correlation") in ids),
                     key=lambda e: e["ts"])
    spans = [(k["ts"], k["ts"] + k["dur"]) for k in kernels]
    span = (spans[-1][1] - spans[0][0]) if spans else 0.0
    return {
        "kernels": len(kernels),
        "kernel_list": [{"name": k["name"][:200], "us": round(k["dur"], 3)} for k in kernels],
        "triton_kernels": sum(1 for k in kernels if k["name"].startswith("triton")),
        "gpu_us": round(sum(k["dur"] for k in kernels), 3),
        "span_us": round(span, 3),
        "gap_us": round(span - covered_us(spans), 3),
        "cpu_us": round(annotation["dur"], 3),
        "launch_us": round(statistics.mean(e["dur"] for e in launches), 3) if launches else 0.0,
    }


def profiled(forward):
    for _ in range(3):  # warm: cuBLAS handles, the allocator, compiled code
        forward()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for i in range(REPETITIONS):
            with record_function(f"kl_forward_{i}"):
                forward()
            torch.cuda.synchronize()  # one forward at a time: its gaps are its own
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            events = json.load(f)["traceEvents"]
    marks = [e for e in events if e.get("cat") == "user_annotation" and e.get("name", "").startswith("kl_forward_")]
    forwards = [one_forward(events, m) for m in marks]
    if not forwards or not any(f["kernels"] for f in forwards):
        raise RuntimeError("torch.profiler recorded no kernels inside the forward's range")
    forwards.sort(key=lambda f: f["gpu_us"])
    return forwards[len(forwards) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    torch._inductor.config.emulate_precision_casts = True  # as the torch.compile.mlp peer
    rows = []
    emit(rows, what="device", name=torch.cuda.get_device_name(), torch=torch.__version__)
    for tokens, d_model, hidden in SHAPES:
        eager = forward_fn(tokens, d_model, hidden)
        for mode, forward in (("eager", eager), ("compile", torch.compile(eager, dynamic=False))):
            record = profiled(forward)
            emit(rows, what="profile_mlp", mode=mode, T=tokens, D=d_model, F=hidden, dtype="bf16",
                 tool="torch.profiler " + torch.__version__, ms=bench(forward), **record)
        torch.cuda.empty_cache()
    tmp = args.out + ".part"
    with open(tmp, "w") as f:
        json.dump(rows, f, indent=1)
    os.replace(tmp, args.out)


if __name__ == "__main__":
    sys.exit(main())
