// The program's name and version as results files and `--version` show them. The version is
// CMake's project(VERSION ...), passed to every target as KL_VERSION (CMakeLists.txt).
#pragma once

#ifndef KL_VERSION
#error "KL_VERSION must come from CMake (add_compile_definitions in the top-level CMakeLists.txt)"
#endif

namespace kl {
inline constexpr const char* kToolName = "kladder " KL_VERSION;  // e.g. "kladder 0.1.0"
}  // namespace kl
