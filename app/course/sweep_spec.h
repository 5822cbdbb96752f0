// Sweeps that lessons define: a step names the values its sweep runs (a list, or a range with a
// linear or geometric step) and the size axes tied to the swept one (M = N = K = n). The window
// and `kladder sweep` (without --values) use them. Format: docs/formats.md, section 2.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/toml_reader.h"

namespace kl {

struct SweepSpec {
    std::string axis;
    std::vector<int64_t> values;   // empty: the window's default choice
    std::vector<std::string> tie;  // size axes set to the same value as `axis` at every point
};

// Reads `sweep = { axis = "N", values = [...] | from = A, to = B, by = S | times = F, tie = [...] }`
// of a lesson step. Throws InputError "<file>:<line>: <field>: <problem>".
SweepSpec read_sweep_spec(const TomlReader& r, const toml::node& node, const std::string& field);

// from, from + by, ... <= to; or from, from x times, ... <= to. At most 64 values.
// Throws InputError (message without a location) on an empty or oversized range.
std::vector<int64_t> expand_sweep_range(int64_t from, int64_t to, int64_t by, int64_t times);

}  // namespace kl
