#include "model/launch_geometry.h"

#include <set>

#include "base/errors.h"

namespace kl {

namespace {

const char* const kAxis[3] = {"x", "y", "z"};

// What broke, and the names (sizes, parameters) of the expressions that produced it.
struct Refusal {
    std::string what;
    std::set<std::string> names;
};

// "cdiv(M, BS) = 131072", or "128" when the expression is the number itself.
std::string shown(const Expr& e, int64_t value) {
    const std::string v = std::to_string(value);
    return e.text() == v ? v : e.text() + " = " + v;
}

void refuse_dims(const char* what, const std::vector<Expr>& exprs, const int64_t (&v)[3], const int64_t (&limit)[3],
                 Refusal& out) {
    for (size_t i = 0; i < exprs.size() && out.what.empty(); ++i) {
        const std::string name = std::string(what) + " " + kAxis[i];
        if (v[i] < 1)
            out.what = name + " = " + shown(exprs[i], v[i]) + ": a launch needs at least 1";
        else if (v[i] > limit[i])
            out.what = name + " = " + shown(exprs[i], v[i]) + " > " + std::to_string(limit[i]) + ", the device's limit";
        if (!out.what.empty()) out.names = exprs[i].names();
    }
}

Refusal refusal_of(const LaunchGeometry& g, const DeviceLimits& d) {
    Refusal r;
    const LaunchSpec& l = *g.spec;
    refuse_dims("grid", l.grid, g.grid, d.max_grid, r);
    const int64_t block_limit[3] = {d.max_block[0], d.max_block[1], d.max_block[2]};
    refuse_dims("block", l.block, g.block, block_limit, r);
    if (!r.what.empty()) return r;
    if (g.threads() > d.max_threads_per_block) {
        std::string dims;
        for (const auto& e : l.block) {
            dims += (dims.empty() ? "" : " x ") + e.text();
            for (const auto& n : e.names()) r.names.insert(n);
        }
        r.what = "block = " + dims + " = " + std::to_string(g.threads()) + " threads > " +
                 std::to_string(d.max_threads_per_block) + ", the device's limit per block";
        return r;
    }
    if (g.dynamic_smem < 0 || (d.smem_per_block_optin > 0 && g.dynamic_smem > d.smem_per_block_optin)) {
        r.names = l.smem.names();
        r.what = "dynamic shared memory = " + shown(l.smem, g.dynamic_smem) + " bytes" +
                 (g.dynamic_smem < 0 ? std::string(": negative")
                                     : " > " + std::to_string(d.smem_per_block_optin) +
                                           " bytes, the most a block may opt in to on the device");
    }
    return r;
}

Refusal first_refusal(const Rung& rung, const std::vector<LaunchGeometry>& geometry, const DeviceLimits& limits) {
    for (const auto& g : geometry) {
        Refusal r = refusal_of(g, limits);
        if (!r.what.empty()) {
            if (rung.launches.size() > 1) r.what = "launch " + g.spec->entry + ": " + r.what;
            return r;
        }
    }
    return {};
}

}  // namespace

std::vector<LaunchGeometry> evaluate_launch_geometry(const Rung& rung, const Scope& scope) {
    std::vector<LaunchGeometry> out;
    for (const LaunchSpec* l : applicable_launches(rung, scope)) {
        if (!l->builtin.empty()) continue;
        LaunchGeometry g;
        g.spec = l;
        for (size_t i = 0; i < l->grid.size() && i < 3; ++i) g.grid[i] = l->grid[i].eval(scope);
        for (size_t i = 0; i < l->block.size() && i < 3; ++i) g.block[i] = l->block[i].eval(scope);
        g.dynamic_smem = l->smem.empty() ? 0 : l->smem.eval(scope);
        out.push_back(g);
    }
    return out;
}

std::string launch_geometry_refusal(const Rung& rung, const Scope& scope, const DeviceLimits& limits) {
    return first_refusal(rung, evaluate_launch_geometry(rung, scope), limits).what;
}

void check_launch_geometry(const std::string& rung_label, const Rung& rung, const Scope& scope,
                           const DeviceLimits& limits) {
    check_launch_geometry(rung_label, rung, evaluate_launch_geometry(rung, scope), scope, limits);
}

void check_launch_geometry(const std::string& rung_label, const Rung& rung, const std::vector<LaunchGeometry>& geometry,
                           const Scope& scope, const DeviceLimits& limits) {
    Refusal r = first_refusal(rung, geometry, limits);
    if (r.what.empty()) return;
    std::string values;
    for (const auto& n : r.names) {
        auto it = scope.find(n);
        if (it != scope.end()) values += (values.empty() ? "" : ", ") + n + "=" + std::to_string(it->second);
    }
    throw InputError(rung_label + (values.empty() ? "" : " (" + values + ")") + ": " + r.what);
}

std::string params_used(const Rung& rung, const std::vector<Expr>& exprs) {
    std::string out;
    for (const auto& p : rung.params) {
        if (p.pinned) continue;  // a teaching rung's lab switch: not the learner's to lower
        bool used = false;
        for (const auto& e : exprs)
            if (!e.empty()) used |= e.names().count(p.name) > 0;
        if (used) out += (out.empty() ? "" : ", ") + p.name;
    }
    return out;
}

}  // namespace kl
