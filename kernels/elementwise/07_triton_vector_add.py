# Triton rung: vector add, c = a + b, written in Triton instead of CUDA.
#
# What changes from the CUDA rungs: nothing in the algorithm. A program (Triton's word for a block)
# owns BLOCK consecutive elements and works on them as one tensor; there are no threads to index.
# Why it is fast: the compiler picks the layout: each thread gets contiguous elements, and because
# the engine tells it the pointers and n are multiples of 16 it issues 16-byte vector loads, which
# the CUDA ladder had to write by hand (rung 04's float4).
# What to see: the same GB/s as the best CUDA rung, from a dozen lines. num_warps sets the threads
# per program (x 32).
# What it needs: any GPU the workbook runs on (sm_75 and newer); fp32 data; a python3 with Triton
# (KL_PYTHON).
import triton
import triton.language as tl


@triton.jit
def vector_add(c_ptr, a_ptr, b_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offs = start + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(c_ptr + offs, a + b, mask=mask)
