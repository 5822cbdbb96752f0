#include "course/sweep_spec.h"

#include "base/errors.h"

namespace kl {

std::vector<int64_t> expand_sweep_range(int64_t from, int64_t to, int64_t by, int64_t times) {
    if ((by > 0) == (times > 0)) throw InputError("give exactly one of by (linear) and times (geometric)");
    if (from < 1 || to < from) throw InputError("expected 1 <= from <= to");
    if (times == 1) throw InputError("times must be at least 2");
    std::vector<int64_t> out;
    for (int64_t v = from; v <= to; v = by > 0 ? v + by : v * times) {
        out.push_back(v);
        if (out.size() > 64) throw InputError("more than 64 values");
        if (v > INT64_MAX / 2 / std::max<int64_t>(times, 1)) break;
    }
    return out;
}

SweepSpec read_sweep_spec(const TomlReader& r, const toml::node& node, const std::string& field) {
    const toml::table* t = node.as_table();
    if (!t)
        r.fail(line_of(node), field, "expected { axis = \"NAME\", values = [...] or from/to/by|times, tie = [...] }");
    r.allow_only(*t, field, {"axis", "values", "from", "to", "by", "times", "tie"});
    SweepSpec s;
    s.axis = r.string(*t, "axis", field);
    auto ints = [&](const char* key) {
        std::vector<int64_t> out;
        const toml::node* n = t->get(key);
        if (!n) return out;
        const toml::array* a = n->as_array();
        if (!a || a->empty()) r.fail(line_of(*n), field + "." + key, "expected a non-empty list of integers");
        for (const auto& v : *a) {
            if (!v.is_integer() || *v.value<int64_t>() < 1)
                r.fail(line_of(v), field + "." + key, "expected positive integers");
            out.push_back(*v.value<int64_t>());
        }
        return out;
    };
    s.values = ints("values");
    bool range = t->get("from") || t->get("to") || t->get("by") || t->get("times");
    if (range) {
        if (!s.values.empty()) r.fail(line_of(*t), field, "give values or a range (from, to, by|times), not both");
        int64_t from = r.integer(*t, "from", field), to = r.integer(*t, "to", field);
        int64_t by = t->get("by") ? r.integer(*t, "by", field) : 0;
        int64_t times = t->get("times") ? r.integer(*t, "times", field) : 0;
        try {
            s.values = expand_sweep_range(from, to, by, times);
        } catch (const InputError& e) { r.fail(line_of(*t), field, e.what()); }
    }
    for (size_t i = 1; i < s.values.size(); ++i)
        if (s.values[i] <= s.values[i - 1]) r.fail(line_of(*t), field + ".values", "must increase");
    if (const toml::node* n = t->get("tie")) {
        const toml::array* a = n->as_array();
        if (!a) r.fail(line_of(*n), field + ".tie", "expected a list of size axis names");
        for (const auto& v : *a) {
            if (!v.is_string()) r.fail(line_of(v), field + ".tie", "expected size axis names");
            std::string name = *v.value<std::string>();
            if (name == s.axis) r.fail(line_of(v), field + ".tie", "'" + name + "' is the swept axis itself");
            s.tie.push_back(name);
        }
    }
    return s;
}

}  // namespace kl
