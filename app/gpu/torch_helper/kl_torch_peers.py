# The PyTorch peers, run inside the runner's process by app/gpu/torch_bridge.cpp (issue "One
# clock", part 3). Embedded in the program at build time: a kernels tree names a peer from the
# table below (`builtin = "torch.<name>"`) and can neither provide nor replace this text.
#
# The runner owns everything but the call: it allocates the ladder's buffers and fills the inputs,
# poisons the outputs, flushes L2, holds the GPU, brackets the call with its CUDA events and
# watches the clock (app/gpu/timing.cpp), exactly as for its own rungs. Here the buffers become
# tensors without a copy (__cuda_array_interface__), and a call runs the peer on the runner's
# stream. The checking call copies the peer's result into the ladder's output buffers, where the
# runner compares them with its reference; the timed calls run the peer as a program would call it
# (outputs from PyTorch's caching allocator, reused call after call) and copy nothing.
import json

import torch
import torch.nn.functional as F

_STORAGE = {4: torch.float32, 2: torch.bfloat16, 1: torch.float8_e4m3fn}
_SAME_WIDTH_INT = {torch.float32: "<i4", torch.bfloat16: "<i2", torch.float8_e4m3fn: "|i1"}
_STREAMS = {}
_PEERS = {}


class _DeviceMemory:
    """A buffer of the runner's, described for torch.as_tensor (no copy, no ownership)."""

    def __init__(self, address, elements, typestr):
        self.__cuda_array_interface__ = {
            "shape": (int(elements),), "typestr": typestr, "data": (int(address), False),
            "version": 3, "strides": None, "stream": None}


def _tensor(address, shape, dtype):
    elements = 1
    for extent in shape:
        elements *= int(extent)
    raw = torch.as_tensor(_DeviceMemory(address, elements, _SAME_WIDTH_INT[dtype]), device="cuda")
    return raw.view(dtype).view(*shape)


def _compiled(fn):
    # The default mode: fused Triton kernels, no CUDA graphs (a graph would hide the launches the
    # rungs pay for). Compiled on the checking call, before any timed call. Intermediates are
    # rounded to the storage type where eager rounds them (x + r in bf16 before the LayerNorm), so
    # that both compute what the ladder's reference computes.
    torch._inductor.config.emulate_precision_casts = True
    return torch.compile(fn, dynamic=False)


def _gelu(y, x, n, esize, compiled):
    dtype = _STORAGE[esize]
    x_t = _tensor(x, (n,), dtype)
    fn = lambda: F.gelu(x_t, approximate="tanh")
    if compiled:
        fn = _compiled(lambda: F.gelu(x_t, approximate="tanh"))
    return fn, [(_tensor(y, (n,), dtype), 0)]


def _add(c, a, b, n, esize):
    dtype = _STORAGE[esize]
    a_t, b_t = _tensor(a, (n,), dtype), _tensor(b, (n,), dtype)
    return (lambda: torch.add(a_t, b_t)), [(_tensor(c, (n,), dtype), 0)]


def _softmax(out, inp, rows, cols, esize, compiled):
    # The ladder defines a row of all -inf as zeros (as FlashAttention does); torch.softmax gives
    # NaN there. The peer meets the ladder's definition the way a PyTorch program would: eager
    # pays a second pass for it (nan_to_num_), torch.compile fuses it into its one kernel.
    dtype = _STORAGE[esize]
    x_t = _tensor(inp, (rows, cols), dtype)
    fn = lambda: torch.softmax(x_t, dim=-1).nan_to_num_(0.0)
    if compiled:
        fn = _compiled(lambda: torch.softmax(x_t, dim=-1).nan_to_num(0.0))
    return fn, [(_tensor(out, (rows, cols), dtype), 0)]


def _transpose(out, inp, rows, cols, esize):
    dtype = _STORAGE[esize]
    x_t = _tensor(inp, (rows, cols), dtype)
    return (lambda: x_t.t().contiguous()), [(_tensor(out, (cols, rows), dtype), 0)]


def _add_layernorm(y, s, x, r, w, b, rows, cols, esize, compiled):
    dtype = _STORAGE[esize]
    x_t, r_t = _tensor(x, (rows, cols), dtype), _tensor(r, (rows, cols), dtype)
    w_t, b_t = _tensor(w, (cols,), dtype), _tensor(b, (cols,), dtype)

    def eager():
        total = x_t + r_t
        return total, F.layer_norm(total, (cols,), w_t, b_t, 1e-5)

    fn = _compiled(eager) if compiled else eager
    return fn, [(_tensor(s, (rows, cols), dtype), 0), (_tensor(y, (rows, cols), dtype), 1)]


def _sdpa(o, lse, q, k, v, batch, heads, n, d, causal, esize, backend):
    dtype = _STORAGE[esize]
    shape = (batch, heads, n, d)
    q_t, k_t, v_t = (_tensor(p, shape, dtype) for p in (q, k, v))
    scale = 1.0 / (d ** 0.5)
    if backend == "cudnn":
        # The op SDPA dispatches to for this backend, asked for the log-sum-exp the ladder checks.
        fn = lambda: torch.ops.aten._scaled_dot_product_cudnn_attention(
            q_t, k_t, v_t, None, True, 0.0, bool(causal), False, scale=scale)[:2]
    else:
        fn = lambda: torch.ops.aten._scaled_dot_product_flash_attention(
            q_t, k_t, v_t, 0.0, bool(causal), False, scale=scale)[:2]
    lse_t = _tensor(lse, (batch, heads, n), torch.float32)
    return fn, [(_tensor(o, shape, dtype), 0), (lse_t, 1)]


def _sdpa_backward(dq, dk, dv, do, q, k, v, batch, heads, n, d, causal, esize, backend):
    # What autograd runs for SDPA's backward under this backend: aten's backward op, given the
    # output, log-sum-exp and random state its own forward saved (the forward runs once here,
    # untimed, on the runner's inputs, as autograd would have run it), dQ, dK, dV from dO.
    dtype = _STORAGE[esize]
    shape = (batch, heads, n, d)
    q_t, k_t, v_t, do_t = (_tensor(p, shape, dtype) for p in (q, k, v, do))
    scale = 1.0 / (d ** 0.5)
    torch.cuda.synchronize()
    if backend == "cudnn":
        out, lse, cum_q, cum_k, max_q, max_k, seed, offset, _ = torch.ops.aten._scaled_dot_product_cudnn_attention(
            q_t, k_t, v_t, None, True, 0.0, bool(causal), False, scale=scale)
        fn = lambda: torch.ops.aten._scaled_dot_product_cudnn_attention_backward(
            do_t, q_t, k_t, v_t, out, lse, seed, offset, None, cum_q, cum_k, max_q, max_k, 0.0, bool(causal),
            scale=scale)
    else:
        out, lse, cum_q, cum_k, max_q, max_k, seed, offset, _ = torch.ops.aten._scaled_dot_product_flash_attention(
            q_t, k_t, v_t, 0.0, bool(causal), False, scale=scale)
        fn = lambda: torch.ops.aten._scaled_dot_product_flash_attention_backward(
            do_t, q_t, k_t, v_t, out, lse, cum_q, cum_k, max_q, max_k, 0.0, bool(causal), seed, offset,
            scale=scale)
    torch.cuda.synchronize()
    return fn, [(_tensor(dq, shape, dtype), 0), (_tensor(dk, shape, dtype), 1), (_tensor(dv, shape, dtype), 2)]


def _mm(c, a, b, m, n, k):
    # bf16 inputs, fp32 output and sums: the ladder's C, without a conversion pass.
    a_t, b_t = _tensor(a, (m, k), torch.bfloat16), _tensor(b, (k, n), torch.bfloat16)
    return (lambda: torch.mm(a_t, b_t, out_dtype=torch.float32)), [(_tensor(c, (m, n), torch.float32), 0)]


def _mlp(y, h, x, w1, w2, tokens, d_model, hidden, compiled):
    # Linear, GeLU, Linear as a PyTorch program writes it (no biases, as the ladder): H in bf16,
    # Y in fp32 straight from the second product. Eager runs three kernels; what torch.compile
    # makes of it is what the profiling lesson counts.
    x_t = _tensor(x, (tokens, d_model), torch.bfloat16)
    w1_t = _tensor(w1, (d_model, hidden), torch.bfloat16)
    w2_t = _tensor(w2, (hidden, d_model), torch.bfloat16)

    def forward():
        hidden_t = F.gelu(x_t @ w1_t, approximate="tanh")
        return hidden_t, torch.mm(hidden_t, w2_t, out_dtype=torch.float32)

    fn = _compiled(forward) if compiled else forward
    outputs = [(_tensor(h, (tokens, hidden), torch.bfloat16), 0), (_tensor(y, (tokens, d_model), torch.float32), 1)]
    return fn, outputs


def _norm_backward(dx, dgamma, dbeta, s, dy, w, mean, rstd, rows, cols, esize, rms):
    # The op autograd runs for F.layer_norm's backward (LayerNormBackward0), or for F.rms_norm's
    # fused CUDA kernel, given the ladder's saved statistics (fp32, one per row, as PyTorch keeps
    # them): torch autograd's backward without a graph to keep, so every call reads the inputs the
    # runner filled for it. Bias only tells the op dbeta's shape: zeros, made once, untimed.
    dtype = _STORAGE[esize]
    s_t, dy_t = _tensor(s, (rows, cols), dtype), _tensor(dy, (rows, cols), dtype)
    w_t = _tensor(w, (cols,), dtype)
    rstd_t = _tensor(rstd, (rows, 1), torch.float32)
    outputs = [(_tensor(dx, (rows, cols), dtype), 0), (_tensor(dgamma, (cols,), dtype), 1)]
    if rms:
        fn = lambda: torch.ops.aten._fused_rms_norm_backward(dy_t, s_t, [cols], rstd_t, w_t, [True, True])
        return fn, outputs
    mean_t = _tensor(mean, (rows, 1), torch.float32)
    bias_t = torch.zeros((cols,), dtype=dtype, device="cuda")
    fn = lambda: torch.ops.aten.native_layer_norm_backward(
        dy_t, s_t, [cols], mean_t, rstd_t, w_t, bias_t, [True, True, True])
    return fn, outputs + [(_tensor(dbeta, (cols,), dtype), 2)]


# name -> (argument count, builder). Arguments as the manifest lists them (pointers, then sizes).
_TABLE = {
    "torch.add": (5, lambda a: _add(*a)),
    "torch.gelu_tanh": (4, lambda a: _gelu(*a, compiled=False)),
    "torch.compile.gelu_tanh": (4, lambda a: _gelu(*a, compiled=True)),
    "torch.softmax": (5, lambda a: _softmax(*a, compiled=False)),
    "torch.compile.softmax": (5, lambda a: _softmax(*a, compiled=True)),
    "torch.transpose": (5, lambda a: _transpose(*a)),
    "torch.add_layernorm": (9, lambda a: _add_layernorm(*a, compiled=False)),
    "torch.compile.add_layernorm": (9, lambda a: _add_layernorm(*a, compiled=True)),
    "torch.sdpa_cudnn": (11, lambda a: _sdpa(*a, backend="cudnn")),
    "torch.sdpa_flash": (11, lambda a: _sdpa(*a, backend="flash")),
    "torch.sdpa_backward_cudnn": (13, lambda a: _sdpa_backward(*a, backend="cudnn")),
    "torch.sdpa_backward_flash": (13, lambda a: _sdpa_backward(*a, backend="flash")),
    "torch.mm_bf16": (6, lambda a: _mm(*a)),
    "torch.mlp": (8, lambda a: _mlp(*a, compiled=False)),
    "torch.compile.mlp": (8, lambda a: _mlp(*a, compiled=True)),
    "torch.layernorm_backward": (11, lambda a: _norm_backward(*a, rms=False)),
    "torch.rmsnorm_backward": (11, lambda a: _norm_backward(*a, rms=True)),
}


def kl_peer_names():
    return "\n".join(sorted(_TABLE))


def _stream(address):
    if address not in _STREAMS:
        _STREAMS[address] = torch.cuda.ExternalStream(address)
    return _STREAMS[address]


def _as_list(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def kl_peer_call(request, stream, checking):
    """Runs one peer call on `stream`; returns "" or the one line saying what went wrong."""
    try:
        peer = _PEERS.get(request)
        if peer is None:
            spec = json.loads(request)
            name, args = spec["name"], spec["args"]
            if name not in _TABLE:
                return f"unknown PyTorch peer '{name}'"
            count, build = _TABLE[name]
            if len(args) != count:
                return f"{name} takes {count} arguments, the manifest gives {len(args)}"
            peer = _PEERS[request] = build(args)
        fn, outputs = peer
        with torch.cuda.stream(_stream(stream)):
            result = _as_list(fn())
            if checking:
                for target, index in outputs:
                    target.copy_(result[index].reshape(target.shape))
        return ""
    except Exception as e:  # the runner turns it into one line naming the rung
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
