#include "model/launch_geometry.h"

#include <optional>
#include <set>

#include "base/errors.h"

namespace kl {

namespace {

const char* const kAxis[3] = {"x", "y", "z"};

// What broke, and the names (sizes, parameters) of the expressions that produced it.
struct Refusal {
    std::string what;
    std::set<std::string> names;
    bool too_large = false;         // a dimension over the device's limit (not under 1)
    bool too_many_threads = false;  // the block's threads: shrink_advice says which way to go
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
        if (v[i] < 1) {
            out.what = name + " = " + shown(exprs[i], v[i]) + ": a launch needs at least 1";
        } else if (v[i] > limit[i]) {
            out.what = name + " = " + shown(exprs[i], v[i]) + " > " + std::to_string(limit[i]) + ", the device's limit";
            out.too_large = true;
        }
        if (!out.what.empty()) out.names = exprs[i].names();
    }
}

Refusal refusal_of(const LaunchGeometry& g, const DeviceLimits& d) {
    Refusal r;
    const LaunchSpec& l = *g.spec;
    refuse_dims("grid", l.grid, g.grid, d.max_grid, r);
    const int64_t block_limit[3] = {d.max_block[0], d.max_block[1], d.max_block[2]};
    if (!r.what.empty()) return r;
    refuse_dims("block", l.block, g.block, block_limit, r);
    if (!r.what.empty()) {
        r.too_many_threads = r.too_large;
        return r;
    }
    if (g.threads() > d.max_threads_per_block) {
        std::string dims;
        for (const auto& e : l.block) {
            dims += (dims.empty() ? "" : " x ") + e.text();
            for (const auto& n : e.names()) r.names.insert(n);
        }
        r.what = "block = " + dims + " = " + std::to_string(g.threads()) + " threads > " +
                 std::to_string(d.max_threads_per_block) + ", the device's limit per block";
        r.too_many_threads = true;
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

Refusal first_refusal(const Rung& rung, const std::vector<LaunchGeometry>& geometry, const DeviceLimits& limits,
                      const Scope& scope) {
    for (const auto& g : geometry) {
        Refusal r = refusal_of(g, limits);
        if (r.too_many_threads)
            if (std::string advice = shrink_advice(rung, g.spec->block, scope); !advice.empty())
                r.what += "; " + advice;
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
    return first_refusal(rung, evaluate_launch_geometry(rung, scope), limits, scope).what;
}

void check_launch_geometry(const std::string& rung_label, const Rung& rung, const Scope& scope,
                           const DeviceLimits& limits) {
    check_launch_geometry(rung_label, rung, evaluate_launch_geometry(rung, scope), scope, limits);
}

void check_launch_geometry(const std::string& rung_label, const Rung& rung, const std::vector<LaunchGeometry>& geometry,
                           const Scope& scope, const DeviceLimits& limits) {
    Refusal r = first_refusal(rung, geometry, limits, scope);
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

namespace {
// The product of the expressions in `scope` (a block's threads, a launch's shared memory), or
// nullopt when it does not evaluate there.
std::optional<int64_t> product_at(const std::vector<Expr>& exprs, const Scope& scope) {
    int64_t p = 1;
    try {
        for (const auto& e : exprs)
            if (!e.empty()) p *= e.eval(scope);
    } catch (const Error&) { return std::nullopt; }
    return p;
}
}  // namespace

std::string shrink_advice(const Rung& rung, const std::vector<Expr>& exprs, const Scope& scope) {
    const std::optional<int64_t> now = product_at(exprs, scope);
    if (!now) return "";
    std::string lower, raise;
    for (const auto& p : rung.params) {
        auto it = scope.find(p.name);
        if (p.pinned || it == scope.end()) continue;
        bool used = false;
        for (const auto& e : exprs)
            if (!e.empty()) used |= e.names().count(p.name) > 0;
        if (!used) continue;
        // The parameter doubled on its own (parameters are counts and tile sides: doubling
        // keeps the divisions the expressions make whole).
        Scope trial = scope;
        trial[p.name] = it->second > 0 ? 2 * it->second : 1;
        const std::optional<int64_t> moved = product_at(exprs, trial);
        if (!moved || *moved == *now) continue;
        std::string& list = *moved > *now ? lower : raise;
        list += (list.empty() ? "" : ", ") + p.name;
    }
    if (lower.empty() && raise.empty()) return "";
    if (raise.empty()) return "lower " + lower;
    if (lower.empty()) return "raise " + raise;
    return "lower " + lower + " or raise " + raise;
}

}  // namespace kl
