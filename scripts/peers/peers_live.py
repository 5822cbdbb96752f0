#!/usr/bin/env python3
"""PyTorch peers of the ladders of issue 17, in the format of tools/peers.py (imported, from beside
this file or from PYTHONPATH as scripts/plans/record_peers.plan sets it, for its bench(): CUDA
events, L2 flushed before each repetition, median).
  residual add + layer_norm / rms_norm at 4096 x 4096 and 32768 x 1024 in fp32, bf16, fp16:
    "torch.F.layer_norm" / "torch.F.rms_norm" alone (GB/s over its own 2 passes + weights) and
    "torch add + F.layer_norm" / "torch add + F.rms_norm" (the ladder's work, GB/s over its 4 passes);
  three stacked sigmoids, forward + backward through autograd (GB/s over the ladder's 4 accesses);
  sin^2 + cos^2 eager (GB/s over 2 accesses); the fp32 copy of tools/peers.py."""
import argparse, json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
import torch.nn.functional as F
from peers import bench, emit

DT = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}

def main():
    ap = argparse.ArgumentParser(); ap.add_argument("--out"); args = ap.parse_args()
    rows = []
    emit(rows, what="device", name=torch.cuda.get_device_name(), torch=torch.__version__)
    n = 1 << 28
    x = torch.randn(n, device="cuda"); y = torch.empty_like(x)
    t = bench(lambda: y.copy_(x)); emit(rows, what="copy", dtype="fp32", n=n, ms=t, gbps=2 * n * 4 / t / 1e6)
    t = bench(lambda: torch.sin(x) ** 2 + torch.cos(x) ** 2)
    emit(rows, what="sin2_cos2", impl="torch eager", n=n, ms=t, gbps=2 * n * 4 / t / 1e6)
    del y
    xs = x.clone().requires_grad_(True); g = torch.randn_like(x)
    def sig3():
        out = torch.sigmoid(torch.sigmoid(torch.sigmoid(xs)))
        return torch.autograd.grad(out, xs, g)
    t = bench(sig3); emit(rows, what="three_sigmoids", impl="torch eager autograd", n=n, ms=t, gbps=4 * n * 4 / t / 1e6)
    del x, xs, g; torch.cuda.empty_cache()
    for m, k in [(4096, 4096), (32768, 1024)]:
        for name, dt in DT.items():
            es = torch.finfo(dt).bits // 8
            a = torch.randn(m, k, device="cuda", dtype=dt); r = torch.randn_like(a)
            w = torch.rand(k, device="cuda", dtype=dt) + 0.5; b = torch.rand(k, device="cuda", dtype=dt) - 0.5
            s = a + r
            cases = [("layernorm", "torch.F.layer_norm", lambda: F.layer_norm(s, (k,), w, b, 1e-5), 2 * m * k + 2 * k),
                     ("layernorm", "torch add + F.layer_norm", lambda: F.layer_norm(a + r, (k,), w, b, 1e-5), 4 * m * k + 2 * k),
                     ("rmsnorm", "torch.F.rms_norm", lambda: F.rms_norm(s, (k,), w, 1e-5), 2 * m * k + k),
                     ("rmsnorm", "torch add + F.rms_norm", lambda: F.rms_norm(a + r, (k,), w, 1e-5), 4 * m * k + k)]
            for what, impl, fn, elems in cases:
                t = bench(fn)
                emit(rows, what=what, impl=impl, dtype=name, rows_=m, cols=k, ms=t, gbps=elems * es / t / 1e6)
            del a, r, s; torch.cuda.empty_cache()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)

if __name__ == "__main__":
    sys.exit(main())
