// Reading ladders: kernels/<id>/ladder.toml, parsed and validated against its operation
// (docs/formats.md, section 1). A malformed file is refused with one line naming it, the line and
// the field.
#pragma once
#include <string>
#include <vector>

#include "model/manifest.h"

namespace kl {

// Parses and validates one manifest; throws InputError "<file>:<line>: <field>: <problem>".
Ladder load_ladder(const std::string& manifest_path);

// Every kernels/*/ladder.toml, sorted by folder name. Manifests that fail to load are
// reported in `errors` (one line each) and left out.
std::vector<Ladder> load_all_ladders(const std::string& kernels_root, std::vector<std::string>* errors);

}  // namespace kl
