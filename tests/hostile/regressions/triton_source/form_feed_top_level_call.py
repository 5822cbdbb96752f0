import triton
import triton.language as tl
@triton.jit
def k(x):
    pass
print(1)
