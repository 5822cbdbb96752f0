#include "course/bound_kernels.h"

#include <cxxabi.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <regex>

namespace kl {

std::optional<KernelMetric> parse_kernel_metric(const std::string& metric) {
    static const std::regex re("kernel([1-9][0-9]{0,3})_(us|ms|name)");
    std::smatch m;
    if (!std::regex_match(metric, m, re)) return std::nullopt;
    return KernelMetric{std::stoi(m[1].str()), m[2].str()};
}

bool is_timeline_metric(const std::string& metric) {
    return metric == "launches" || metric == "span_us" || metric == "gap_us" || metric == "traced_us" ||
           parse_kernel_metric(metric).has_value();
}

std::string short_kernel_name(const std::string& raw) {
    std::string s = raw;
    if (s.rfind("_Z", 0) == 0) {
        int status = 0;
        std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status), std::free);
        if (status == 0 && d) s = d.get();
    }
    if (s.rfind("void ", 0) == 0) s = s.substr(5);
    bool cut = false;
    if (size_t at = s.find_first_of("<("); at != std::string::npos && at > 0) s = s.substr(0, at), cut = true;
    constexpr size_t kMaxChars = 80;  // a name still too long for a line of text
    if (s.size() > kMaxChars) s = s.substr(0, kMaxChars), cut = true;
    return cut ? s + "\xE2\x80\xA6" : s;
}

bool timeline_figure(const Timeline& t, const std::string& metric, double* value, std::string* name, std::string* why) {
    if (metric == "launches") return *value = t.launches, true;
    if (metric == "span_us") return *value = t.span_ms * 1e3, true;
    if (metric == "gap_us") return *value = t.gap_ms * 1e3, true;
    if (metric == "traced_us") return *value = t.kernel_sum_ms * 1e3, true;
    std::optional<KernelMetric> k = parse_kernel_metric(metric);
    if (!k) return *why = "'" + metric + "' is not a timeline metric", false;
    if (size_t(k->index) > t.kernels.size())
        return *why = "the traced repetition holds " + std::to_string(t.kernels.size()) + " kernels, not " +
                      std::to_string(k->index),
               false;
    const KernelSpan& span = t.kernels[size_t(k->index - 1)];
    if (k->part == "name") return *name = short_kernel_name(span.name), true;
    *value = span.duration_us() / (k->part == "ms" ? 1e3 : 1.0);
    return true;
}

bool timeline_answers(const RunRecord& run, const std::string& metric, std::string* name, std::string* why) {
    if (!run.timeline) return *why = "has no timeline (recorded without --timeline)", false;
    double unused = 0;
    if (timeline_figure(*run.timeline, metric, &unused, name, why)) return true;
    *why = "holds a timeline that does not answer: " + *why;
    return false;
}

bool is_profile_peer_metric(const std::string& metric, std::string* unit) {
    if (metric == "kernels") return *unit = "", true;
    for (const char* m : {"gpu_us", "span_us", "gap_us", "cpu_us", "launch_us"})
        if (metric == m) return *unit = "\xC2\xB5s", true;
    std::optional<KernelMetric> k = parse_kernel_metric(metric);
    if (k && k->part != "ms") return *unit = k->part == "us" ? "\xC2\xB5s" : "", true;
    return false;
}

namespace {
std::string profile_value_text(const nlohmann::json& x) {
    std::string s = x.dump();
    return s.size() > 40 ? s.substr(0, 40) + "..." : s;
}
bool is_profile_time(const nlohmann::json& x) {
    return x.is_number() && std::isfinite(x.get<double>()) && x.get<double>() >= 0;
}
}  // namespace

bool profile_figure(const nlohmann::json& entry, const std::string& metric, double* value, std::string* name,
                    std::string* why) {
    if (metric == "kernels") {
        if (!entry.contains("kernels")) return *why = "no field 'kernels'", false;
        const nlohmann::json& x = entry["kernels"];
        if (!x.is_number_integer() || x.get<int64_t>() < 0)
            return *why = "kernels: " + profile_value_text(x) + " is not a count (a non-negative integer)", false;
        return *value = double(x.get<int64_t>()), true;
    }
    std::optional<KernelMetric> k = parse_kernel_metric(metric);
    if (!k) {
        if (!entry.contains(metric)) return *why = "no field '" + metric + "'", false;
        if (!is_profile_time(entry[metric]))
            return *why = metric + ": " + profile_value_text(entry[metric]) +
                          " is not a time (a non-negative number of µs)",
                   false;
        return *value = entry[metric].get<double>(), true;
    }
    if (!entry.contains("kernel_list")) return *why = "no field 'kernel_list'", false;
    const nlohmann::json& list = entry["kernel_list"];
    if (!list.is_array()) return *why = "kernel_list: " + profile_value_text(list) + " is not a list", false;
    if (size_t(k->index) > list.size())
        return *why = "kernel_list holds " + std::to_string(list.size()) + " kernels, not " + std::to_string(k->index),
               false;
    const nlohmann::json& item = list[size_t(k->index - 1)];
    const std::string field = "kernel_list[" + std::to_string(k->index - 1) + "]";
    if (!item.is_object() || !item.contains("name") || !item["name"].is_string() ||
        item["name"].get<std::string>().empty())
        return *why = field + ": " + profile_value_text(item) + " has no name (a non-empty string)", false;
    if (!item.contains("us") || !is_profile_time(item["us"]))
        return *why = field +
                      ".us: " + (item.contains("us") ? profile_value_text(item["us"]) : std::string("missing")) +
                      " is not a time (a non-negative number of µs)",
               false;
    if (k->part == "name") return *name = short_kernel_name(item["name"].get<std::string>()), true;
    return *value = item["us"].get<double>(), true;
}

}  // namespace kl
