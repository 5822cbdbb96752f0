#!/usr/bin/env python3
"""PyTorch SDPA backward (flash and cuDNN backends), the peers of the attention_backward ladder
(issue 40), timed by the same protocol as the workbook's runner, for comparison in the same call.

    python3 peers_attention_backward.py OUT.json [B H N]      (default 8 16 4096)

Each of d = 64 and 128, causal and not: bf16 q, k, v of [B, H, N, d] with requires_grad, the
forward run once under the backend and its graph kept, then the backward alone timed:
torch.autograd.grad(o, (q, k, v), do, retain_graph=True), i.e. dQ, dK, dV from dO and what the
forward saved (its log-sum-exp), the ladder's problem. TFLOP/s by the ladder's count,
10 B H N^2 d (half when causal): five products of 2 N^2 d per head.
Protocol: sdpa_peers.py's time_like_runner (2 untimed runs; L2 flushed before each repetition;
CUDA events; until 400 ms, 10..300 repetitions; median). One JSON line per measurement, all of
them written to OUT.json ("what": "attention_backward")."""
import json, os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
from sdpa_peers import time_like_runner


def main():
    if len(sys.argv) not in (2, 5):
        sys.exit(__doc__)
    out = sys.argv[1]
    B, H, N = (int(a) for a in sys.argv[2:5]) if len(sys.argv) == 5 else (8, 16, 4096)
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    rows = []
    for d in (64, 128):
        for causal in (False, True):
            q = torch.randn(B, H, N, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
            k = torch.randn_like(q, requires_grad=True)
            v = torch.randn_like(q, requires_grad=True)
            do = torch.randn_like(q)
            flops = 10 * B * H * N * N * d * (0.5 if causal else 1.0)
            for name, be in backends.items():
                row = dict(what="attention_backward", backend=name, device=torch.cuda.get_device_name(),
                           torch=torch.__version__, B=B, H=H, N=N, d=d, causal=int(causal))
                try:
                    with sdpa_kernel(be):
                        o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        t = time_like_runner(lambda: torch.autograd.grad(o, (q, k, v), do, retain_graph=True))
                    row.update(t, tflops=flops / t["ms"] / 1e9)
                    del o
                except Exception as e:
                    row.update(error=type(e).__name__ + ": " + str(e)[:200])
                rows.append(row); print(json.dumps(row), flush=True)
            del q, k, v, do; torch.cuda.empty_cache()
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
