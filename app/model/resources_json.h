// The results schema's v2 additions (docs/results-schema.md): the device's `limits` and each
// run's per-launch `resources`. Kept apart from results.cpp so the schema's core stays small.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/results.h"

namespace kl {

nlohmann::json limits_to_json(const DeviceLimits& l);
nlohmann::json resources_to_json(const std::vector<LaunchResources>& list);
// Throw InputError "<origin>: <field>.<key>: <problem>" on a value of the wrong type.
DeviceLimits limits_from_json(const nlohmann::json& j, const std::string& origin, const std::string& field);
std::vector<LaunchResources> resources_from_json(const nlohmann::json& j, const std::string& origin,
                                                 const std::string& field);

}  // namespace kl
