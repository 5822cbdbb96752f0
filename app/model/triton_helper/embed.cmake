# cmake -DIN=kl_triton_compile.py -DOUT=kl_triton_helper_source.h [-DNAME=TritonHelper] -P embed.cmake
# (NAME names the array: k<NAME>Source and k<NAME>SourceSize; the PyTorch peers embed theirs too.)
# Writes the helper's bytes as a C array, so that the program carries the helper and never reads
# one from a kernels tree (app/model/triton_child.h). Bytes, not a string literal: any text is
# embedded exactly.
if(NOT DEFINED NAME)
  set(NAME TritonHelper)
endif()
get_filename_component(in_name "${IN}" NAME)
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR size "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
# One line of C per line of Python.
string(REPLACE "'\\x0a'," "'\\x0a',\n    " bytes "${bytes}")
file(WRITE "${OUT}.tmp"
     "// Generated from ${in_name} by embed.cmake: do not edit.\n"
     "#pragma once\n#include <cstddef>\n"
     "static const char k${NAME}Source[] = {\n    ${bytes}'\\0'};\n"
     "static const size_t k${NAME}SourceSize = ${size};\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
