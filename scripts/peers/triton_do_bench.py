#!/usr/bin/env python3
"""Time the ladders' Triton rungs as Triton itself launches them: the peer of the runner.

For each case (a ladder, a Triton rung and a problem), this script reads the rung from the
ladder's manifest (kernels/<ladder>/ladder.toml: the .py file, the kernel, its parameters'
defaults or the values given, the grid and the argument list), makes the problem's buffers
with PyTorch, launches the kernel through Triton's own JIT launcher (kernel[grid](...)) and
times it with triton.testing.do_bench (median; do_bench clears the L2 before every repetition
by zeroing a buffer larger than it, so the timing is cold-L2 like the runner's). A loose
check against PyTorch makes sure the launch computed the right thing.

It runs on the GPU machine only (python3 with torch and triton). Usage:
  python3 scripts/peers/triton_do_bench.py [--out FILE] CASE...
  CASE = ladder/rung[:key=value,...]   e.g. softmax/triton_softmax:rows=8192,cols=8192
Sizes not given take the ladder's defaults; parameters (BLOCK_M=64, num_warps=4) too.
Prints one line per case and writes a JSON list ({"tool": "triton.testing.do_bench", ...}).
"""
import argparse
import importlib.util
import inspect
import json
import math
import os
import re
import sys
import tomllib

import torch
import triton
import triton.testing

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/peers/ -> the repository
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def eval_expr(text, scope):
    """The manifests' integer expressions (docs/formats.md, section 1) in Python."""
    py = text.replace("&&", " and ").replace("||", " or ")
    py = re.sub(r"!(?!=)", " not ", py)
    py = re.sub(r"(?<![/])/(?![/])", "//", py)
    env = dict(scope)
    env.update({"cdiv": lambda a, b: -(-a // b), "min": min, "max": max,
                "pow2": lambda x: int(x > 0 and (x & (x - 1)) == 0), "log2": lambda x: int(math.log2(x))})
    return int(eval(py, {"__builtins__": {}}, env))


def buffers(op, s, dt):
    """The operation's buffers (as app/model/ops/*.cpp declare them), inputs random."""
    g = torch.Generator(device="cuda").manual_seed(1)
    rnd = lambda n, lo=-1.0, hi=1.0: (torch.rand(n, device="cuda", generator=g) * (hi - lo) + lo).to(dt)
    empty = lambda n, t=dt: torch.full((n, ), float("nan"), device="cuda", dtype=t)
    if op == "vector_add":
        return {"a": rnd(s["n"]), "b": rnd(s["n"]), "c": empty(s["n"])}
    if op == "gelu":
        return {"x": rnd(s["n"], -5, 5), "y": empty(s["n"])}
    if op == "softmax":
        n = s["rows"] * s["cols"]
        return {"in": rnd(n, -5, 5), "out": empty(n)}
    if op == "matmul":
        return {"A": rnd(s["M"] * s["K"]), "B": rnd(s["K"] * s["N"]), "C": empty(s["M"] * s["N"], torch.float32)}
    if op == "attention":
        n = s["B"] * s["H"] * s["N"] * s["d"]
        return {"Q": rnd(n, -6, 6), "K": rnd(n), "V": rnd(n), "O": empty(n),
                "lse": empty(s["B"] * s["H"] * s["N"], torch.float32)}
    if op == "add_layernorm":
        n = s["rows"] * s["cols"]
        return {"x": rnd(n), "r": rnd(n), "w": rnd(s["cols"], 0.5, 1.5), "b": rnd(s["cols"], -0.5, 0.5),
                "s": empty(n), "y": empty(n)}
    raise SystemExit("no buffers for operation " + op)


def work(op, s, esize):
    """(FLOPs, ideal bytes) as the engine's operations count them."""
    if op == "vector_add":
        return s["n"], 3 * s["n"] * esize
    if op == "gelu":
        return 9 * s["n"], 2 * s["n"] * esize
    if op == "softmax":
        return 0, 2 * s["rows"] * s["cols"] * esize
    if op == "matmul":
        return 2 * s["M"] * s["N"] * s["K"], 0
    if op == "attention":
        return 4 * s["B"] * s["H"] * s["N"] ** 2 * s["d"] * (0.5 if s["causal"] else 1.0), 0
    if op == "add_layernorm":
        n = s["rows"] * s["cols"]
        return 8 * n, (4 * n + 2 * s["cols"]) * esize


def check(op, s, b):
    """Largest error against PyTorch (a sanity check: the runner does the real one)."""
    f = lambda t: t.float()
    if op == "vector_add":
        return (f(b["c"]) - (f(b["a"]) + f(b["b"]))).abs().max().item()
    if op == "gelu":
        return (f(b["y"]) - torch.nn.functional.gelu(f(b["x"]), approximate="tanh")).abs().max().item()
    if op == "softmax":
        x = f(b["in"]).view(s["rows"], s["cols"])
        return (f(b["out"]).view_as(x) - torch.softmax(x, dim=1)).abs().max().item()
    if op == "matmul":
        ref = f(b["A"]).view(s["M"], s["K"]) @ f(b["B"]).view(s["K"], s["N"])
        return ((b["C"].view_as(ref) - ref).abs().max() / ref.abs().max()).item()
    if op == "attention":
        shape = (s["B"], s["H"], s["N"], s["d"])
        ref = torch.nn.functional.scaled_dot_product_attention(b["Q"].view(shape), b["K"].view(shape),
                                                               b["V"].view(shape), is_causal=bool(s["causal"]))
        return (f(b["O"]).view(shape) - f(ref)).abs().max().item()
    if op == "add_layernorm":
        x = f(b["x"]).view(s["rows"], s["cols"]) + f(b["r"]).view(s["rows"], s["cols"])
        ref = torch.nn.functional.layer_norm(x, (s["cols"], ), f(b["w"]), f(b["b"]), 1e-5)
        return (f(b["y"]).view_as(ref) - ref).abs().max().item()


def load_kernel(path, name):
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def run_case(case):
    target, _, rest = case.partition(":")
    ladder_id, rung_id = target.split("/")
    overrides = dict(kv.split("=") for kv in rest.split(",") if kv)
    dtype = overrides.pop("dtype", None)
    overrides = {k: int(v) for k, v in overrides.items()}
    with open(os.path.join(ROOT, "kernels", ladder_id, "ladder.toml"), "rb") as fh:
        manifest = tomllib.load(fh)
    ladder = manifest["ladder"]
    rung = next(r for r in manifest["rung"] if r["id"] == rung_id)
    op = rung.get("operation", ladder["operation"])
    dtype = dtype or rung.get("dtypes", ladder["dtypes"])[0]
    sizes = {k: overrides.get(k, v) for k, v in ladder["sizes"].items()}
    params = {k: overrides.get(k, p["default"]) for k, p in rung.get("params", {}).items()}
    esize = {"fp32": 4, "bf16": 2, "fp16": 2}[dtype]
    scope = dict(sizes, **params, esize=esize, num_sms=torch.cuda.get_device_properties(0).multi_processor_count)
    launch = next(l for l in rung["launch"] if "when" not in l or eval_expr(l["when"], scope))
    consts = {k: v for k, v in params.items() if k not in ("num_warps", "num_stages")}
    consts.update({k: eval_expr(v, scope) for k, v in rung.get("constexprs", {}).items()})
    bufs = buffers(op, sizes, DTYPES[dtype])
    args = []
    for a in launch["args"]:
        body, _, typ = a.partition(":")
        args.append(bufs[body] if body in bufs else eval_expr(body, scope))
    grid = tuple(eval_expr(g, scope) for g in launch["grid"])
    fn = load_kernel(os.path.join(ROOT, "kernels", ladder_id, rung["file"]), launch["entry"])
    go = lambda: fn[grid](*args, **consts, num_warps=params["num_warps"], num_stages=params["num_stages"])
    go()
    torch.cuda.synchronize()
    err = check(op, sizes, bufs)
    ms = triton.testing.do_bench(go, warmup=25, rep=400, return_mode="median")
    flops, nbytes = work(op, sizes, esize)
    return {"ladder": ladder_id, "rung": rung_id, "sizes": sizes, "params": params, "dtype": dtype,
            "median_ms": ms, "gbps": nbytes / ms / 1e6 if nbytes else None,
            "tflops": flops / ms / 1e9 if flops else None, "max_error": err}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("cases", nargs="+")
    opt = ap.parse_args()
    # Confirm, rather than assume, that do_bench clears the L2 before each repetition.
    src = inspect.getsource(triton.testing.do_bench)
    flushes = "clear_cache" in src or "cache.zero_()" in src
    # Through scripts/peers/peers_runner.py, do_bench is the runner's protocol, which flushes.
    protocol = getattr(triton.testing.do_bench, "kl_protocol", "triton.testing.do_bench(warmup=25, rep=400)")
    flushes = flushes or protocol != "triton.testing.do_bench(warmup=25, rep=400)"
    results = []
    for case in opt.cases:
        try:
            r = run_case(case)
        except Exception as e:  # one failed case must not lose the others
            r = {"case": case, "error": type(e).__name__ + ": " + " ".join(str(e).split())[:400]}
        results.append(r)
        if "error" in r:
            print("%-40s ERROR %s" % (case, r["error"]), flush=True)
        else:
            rate = "%8.1f GB/s" % r["gbps"] if r["gbps"] else "%8.1f TFLOP/s" % r["tflops"]
            print("%-40s %9.4f ms %s  max err %.2e" % (case, r["median_ms"], rate, r["max_error"]), flush=True)
    doc = {"tool": "triton.testing.do_bench", "triton_version": triton.__version__,
           "torch_version": torch.__version__, "device": torch.cuda.get_device_name(0),
           "do_bench_flushes_l2": flushes, "protocol": protocol, "return_mode": "median", "results": results}
    if opt.out:
        with open(opt.out, "w") as fh:
            json.dump(doc, fh, indent=1)
    print("do_bench flushes L2 before each repetition:", flushes)


if __name__ == "__main__":
    main()
