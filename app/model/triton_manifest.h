// The manifest's part for rung kinds (manifest.cpp calls it for every rung, after its launches):
// `kind` ("cuda", the default, or "triton"), a Triton rung's `constexprs` and its rules: a .py
// file, num_warps and num_stages among the parameters, kernel launches only, no `block` (a
// program is num_warps * 32 threads) and no `smem` (the compiler says how much), no tensor maps.
// A CUDA rung's kernel launches need a `block`.
#pragma once
#include <string>

#include <toml++/toml.h>

#include "base/toml_reader.h"
#include "model/manifest.h"

namespace kl {

void read_rung_kind(const TomlReader& r, const toml::table& t, const std::string& field, Rung& rung);

}  // namespace kl
