// What the manifest readers share (manifest_load.cpp, manifest_launch.cpp, triton_manifest.cpp,
// workspace.cpp);
// include only from them: it brings toml++, a large header-only library.
#pragma once

#include <string>

#include "base/toml_reader.h"
#include "model/manifest.h"
#include "model/operation.h"

namespace kl::detail {

// An expression field: a string or an integer; fails naming the field.
Expr read_expr(const TomlReader& r, const toml::node& n, const std::string& field);

// One [[rung.launch]] table: a kernel entry (grid, block, shared memory, arguments, tensor maps)
// or a library routine (builtin).
LaunchSpec read_launch(TomlReader& r, const toml::table& t, const std::string& field);

// A learner's [[rung]] of the workspace manifest (workspace.cpp), read like a ladder's own, and
// its buffer and size names checked against the operation.
Rung read_learner_rung(TomlReader& r, const toml::table& t, const std::string& field, const std::string& dir);
void check_rung_names(TomlReader& r, Rung& rung, const Operation& op, const std::string& field);

}  // namespace kl::detail
