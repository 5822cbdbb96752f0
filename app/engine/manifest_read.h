// What the manifest readers share (manifest.cpp, manifest_launch.cpp, triton_manifest.cpp);
// include only from them: it brings toml++, a large header-only library.
#pragma once

#include <string>

#include "manifest.h"
#include "toml_reader.h"

namespace kl::detail {

// An expression field: a string or an integer; fails naming the field.
Expr read_expr(const TomlReader& r, const toml::node& n, const std::string& field);

// One [[rung.launch]] table: a kernel entry (grid, block, shared memory, arguments, tensor maps)
// or a library routine (builtin).
LaunchSpec read_launch(TomlReader& r, const toml::table& t, const std::string& field);

}  // namespace kl::detail
