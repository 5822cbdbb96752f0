import triton
import triton.language as tl
X = '''never closed
