# Triton rung: the FlashAttention-2 backward in Triton, rung 3's plan on bf16 tensor cores.
#
# What changes from rung 3: the language, and tl.dot. Three kernels: the preprocess writes
# D = rowsum(dO * O); a program per BLOCK_N keys keeps K, V and the dK, dV accumulators and walks
# the query tiles that see its keys, recomputing P^T = exp(K Q^T / sqrt(d) - L) transposed (so
# that dV += P^T dO and dK += dS^T Q are plain tl.dot), dP^T = V dO^T and dS^T = P^T (dP^T - D);
# a program per BLOCK_M queries recomputes S, P, dP and dS against every key tile its rows see
# and accumulates dQ += dS K. No atomics, each output written once. P and dS are rounded to bf16
# before their products, as the tensor cores want them (the operation's tolerance allows it).
# Why it is fast: the five products run on the tensor cores (Triton picks mma or wgmma), and the
# compiler stages and pipelines the tiles (num_stages); rung 3's recomputation of S and dP in the
# dQ pass stays (7 products instead of 5).
# What to see: the distance to cuDNN's SDPA backward (scripts/peers_attention_backward.py), at
# d = 64 and 128: Triton's tutorial backward is known to be weak at d = 128 (triton-lang/triton
# issue 5437).
# What it needs: sm_80 (Ampere) or newer (Triton's bf16 tl.dot); bf16 data; a python3 with Triton
# (KL_PYTHON); scratch: D (B H N fp32).
import triton
import triton.language as tl


@triton.jit
def attn_bwd_pre(d_ptr, o_ptr, do_ptr, rows, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_D: tl.constexpr,
                 CAUSAL: tl.constexpr):
    r = tl.program_id(0).to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, HEAD_D)
    m = r[:, None] < rows
    at = r[:, None] * HEAD_D + rd[None, :]
    o = tl.load(o_ptr + at, mask=m, other=0.0).to(tl.float32)
    do = tl.load(do_ptr + at, mask=m, other=0.0).to(tl.float32)
    tl.store(d_ptr + r, tl.sum(o * do, axis=1), mask=r < rows)


@triton.jit
def attn_bwd_dkdv(dk_ptr, dv_ptr, q_ptr, k_ptr, v_ptr, do_ptr, l_ptr, d_ptr, N, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, HEAD_D: tl.constexpr, CAUSAL: tl.constexpr):
    kb = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    head = bh * N * HEAD_D
    rn = kb * BLOCK_N + tl.arange(0, BLOCK_N)
    rd = tl.arange(0, HEAD_D)
    kmask = rn[:, None] < N
    k = tl.load(k_ptr + head + rn[:, None] * HEAD_D + rd[None, :], mask=kmask, other=0.0)
    v = tl.load(v_ptr + head + rn[:, None] * HEAD_D + rd[None, :], mask=kmask, other=0.0)
    scale = 1.0 / tl.sqrt(tl.full([1], HEAD_D, tl.float32))
    dk = tl.zeros([BLOCK_N, HEAD_D], tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_D], tl.float32)
    if CAUSAL:
        start = ((kb * BLOCK_N) // BLOCK_M) * BLOCK_M
    else:
        start = 0
    for i0 in range(start, N, BLOCK_M):
        rm = i0 + tl.arange(0, BLOCK_M)
        qmask = rm[:, None] < N
        q = tl.load(q_ptr + head + rm[:, None] * HEAD_D + rd[None, :], mask=qmask, other=0.0)
        do = tl.load(do_ptr + head + rm[:, None] * HEAD_D + rd[None, :], mask=qmask, other=0.0)
        lse = tl.load(l_ptr + bh * N + rm, mask=rm < N, other=0.0)
        dd = tl.load(d_ptr + bh * N + rm, mask=rm < N, other=0.0)
        keep = (rm[None, :] < N) & (rn[:, None] < N)
        if CAUSAL:
            keep = keep & (rn[:, None] <= rm[None, :])
        pt = tl.where(keep, tl.exp(tl.dot(k, tl.trans(q)) * scale - lse[None, :]), 0.0)
        dv += tl.dot(pt.to(do.dtype), do)
        dst = pt * (tl.dot(v, tl.trans(do)) - dd[None, :])
        dk += tl.dot(dst.to(q.dtype), q)
    at = head + rn[:, None] * HEAD_D + rd[None, :]
    tl.store(dk_ptr + at, (dk * scale).to(dk_ptr.dtype.element_ty), mask=kmask)
    tl.store(dv_ptr + at, dv.to(dv_ptr.dtype.element_ty), mask=kmask)


@triton.jit
def attn_bwd_dq(dq_ptr, q_ptr, k_ptr, v_ptr, do_ptr, l_ptr, d_ptr, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                HEAD_D: tl.constexpr, CAUSAL: tl.constexpr):
    qb = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    head = bh * N * HEAD_D
    rm = qb * BLOCK_M + tl.arange(0, BLOCK_M)
    rd = tl.arange(0, HEAD_D)
    qmask = rm[:, None] < N
    q = tl.load(q_ptr + head + rm[:, None] * HEAD_D + rd[None, :], mask=qmask, other=0.0)
    do = tl.load(do_ptr + head + rm[:, None] * HEAD_D + rd[None, :], mask=qmask, other=0.0)
    lse = tl.load(l_ptr + bh * N + rm, mask=rm < N, other=0.0)
    dd = tl.load(d_ptr + bh * N + rm, mask=rm < N, other=0.0)
    scale = 1.0 / tl.sqrt(tl.full([1], HEAD_D, tl.float32))
    dq = tl.zeros([BLOCK_M, HEAD_D], tl.float32)
    if CAUSAL:
        end = tl.minimum((qb + 1) * BLOCK_M, N)
    else:
        end = N
    for j0 in range(0, end, BLOCK_N):
        rn = j0 + tl.arange(0, BLOCK_N)
        kmask = rn[:, None] < N
        k = tl.load(k_ptr + head + rn[:, None] * HEAD_D + rd[None, :], mask=kmask, other=0.0)
        v = tl.load(v_ptr + head + rn[:, None] * HEAD_D + rd[None, :], mask=kmask, other=0.0)
        keep = (rn[None, :] < N) & (rm[:, None] < N)
        if CAUSAL:
            keep = keep & (rn[None, :] <= rm[:, None])
        p = tl.where(keep, tl.exp(tl.dot(q, tl.trans(k)) * scale - lse[:, None]), 0.0)
        ds = p * (tl.dot(do, tl.trans(v)) - dd[:, None])
        dq += tl.dot(ds.to(k.dtype), k)
    tl.store(dq_ptr + head + rm[:, None] * HEAD_D + rd[None, :], (dq * scale).to(dq_ptr.dtype.element_ty), mask=qmask)
