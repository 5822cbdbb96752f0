#!/usr/bin/env python3
"""PyTorch peers of issue 17's precision work, in the format of tools/peers.py (imported, from
beside this file or from PYTHONPATH as scripts/plans/record_peers.plan sets it, for bench(): CUDA
events, L2 flushed before each repetition, median):
  the fp32 copy (the same call's copy line, torch's view);
  F.gelu(approximate="tanh") at 2^28 and torch.softmax at 4096 x 4096 in fp32, bf16, fp16 (GB/s over
    one read and one write);
  residual add + layer_norm / rms_norm at 4096 x 4096 and 32768 x 1024 in fp32, bf16, fp16, as
    scripts/peers/peers_live.py measures them ("torch.F.layer_norm" alone over its 2 passes,
    "torch add + F.layer_norm" over the ladder's 4)."""
import argparse, json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
import torch.nn.functional as F
from peers import bench, emit

DT = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}

def main():
    ap = argparse.ArgumentParser(); ap.add_argument("--out")
    ap.add_argument("--norms-only", action="store_true", help="only the copy and the layer_norm / rms_norm cases")
    args = ap.parse_args()
    rows = []
    emit(rows, what="device", name=torch.cuda.get_device_name(), torch=torch.__version__)
    n = 1 << 28
    x = torch.randn(n, device="cuda"); y = torch.empty_like(x)
    t = bench(lambda: y.copy_(x)); emit(rows, what="copy", dtype="fp32", n=n, ms=t, gbps=2 * n * 4 / t / 1e6)
    del x, y
    for name, dt in ({} if args.norms_only else DT).items():
        es = torch.finfo(dt).bits // 8
        x = torch.rand(n, device="cuda", dtype=dt) * 10 - 5
        t = bench(lambda: F.gelu(x, approximate="tanh"))
        emit(rows, what="gelu_tanh", impl="torch.F.gelu", dtype=name, n=n, ms=t, gbps=2 * n * es / t / 1e6)
        del x
        a = torch.rand(4096, 4096, device="cuda", dtype=dt) * 10 - 5
        t = bench(lambda: torch.softmax(a, dim=-1))
        emit(rows, what="softmax", impl="torch.softmax", dtype=name, rows_=4096, cols=4096, ms=t,
             gbps=2 * 4096 * 4096 * es / t / 1e6)
        del a
    torch.cuda.empty_cache()
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
