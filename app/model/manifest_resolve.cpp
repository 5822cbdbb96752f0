// Resolving a rung for one problem: parameters (defaults + overrides), the scope its
// expressions see, its constraints and which of its launches apply, the -D defines it compiles
// with. No GPU. (Loading and validating the manifest: manifest.cpp.)
#include <set>

#include "base/errors.h"
#include "model/manifest.h"

namespace kl {

ParamValues resolve_params(const Rung& rung, const ParamValues& overrides) {
    ParamValues out;
    for (const auto& p : rung.params) out[p.name] = p.default_value;
    for (const auto& [name, v] : overrides) {
        const ParamSpec* p = rung.find_param(name);
        if (!p) {
            std::string known;
            for (const auto& q : rung.params) known += (known.empty() ? "" : ", ") + q.name;
            throw InputError("rung " + rung.id + " has no parameter '" + name + "'" +
                             (known.empty() ? " (it has none)" : " (it has " + known + ")"));
        }
        if (p->pinned && v != p->default_value)
            throw InputError("parameter " + name + " is a lab switch of rung " + rung.id + ", pinned at " +
                             std::to_string(p->default_value) + "; rung " + rung.id + "_lab varies it");
        if (!p->accepts(v))
            throw InputError("parameter " + name + "=" + std::to_string(v) + " is out of range for rung " + rung.id +
                             " (" + p->describe_allowed() + ")");
        out[name] = v;
    }
    return out;
}

Scope make_scope(const std::map<std::string, int64_t>& sizes, const ParamValues& params, DType dtype, int num_sms) {
    Scope s;
    for (const auto& [k, v] : sizes) s[k] = v;
    for (const auto& [k, v] : params) s[k] = v;
    s["esize"] = dtype_size(dtype);
    s["num_sms"] = num_sms;
    return s;
}

namespace {
// "d=96, causal=0": the values an expression saw.
std::string values_of(const std::set<std::string>& names, const Scope& scope) {
    std::string values;
    for (const auto& n : names) {
        auto it = scope.find(n);
        values += (values.empty() ? "" : ", ") + n + "=" + (it == scope.end() ? "?" : std::to_string(it->second));
    }
    return values;
}

// An expression of the manifest that cannot be evaluated here (x / 0, an overflow) is the
// manifest's fault, not a problem the rung declines: it names the file, line and field, and the
// values it saw, so that check-kernels fails on it instead of counting a skip.
[[noreturn]] void throw_unevaluable(const std::string& where, const Expr& e, const InputError& why,
                                    const Scope& scope) {
    throw ManifestError((where.empty() ? "expression" : where) + ": " + why.what() + " (with " +
                        values_of(e.names(), scope) + ")");
}
}  // namespace

bool LaunchSpec::applies(const Scope& scope) const {
    if (when.empty()) return true;
    try {
        return when.eval(scope) != 0;
    } catch (const InputError& e) { throw_unevaluable(when_where, when, e, scope); }
}

void check_constraints(const Rung& rung, const Scope& scope) {
    for (const auto& c : rung.constraints) {
        int64_t holds = 0;
        try {
            holds = c.expr.eval(scope);
        } catch (const InputError& e) { throw_unevaluable(c.where, c.expr, e, scope); }
        if (holds) continue;
        throw InputError("rung " + rung.id + ": " + c.message + " (" + c.expr.text() + " fails with " +
                         values_of(c.expr.names(), scope) + ")");
    }
    if (!applicable_launches(rung, scope).empty()) return;
    // Only conditional launches can leave a rung with nothing to run.
    std::string conditions;
    std::set<std::string> names;
    for (const auto& l : rung.launches) {
        conditions += (conditions.empty() ? "" : ", or ") + l.when.text();
        for (const auto& n : l.when.names()) names.insert(n);
    }
    throw InputError("rung " + rung.id + ": no launch applies to this problem (its launches run when " + conditions +
                     "; here " + values_of(names, scope) + ")");
}

std::vector<const LaunchSpec*> applicable_launches(const Rung& rung, const Scope& scope) {
    std::vector<const LaunchSpec*> out;
    for (const auto& l : rung.launches)
        if (l.applies(scope)) out.push_back(&l);
    return out;
}

std::vector<std::string> compile_defines(const Rung& rung, const ParamValues& params, DType dtype) {
    std::vector<std::string> d;
    for (const auto& p : rung.params) d.push_back(p.name + "=" + std::to_string(params.at(p.name)));
    d.push_back("ELEM=" + dtype_cuda_name(dtype));
    d.push_back(dtype_macro(dtype) + "=1");
    return d;
}

std::string rung_arch(const Rung& rung, const std::string& device_arch) {
    return rung.arch.empty() ? device_arch : rung.arch;
}

}  // namespace kl
