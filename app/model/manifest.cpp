// A ladder's types: what a parameter accepts, finding a rung and a parameter by name. Reading a
// ladder.toml is manifest_load.cpp; a rung's launches, manifest_launch.cpp; resolving a rung for
// a problem, manifest_resolve.cpp.
#include "model/manifest.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "base/checked_int.h"

namespace kl {

bool Rung::is_torch_peer() const {
    for (const auto& l : launches)
        if (l.builtin.rfind("torch.", 0) == 0) return true;
    return false;
}

std::string Rung::reference_mark() const { return is_torch_peer() ? "PyTorch peer" : reference ? "reference" : ""; }

// [SECTION] Parameters

bool ParamSpec::accepts(int64_t v) const {
    if (!values.empty()) return std::find(values.begin(), values.end(), v) != values.end();
    if (v < min || v > max) return false;
    return !pow2 || (v > 0 && (v & (v - 1)) == 0);
}

std::vector<int64_t> ParamSpec::allowed() const {
    if (!values.empty()) return values;
    std::vector<int64_t> out;
    // Powers of two start at the first one in range (stepping 3, 6, 12 would find none).
    // Stepping stops before it would pass INT64_MAX (v + 1 or v * 2 there would wrap and loop).
    int64_t v = min;
    if (pow2) {
        v = 1;
        while (v < min && checked_mul(v, 2, &v)) {}
        if (v < min) return out;
    }
    while (v <= max && out.size() < 4096) {
        if (accepts(v)) out.push_back(v);
        if (!(pow2 ? checked_mul(v, 2, &v) : checked_add(v, 1, &v))) break;
    }
    return out;
}

std::string ParamSpec::describe_allowed() const {
    std::ostringstream s;
    if (pinned) {
        s << "pinned at " << default_value << ": a lab switch, which the rung's lab twin varies";
    } else if (!values.empty()) {
        s << "one of ";
        for (size_t i = 0; i < values.size(); ++i) s << (i ? ", " : "") << values[i];
    } else {
        s << min << ".." << max << (pow2 ? ", powers of two" : "");
    }
    return s.str();
}

const ParamSpec* Rung::find_param(const std::string& name) const {
    for (const auto& p : params)
        if (p.name == name) return &p;
    return nullptr;
}

size_t Rung::free_params() const {
    // A parameter with one value (a pinned lab switch; RMS = 1 of a shared file) is not a choice.
    return static_cast<size_t>(
        std::count_if(params.begin(), params.end(), [](const ParamSpec& p) { return p.allowed().size() > 1; }));
}

const Rung* Ladder::find_rung(const std::string& rung_id) const {
    for (const auto& r : rungs)
        if (r.id == rung_id) return &r;
    for (const auto& r : lab_rungs)
        if (r.id == rung_id) return &r;
    return nullptr;
}

std::vector<const Rung*> Ladder::every_rung() const {
    std::vector<const Rung*> out;
    for (const auto& r : rungs) out.push_back(&r);
    for (const auto& r : lab_rungs) out.push_back(&r);
    return out;
}

}  // namespace kl
