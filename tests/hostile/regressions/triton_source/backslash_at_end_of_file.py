import triton
import triton.language as tl
X = 1\