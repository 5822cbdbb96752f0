#include "course/selection.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "base/errors.h"
#include "base/paths.h"
#include "model/device_profile.h"
#include "model/operation.h"

namespace kl {

// [SECTION] The device

namespace {

std::optional<DeviceInfo> read_profile_for_arch(const std::string& arch) {
    // Several GPUs share an architecture (sm_90: H100 and H200): the first by file name, so the
    // choice does not depend on the order the directory lists them in.
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(assets_dir() + "/devices", ec))
        if (e.path().filename().string().rfind(arch + "_", 0) == 0 && e.path().extension() == ".json")
            files.push_back(e.path());
    if (files.empty()) return std::nullopt;
    try {
        return load_device_profile(std::min_element(files.begin(), files.end())->string());
    } catch (const Error&) { return std::nullopt; }
}

}  // namespace

// Read once per architecture: the window asks whenever its choice changes.
std::optional<DeviceInfo> profile_for_arch(const std::string& arch) {
    static std::map<std::string, std::optional<DeviceInfo>> cache;
    auto it = cache.find(arch);
    if (it == cache.end()) it = cache.emplace(arch, read_profile_for_arch(arch)).first;
    return it->second;
}

std::optional<SelectionDevice> pick_selection_device(const std::optional<DeviceInfo>& gpu,
                                                     const std::optional<DeviceInfo>& recorded) {
    if (gpu && gpu->has_limits) return SelectionDevice{*gpu, "of this GPU"};
    if (recorded && recorded->has_limits) return SelectionDevice{*recorded, "as recorded"};
    const std::string arch = recorded && recorded->cc() > 0 ? recorded->arch() : "sm_90";
    if (auto p = profile_for_arch(arch); p && p->has_limits)
        return SelectionDevice{*p, "from its profile in assets/devices"};
    return std::nullopt;
}

// [SECTION] The selection

ParamValues defaults_with(const Rung& rung, const ParamValues& overrides) {
    ParamValues out;
    for (const auto& p : rung.params) out[p.name] = p.default_value;
    for (const auto& [k, v] : overrides)
        if (rung.find_param(k)) out[k] = v;
    return out;
}

RunOptions run_options_of(const std::map<std::string, int64_t>& sizes, const ParamValues& params, DType dtype) {
    RunOptions o;
    o.sizes = sizes;
    o.params = params;
    o.dtype = dtype;
    return o;
}

SweepSpec sweep_of(const SelectionChoice& c) {
    SweepSpec s;
    s.axis = c.sweep_axis;
    if (s.axis.empty() || !c.rung) return s;
    const bool is_param = c.rung->find_param(s.axis) != nullptr;
    if (c.step && c.step->sweep_axis == s.axis) {
        s.values = c.step->sweep_values;
        if (!is_param) s.tie = c.step->sweep_tie;  // ties follow a size axis
    }
    if (s.values.empty()) s.values = default_sweep_points(*c.rung, c.sizes, s.axis);
    return s;
}

Resolution resolve_at(const Ladder& ladder, const Rung& rung, const std::map<std::string, int64_t>& sizes,
                      const ParamValues& params, DType dtype, const std::optional<SelectionDevice>& device) {
    Resolution out;
    const int num_sms = device ? device->info.sm_count : 0;
    try {
        out.run = resolve_run(ladder, rung, run_options_of(sizes, params, dtype), num_sms);  // as `kladder run` does
    } catch (const Error& e) {
        out.refusal = e.what();
        return out;
    }
    if (!device || num_sms <= 0) return out;
    try {
        bind_to_device(*out.run, num_sms, device->info.limits);
    } catch (const Error& e) {
        out.refusal = e.what();
        out.refused_by_device = true;
    }
    return out;
}

std::string refusal_at(const Ladder& ladder, const Rung& rung, const std::map<std::string, int64_t>& sizes,
                       const ParamValues& params, DType dtype, const std::optional<SelectionDevice>& device) {
    return resolve_at(ladder, rung, sizes, params, dtype, device).refusal;
}

Selection make_selection(const SelectionChoice& c, const std::optional<SelectionDevice>& device) {
    Selection sel;
    sel.device = device;
    if (!c.ladder || !c.rung) return sel;
    sel.params = defaults_with(*c.rung, c.overrides);
    sel.sweep = sweep_of(c);
    Resolution r = resolve_at(*c.ladder, *c.rung, c.sizes, sel.params, c.dtype, device);
    sel.refusal = std::move(r.refusal);
    if (sel.refusal.empty()) sel.run = std::move(r.run);
    return sel;
}

// [SECTION] Sweeps

std::vector<int64_t> default_sweep_points(const Rung& rung, const std::map<std::string, int64_t>& sizes,
                                          const std::string& axis) {
    std::vector<int64_t> values;
    if (const ParamSpec* spec = rung.find_param(axis)) {
        values = spec->allowed();
        if (values.size() <= 16) return values;
        std::vector<int64_t> pow2;
        for (int64_t v : values)
            if (v > 0 && (v & (v - 1)) == 0) pow2.push_back(v);
        if (pow2.size() >= 3 && pow2.size() <= 16) return pow2;
        std::vector<int64_t> picked;
        for (int i = 0; i < 12; ++i)
            picked.push_back(values[size_t(std::lround(double(i) * double(values.size() - 1) / 11.0))]);
        picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
        return picked;
    }
    auto it = sizes.find(axis);
    if (it == sizes.end()) return values;
    const int64_t current = it->second;
    int64_t lo = 1;
    if (const Operation* op = find_operation(rung.operation))
        for (const auto& a : op->size_axes())
            if (a.name == axis) lo = std::max<int64_t>(a.min, 1);
    const int top = int(std::floor(std::log2(double(std::max<int64_t>(current, 1)))));
    const int bottom = std::max(int(std::ceil(std::log2(double(lo)))), top - 16);
    for (int e = bottom; e <= top; ++e) values.push_back(int64_t(1) << e);
    if (values.empty() || values.back() != current) values.push_back(current);
    return values;
}

}  // namespace kl
