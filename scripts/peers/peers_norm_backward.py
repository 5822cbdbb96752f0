#!/usr/bin/env python3
"""PyTorch peers of the layernorm_backward ladder (issue 40), in the format of tools/peers.py
(imported, from beside this file or from PYTHONPATH as scripts/plans/record_peers.plan sets it,
for its bench(): CUDA events, L2 flushed before each repetition, median; peers_runner.py puts the
runner's protocol in its place).
  torch autograd of F.layer_norm and F.rms_norm at the ladder's default size (4096 x 4096) and
  at 32768 x 1024, in fp32, bf16 and fp16: the backward alone (the forward's graph kept,
  torch.autograd.grad with retain_graph), "what": "layernorm_backward" / "rmsnorm_backward",
  GB/s over the ladder's floor: s and dy read, dx written, w read, dgamma (and dbeta) written."""
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
    for m, k in [(4096, 4096), (32768, 1024)]:
        for name, dt in DT.items():
            es = torch.finfo(dt).bits // 8
            s = torch.randn(m, k, device="cuda", dtype=dt, requires_grad=True)
            w = (torch.rand(k, device="cuda", dtype=dt) + 0.5).requires_grad_()
            b = (torch.rand(k, device="cuda", dtype=dt) - 0.5).requires_grad_()
            dy = torch.randn(m, k, device="cuda", dtype=dt)
            y_ln = F.layer_norm(s, (k,), w, b, 1e-5)
            y_rms = F.rms_norm(s, (k,), w, 1e-5)
            cases = [("layernorm_backward", "torch autograd F.layer_norm",
                      lambda: torch.autograd.grad(y_ln, (s, w, b), dy, retain_graph=True), 3 * m * k + 3 * k),
                     ("rmsnorm_backward", "torch autograd F.rms_norm",
                      lambda: torch.autograd.grad(y_rms, (s, w), dy, retain_graph=True), 3 * m * k + 2 * k)]
            for what, impl, fn, elems in cases:
                t = bench(fn)
                emit(rows, what=what, impl=impl, dtype=name, rows_=m, cols=k, ms=t, gbps=elems * es / t / 1e6)
            del s, w, b, dy, y_ln, y_rms; torch.cuda.empty_cache()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
