# Triton rung: the blocked GEMM of the Triton tutorial, bf16 inputs, fp32 sums and output.
#
# What changes from the CUDA rungs: the language. A program computes one BLOCK_M x BLOCK_N tile
# of C, walking K in BLOCK_K steps: load a tile of A and one of B, tl.dot them into an fp32
# accumulator. That is all the source says.
# Why it is fast: the compiler does what CUDA rungs 03-12 did by hand: it stages the tiles through shared memory
# (swizzled, no bank conflicts), pipelines num_stages of them with asynchronous copies (TMA
# or cp.async), and issues tensor-core instructions (wgmma on Hopper) for tl.dot.
# GROUP_M is the one idea the source keeps: programs are ordered so that GROUP_M row-tiles
# of C are finished together, and the A and B tiles they share stay in L2. GROUP_M = 1 is
# plain row-major order.
# What to see: tensor-core speed from ~30 lines, and the L2 effect of
# grouping at large sizes (compare GROUP_M = 1 and 8).
# What it needs: sm_80 (Ampere) or newer: Triton's bf16 tl.dot needs Ampere tensor cores; bf16 data;
# a python3 with Triton (KL_PYTHON).
import triton
import triton.language as tl


@triton.jit
def matmul_blocked(c_ptr, a_ptr, b_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    # Grouped order: GROUP_M tile-rows at a time, column by column inside the group.
    per_group = GROUP_M * tiles_n
    group = pid // per_group
    first_m = group * GROUP_M
    group_rows = min(tiles_m - first_m, GROUP_M)
    tile_m = first_m + (pid % per_group) % group_rows
    tile_n = (pid % per_group) // group_rows

    rm = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None].to(tl.int64) * N + rn[None, :]
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * N
    c_ptrs = c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :]
    tl.store(c_ptrs, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))
