# Triton rung: FlashAttention-2 forward in Triton, bf16 tensor cores, causal and not.
#
# What changes from the CUDA rungs: the language. A program owns BLOCK_M query rows of one (batch, head). It streams K and V in BLOCK_N-row
# tiles: S = Q K^T with tl.dot, the online softmax (running row max m and sum l, the
# accumulator rescaled by exp(m_old - m_new)), then acc += P V with a second tl.dot, P cast to
# bf16 as the tensor cores want it. At the end O = acc / l and lse = m + log(l) (natural log),
# the number per row that the backward pass needs. With CAUSAL, the loop stops at the
# diagonal and only the diagonal tile is masked, so causal costs about half. The same
# algorithm as CUDA rung 04.
# Why it is fast: Triton does for us the shared-memory staging and
# swizzles, the pipelined K/V loads (num_stages), the wgmma/mma fragments of both products,
# and the register layout conversions between them. Scores use exp2 with log2(e) folded into
# the scale, as FlashAttention does.
# What to see: how close ~50 lines come to the CUDA rung.
# What it needs: sm_80 (Ampere) or newer: Triton's bf16 tl.dot needs Ampere tensor cores; bf16 data;
# a python3 with Triton (KL_PYTHON).
import triton
import triton.language as tl


@triton.jit
def flash_fwd(o_ptr, lse_ptr, q_ptr, k_ptr, v_ptr, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              HEAD_D: tl.constexpr, CAUSAL: tl.constexpr):
    qb = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    head = bh * N * HEAD_D
    rm = qb * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rd = tl.arange(0, HEAD_D)
    q = tl.load(q_ptr + head + rm[:, None] * HEAD_D + rd[None, :], mask=rm[:, None] < N, other=0.0)
    # 1/sqrt(d) and log2(e) in one factor: scores in base 2.
    scale = 1.4426950408889634 / tl.sqrt(tl.full([1], HEAD_D, tl.float32))
    m = tl.full([BLOCK_M], -float("inf"), tl.float32)
    l = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_D], tl.float32)
    if CAUSAL:
        end = tl.minimum((qb + 1) * BLOCK_M, N)
    else:
        end = N
    for start in range(0, end, BLOCK_N):
        kn = start + rn
        k = tl.load(k_ptr + head + kn[:, None] * HEAD_D + rd[None, :], mask=kn[:, None] < N, other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        keep = kn[None, :] < N
        if CAUSAL:
            keep = keep & (kn[None, :] <= rm[:, None])
        s = tl.where(keep, s, -float("inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp2(m - m_new)
        p = tl.exp2(s - m_new[:, None])
        l = l * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + head + kn[:, None] * HEAD_D + rd[None, :], mask=kn[:, None] < N, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m = m_new
    out = acc / l[:, None]
    tl.store(o_ptr + head + rm[:, None] * HEAD_D + rd[None, :], out.to(o_ptr.dtype.element_ty), mask=rm[:, None] < N)
    # m is in base 2: lse (natural) = (m + log2(l)) * ln(2).
    tl.store(lse_ptr + bh * N + rm, (m + tl.log2(l)) * 0.6931471805599453, mask=rm < N)
