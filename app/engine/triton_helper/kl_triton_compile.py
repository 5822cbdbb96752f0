#!/usr/bin/env python3
"""Compile one @triton.jit kernel of a Triton rung to a cubin, for the Kernel Ladder engine.

The engine (app/engine/triton_rung.cpp) runs this file with the learner's python3 (KL_PYTHON,
else python3 on PATH), as `python3 kl_triton_compile.py` with one JSON request on stdin, and
reads one JSON answer on stdout. Nothing else is printed on stdout. The contract
(docs/formats.md, section 1, "Triton rungs"):

  --probe (argument, no stdin): {"ok": true, "triton_version": "3.6.0"}, or exit 3 with one
  line on stderr when Triton cannot be imported.

  request {
    "source": "/abs/kernels/softmax/07_triton_softmax.py",  # a file with the @triton.jit kernel
    "kernel": "softmax_rows",                               # its name
    "signature": [{"type": "*fp32", "div16": true}, ...],   # the kernel's arguments that are not
                                                            #   constexprs, in order: "*fp32",
                                                            #   "*bf16", "*fp16", "i32", "i64",
                                                            #   "fp32"; div16: the value (or the
                                                            #   pointer) is a multiple of 16
    "constexprs": {"BLOCK": 1024},                          # every tl.constexpr argument
    "num_warps": 4, "num_stages": 3, "arch": 90
  }
  answer {
    "ok": true, "triton_version": "3.6.0", "name": "softmax_rows",
    "params": ["y_ptr", "x_ptr", "n_rows", "n_cols"],       # the kernel's parameters, in order;
                                                            #   the cubin's entry takes these,
                                                            #   then the global and the profile
                                                            #   scratch pointers
    "cubin_base64": "...", "ptx": "...", "ttgir": "...",
    "metadata": {"shared": 0, "num_warps": 4, "num_stages": 3, "num_ctas": 1,
                 "global_scratch_size": 0, "global_scratch_align": 1,
                 "profile_scratch_size": 0, "profile_scratch_align": 1}
  }
  or, exit 1: {"ok": false, "error": "one line"}.
"""
import base64
import importlib.util
import json
import sys

POINTER_TYPES = {"*fp32", "*bf16", "*fp16", "*i32", "*i64"}
SCALAR_TYPES = {"i32", "i64", "fp32"}


class Refusal(Exception):
    pass


def one_line(text):
    text = " ".join(str(text).split())
    return text[:600]


def import_triton():
    try:
        import triton  # noqa: F401
        return triton
    except Exception as e:  # ImportError, or a broken installation
        raise Refusal("cannot import triton: " + one_line(e))


def load_kernel(path, name):
    spec = importlib.util.spec_from_file_location("kl_triton_rung", path)
    if spec is None or spec.loader is None:
        raise Refusal(path + ": not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except FileNotFoundError:
        raise Refusal(path + ": not found")
    except Exception as e:
        raise Refusal(path + ": " + type(e).__name__ + ": " + one_line(e))
    fn = getattr(module, name, None)
    if fn is None:
        raise Refusal(path + ": no function '" + name + "'")
    if not hasattr(fn, "arg_names") or not hasattr(fn, "constexprs"):
        raise Refusal(path + ": '" + name + "' is not a @triton.jit function")
    return fn


def build_source(fn, req):
    from triton.compiler import ASTSource

    names = list(fn.arg_names)
    const_idx = set(fn.constexprs)
    runtime_names = [n for i, n in enumerate(names) if i not in const_idx]
    const_names = [n for i, n in enumerate(names) if i in const_idx]
    sig_in = req.get("signature", [])
    consts = req.get("constexprs", {})
    if len(sig_in) != len(runtime_names):
        raise Refusal("kernel %s takes %d arguments besides constexprs (%s); the manifest gives %d" %
                      (fn.__name__, len(runtime_names), ", ".join(runtime_names), len(sig_in)))
    missing = [n for n in const_names if n not in consts]
    if missing:
        raise Refusal("kernel %s: constexpr %s has no value (add it to the rung's params or constexprs)" %
                      (fn.__name__, ", ".join(missing)))
    extra = [n for n in consts if n not in const_names]
    if extra:
        raise Refusal("kernel %s has no constexpr argument %s (its constexprs: %s)" %
                      (fn.__name__, ", ".join(extra), ", ".join(const_names) or "none"))
    signature, attrs = {}, {}
    it = iter(sig_in)
    for i, n in enumerate(names):
        if n in consts:
            signature[n] = "constexpr"
            continue
        arg = next(it)
        t = arg.get("type", "")
        if t not in POINTER_TYPES and t not in SCALAR_TYPES:
            raise Refusal("argument %s: unknown type '%s'" % (n, t))
        signature[n] = t
        if arg.get("div16"):
            attrs[(i, )] = [["tt.divisibility", 16]]
    constexprs = {(names.index(n), ): v for n, v in consts.items()}
    return ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs), runtime_names


def metadata_of(kernel):
    md = kernel.metadata
    md = md._asdict() if hasattr(md, "_asdict") else dict(md)
    keys = {"shared": 0, "num_warps": 0, "num_stages": 0, "num_ctas": 1, "global_scratch_size": 0,
            "global_scratch_align": 1, "profile_scratch_size": 0, "profile_scratch_align": 1}
    out = {}
    for k, default in keys.items():
        v = md.get(k, default)
        out[k] = int(v) if isinstance(v, (int, float)) else default
    out["name"] = str(md.get("name", ""))
    return out


def compile_request(req):
    triton = import_triton()
    from triton.backends.compiler import GPUTarget

    for key in ("source", "kernel", "num_warps", "num_stages", "arch"):
        if key not in req:
            raise Refusal("request: missing '" + key + "'")
    fn = load_kernel(req["source"], req["kernel"])
    src, runtime_names = build_source(fn, req)
    target = GPUTarget("cuda", int(req["arch"]), 32)
    options = {"num_warps": int(req["num_warps"]), "num_stages": int(req["num_stages"])}
    try:
        kernel = triton.compile(src, target=target, options=options)
    except Exception as e:
        raise Refusal("triton.compile of %s: %s: %s" % (req["kernel"], type(e).__name__, one_line(e)))
    asm = kernel.asm
    md = metadata_of(kernel)
    return {
        "ok": True,
        "triton_version": triton.__version__,
        "name": md.pop("name") or req["kernel"],
        "params": runtime_names,
        "cubin_base64": base64.b64encode(asm["cubin"]).decode("ascii"),
        "ptx": asm.get("ptx", ""),
        "ttgir": asm.get("ttgir", ""),
        "metadata": md,
    }


def main(argv):
    # Only the answer goes to stdout: anything Triton or the rung prints goes to stderr.
    out = sys.stdout
    sys.stdout = sys.stderr
    if "--probe" in argv[1:]:
        try:
            triton = import_triton()
        except Refusal as e:
            print(str(e), file=sys.stderr)
            return 3
        print(json.dumps({"ok": True, "triton_version": triton.__version__}), file=out)
        return 0
    try:
        req = json.loads(sys.stdin.read())
        if not isinstance(req, dict):
            raise Refusal("request: expected a JSON object")
        answer = compile_request(req)
    except Refusal as e:
        print(json.dumps({"ok": False, "error": one_line(e)}), file=out)
        return 1
    except json.JSONDecodeError as e:
        print(json.dumps({"ok": False, "error": "request is not JSON: " + one_line(e)}), file=out)
        return 1
    print(json.dumps(answer), file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
