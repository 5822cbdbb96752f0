// Hardware counters as run metrics: course/bound_counters.h.
#include "course/bound_counters.h"

namespace kl {

namespace {

// Each metric and the counters' key it reads: the derived ratios keep their keys (model/counters.h),
// the bank conflicts are Nsight Compute's metric names.
struct CounterMetric {
    const char* metric;
    const char* key;
};
const CounterMetric kCounterMetrics[] = {
    {"sectors_per_request_ld", "sectors_per_request_ld"},
    {"sectors_per_request_st", "sectors_per_request_st"},
    {"threads_per_inst", "threads_per_inst"},
    {"bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"},
    {"bank_conflicts_ld", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"},
    {"bank_conflicts_st", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"},
};

const char* counter_key_of(const std::string& metric) {
    for (const auto& c : kCounterMetrics)
        if (metric == c.metric) return c.key;
    return nullptr;
}

std::optional<double> counter_number(const RunRecord& run, const char* key) {
    if (!run.counters.is_object() || !run.counters.contains(key) || !run.counters[key].is_number()) return std::nullopt;
    return run.counters[key].get<double>();
}

}  // namespace

bool is_counter_metric(const std::string& metric) {
    return metric == "dram_gb" || metric == "l2_gb" || counter_key_of(metric) != nullptr;
}

std::optional<double> counter_metric(const RunRecord& run, const std::string& metric) {
    if (metric == "dram_gb" || metric == "l2_gb") {  // bytes in GB: DRAM's, or all that passed L2
        std::optional<double> bytes = counter_number(run, metric == "dram_gb" ? "dram_bytes" : "lts__t_bytes.sum");
        return bytes ? std::optional<double>(*bytes / 1e9) : std::nullopt;
    }
    const char* key = counter_key_of(metric);
    return key ? counter_number(run, key) : std::nullopt;
}

}  // namespace kl
