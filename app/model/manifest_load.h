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

// After the rungs are read (manifest_load.cpp): numbers each rung (its `number`, its file's number,
// R1.. for references, else its position), makes the lab twin "<id>_lab" of each rung with lab
// switches (which the teaching rung then pins at their defaults), moves lab rungs to
// Ladder::lab_rungs, and refuses a teaching rung with more than kTeachingParams free parameters, a
// duplicate number and a twin whose id is taken ("<file>:<line>: rung 'ID'...: <problem>").
void finish_rungs(Ladder& L);

// Every kernels/*/ladder.toml, sorted by folder name. Manifests that fail to load are
// reported in `errors` (one line each) and left out.
std::vector<Ladder> load_all_ladders(const std::string& kernels_root, std::vector<std::string>* errors);

}  // namespace kl
