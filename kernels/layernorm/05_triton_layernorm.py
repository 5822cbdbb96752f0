# Triton rung: residual add + LayerNorm in one Triton kernel, one program per row.
#
# What changes from the CUDA rungs: the language. The row of x and r is loaded once (BLOCK wide,
# masked), s = x + r is stored for the next residual, and the statistics come from the values
# already in registers: mean, then the variance of (s - mean) (two-pass, like CUDA rung 02, but the
# second pass reads registers, not memory: rung 04's idea). Statistics in fp32 whatever the storage
# type; the loads and stores convert.
# Why it is fast: Triton generates the vectorized, coalesced loads and the block reductions
# (shuffles + shared memory) that rungs 02-04 wrote by hand.
# What to see: the copy roof from a kernel of twenty lines.
# What it needs: any GPU the workbook runs on (sm_75 and newer); fp32, bf16 or fp16 data; rows no
# longer than BLOCK (the manifest's constraint, cols <= BLOCK); a python3 with Triton (KL_PYTHON).
import triton
import triton.language as tl


@triton.jit
def add_layernorm(s_ptr, y_ptr, x_ptr, r_ptr, w_ptr, b_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row.to(tl.int64) * cols
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
    s = x + r
    tl.store(s_ptr + base + offs, s.to(s_ptr.dtype.element_ty), mask=mask)
    # Rounded to the storage type first: the reference normalizes the s it stored.
    s = s.to(s_ptr.dtype.element_ty).to(tl.float32)
    mean = tl.sum(s, axis=0) / cols
    d = tl.where(mask, s - mean, 0.0)
    var = tl.sum(d * d, axis=0) / cols
    rstd = 1.0 / tl.sqrt(var + 1e-5)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = d * rstd * w + b
    tl.store(y_ptr + base + offs, y.to(y_ptr.dtype.element_ty), mask=mask)
