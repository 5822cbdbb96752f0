// What a Triton rung's .py may hold, checked in C++ before any Python sees the file (the first of
// three layers; docs/security.md, "What a shared tree can and cannot make the program do"):
//   - imports: exactly `import triton`, `import triton.language as tl`, `import math`;
//   - at the top level otherwise only @triton.jit functions (parameters NAME or NAME: tl.constexpr,
//     literal defaults, no return annotation), constants (NAME = literal, NAME =
//     tl.constexpr(literal)) and string literals (docstrings);
//   - anywhere: no name that starts with "__", none of kForbiddenNames (eval, exec, open,
//     getattr, os, sys...), no f-string, no ';', no backslash outside strings, no control or
//     non-ASCII character outside strings and comments, no source encoding but UTF-8;
//   - inside functions: no import, class, lambda, def, global, nonlocal, async, await, yield,
//     decorator, and no `triton.` (kernels use tl).
// Python's structure is read by a small tokenizer that knows strings (prefixes, triple quotes,
// escapes), comments, line continuations, bracket nesting and indentation as Python counts it
// (\r, \r\n and \n end lines). It is total: any bytes give a verdict, never a crash.
// The helper checks the same rules again with Python's own parser (ast) before it runs the file.
#pragma once
#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace kl {

constexpr size_t kMaxTritonSourceBytes = size_t(1) << 20;

// The names of the file's @triton.jit functions, in order. Throws InputError
// "PATH:LINE: what was found: the rule" on the first thing outside the rules.
std::vector<std::string> check_triton_source(const std::string& text, const std::string& path);

// The names refused anywhere (besides every name starting with "__"); the helper's
// FORBIDDEN_NAMES is the same list (tests/engine/test_triton_source.cpp compares them).
const std::set<std::string>& triton_forbidden_names();

// Reads the rung's file (a regular file of at most 1 MiB) and checks it; returns its bytes.
std::string read_checked_triton_source(const std::string& path, std::vector<std::string>* kernels = nullptr);

}  // namespace kl
