#include "model/run_metrics.h"

namespace kl {

namespace {
// A run metric is the median time, or a tagged value (measures.h) in the unit lessons quote.
struct RunMetric {
    const char* name;
    const char* unit;
    const char* tag;     // nullptr: the median time
    double scale;        // the metric is the time (ms) or the value times this
    bool positive_only;  // a zero rate is no rate (a failed or untimed run)
};
const RunMetric kMetrics[] = {
    {"ms", "ms", nullptr, 1.0, false},
    {"us", "µs", nullptr, 1e3, false},
    {"gbps", "GB/s", tag::gbps, 1.0, true},
    {"tflops", "TFLOP/s", tag::tflops, 1.0, true},
    {"pct_copy", "%", tag::pct_copy, 1.0, false},
    {"pct_gemm", "%", tag::pct_gemm, 1.0, false},
    {"pct_reference", "%", tag::pct_reference, 1.0, false},
    {"peak_gib", "GiB", tag::peak_memory_bytes, 1.0 / double(1 << 30), false},
};

const RunMetric* find_metric(const std::string& name) {
    for (const auto& m : kMetrics)
        if (name == m.name) return &m;
    return nullptr;
}
}  // namespace

bool is_run_metric(const std::string& metric) { return find_metric(metric) != nullptr; }

std::string run_metric_unit(const std::string& metric) {
    const RunMetric* m = find_metric(metric);
    return m ? m->unit : "";
}

std::optional<double> run_metric_value(const RunRecord& r, const std::string& metric) {
    const RunMetric* m = find_metric(metric);
    if (!m || !r.error_kind.empty()) return std::nullopt;
    if (!m->tag) return r.timing ? std::optional<double>(r.timing->median_ms * m->scale) : std::nullopt;
    std::optional<double> v = r.values.get(m->tag);
    if (!v || (m->positive_only && !(*v > 0))) return std::nullopt;
    return *v * m->scale;
}

}  // namespace kl
