#include "model/run_metrics.h"

namespace kl {

namespace {
struct MetricInfo {
    const char* name;
    const char* unit;
};
const MetricInfo kMetrics[] = {{"ms", "ms"},      {"us", "µs"},      {"gbps", "GB/s"},       {"tflops", "TFLOP/s"},
                               {"pct_copy", "%"}, {"pct_gemm", "%"}, {"pct_reference", "%"}, {"peak_gib", "GiB"}};
}  // namespace

bool is_run_metric(const std::string& metric) {
    for (const auto& m : kMetrics)
        if (metric == m.name) return true;
    return false;
}

std::string run_metric_unit(const std::string& metric) {
    for (const auto& m : kMetrics)
        if (metric == m.name) return m.unit;
    return "";
}

std::optional<double> run_metric_value(const RunRecord& r, const std::string& m) {
    if (!r.error_kind.empty()) return std::nullopt;
    if (m == "ms" && r.timing) return r.timing->median_ms;
    if (m == "us" && r.timing) return r.timing->median_ms * 1e3;
    if (m == "gbps" && r.gbps > 0) return r.gbps;
    if (m == "tflops" && r.tflops > 0) return r.tflops;
    if (m == "pct_copy") return r.pct_copy;
    if (m == "pct_gemm") return r.pct_gemm;
    if (m == "pct_reference") return r.pct_reference;
    if (m == "peak_gib" && r.peak_memory_bytes) return *r.peak_memory_bytes / double(1 << 30);
    return std::nullopt;
}

}  // namespace kl
