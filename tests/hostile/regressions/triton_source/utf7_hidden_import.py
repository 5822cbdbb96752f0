# coding: utf-7
import triton
import triton.language as tl
+AAo-import os
