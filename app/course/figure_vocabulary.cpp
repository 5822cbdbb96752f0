#include "course/figure_vocabulary.h"

namespace kl {

namespace {

const std::vector<MetricInfo>& metric_table() {
    static const std::vector<MetricInfo> table = {
        {Metric::Time, "time", "Time", "Time", "", "time"},
        {Metric::Rate, "rate", "GB/s", "TFLOP/s", "", "rate"},
        {Metric::Percent, "pct", "% of reference", "% of reference", "%", "pct (of reference)"},
        {Metric::Memory, "memory", "Peak memory", "Peak memory", "GiB", "memory (peak device memory)"},
        {Metric::Bytes, "bytes", "Bytes moved", "Bytes moved", "MB", "bytes"},
        {Metric::Sectors, "sectors", "Sectors per request", "Sectors per request", "sectors", "sectors (per request)"},
        {Metric::Conflicts, "conflicts", "Bank conflicts", "Bank conflicts", "millions",
         "conflicts (shared-memory banks)"},
        {Metric::Threads, "threads", "Active threads per instruction", "Active threads per instruction", "threads",
         "threads (active per warp instruction)"},
    };
    return table;
}

std::string joined(const std::vector<std::string>& items, const char* sep, const char* last) {
    std::string s;
    for (size_t i = 0; i < items.size(); ++i) s += (i == 0 ? "" : i + 1 == items.size() ? last : sep) + items[i];
    return s;
}

}  // namespace

const std::vector<PlotKindInfo>& plot_kinds() {
    static const std::vector<PlotKindInfo> kinds = {
        {PlotKind::Bars, "bars", "Rungs", true, {Metric::Time, Metric::Rate, Metric::Percent}},
        {PlotKind::Sweep, "sweep", "Sweep", true, {Metric::Time, Metric::Rate, Metric::Memory}},
        {PlotKind::Errors, "errors", "Correctness", true, {}},
        {PlotKind::Traffic,
         "traffic",
         "Traffic",
         true,
         {Metric::Bytes, Metric::Sectors, Metric::Conflicts, Metric::Threads}},
        {PlotKind::Roofline, "roofline", "Roofline", true, {}},
        {PlotKind::Occupancy, "occupancy", "Occupancy", false, {}},
    };
    return kinds;
}

const PlotKindInfo& plot_kind_info(PlotKind kind) { return plot_kinds()[static_cast<size_t>(kind)]; }

const MetricInfo& metric_info(Metric metric) { return metric_table()[static_cast<size_t>(metric)]; }

std::optional<PlotKind> plot_kind_from_name(std::string_view name) {
    for (const auto& k : plot_kinds())
        if (name == k.name) return k.kind;
    return std::nullopt;
}

const char* plot_kind_name(PlotKind kind) { return plot_kind_info(kind).name; }

std::optional<Metric> metric_from_name(std::string_view name) {
    for (const auto& m : metric_table())
        if (name == m.name) return m.metric;
    return std::nullopt;
}

const char* metric_name(Metric metric) { return metric_info(metric).name; }

const char* metric_label(Metric metric, bool flops) {
    return flops ? metric_info(metric).flops_label : metric_info(metric).label;
}

bool metric_fits(PlotKind kind, Metric metric) {
    for (Metric m : plot_kind_info(kind).metrics)
        if (m == metric) return true;
    return false;
}

std::optional<Metric> default_metric(PlotKind kind, bool size_axis) {
    switch (kind) {
        case PlotKind::Bars: return Metric::Rate;
        case PlotKind::Sweep: return size_axis ? Metric::Time : Metric::Rate;
        case PlotKind::Traffic: return Metric::Bytes;
        case PlotKind::Errors:
        case PlotKind::Roofline:
        case PlotKind::Occupancy: break;
    }
    return std::nullopt;
}

std::optional<Metric> metric_or_default(PlotKind kind, std::optional<Metric> asked, bool size_axis) {
    return asked ? asked : default_metric(kind, size_axis);
}

std::string plot_kind_list(bool figures_only) {
    std::vector<std::string> names;
    for (const auto& k : plot_kinds())
        if (k.from_results || !figures_only) names.push_back(k.name);
    return joined(names, ", ", ", ");
}

std::vector<std::string> metric_names() {
    std::vector<std::string> names;
    for (const auto& m : metric_table()) names.push_back(m.name);
    return names;
}

std::string metrics_by_kind() {
    std::vector<std::string> parts;
    for (const auto& k : plot_kinds())
        if (!k.metrics.empty()) parts.push_back(std::string(k.name) + ": " + metric_list(k.kind, ", "));
    return joined(parts, "; ", "; ");
}

std::string metric_list(PlotKind kind, const char* last_joiner) {
    std::vector<std::string> names;
    for (Metric m : plot_kind_info(kind).metrics) names.push_back(metric_name(m));
    return joined(names, ", ", last_joiner);
}

}  // namespace kl
