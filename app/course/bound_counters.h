// What a lesson can bind of a run's hardware counters (`kladder run --counters`, docs/counters.md,
// model/counters.h; docs/formats.md section 3): DRAM traffic, the derived ratios, and the
// shared-memory bank conflicts. A run without counters answers none of them (unresolved, never
// 0): a binding to them pins a recording that has them with `from=STEM`, or relies on the
// newest matching run carrying them.
#pragma once
#include <optional>
#include <string>

#include "model/results.h"

namespace kl {

// dram_gb, l2_gb; sectors_per_request_ld, sectors_per_request_st, threads_per_inst; bank_conflicts,
// bank_conflicts_ld, bank_conflicts_st.
bool is_counter_metric(const std::string& metric);

// The figure from the run's counters; nullopt when the metric is not one of the above or the
// run carries no such counter.
std::optional<double> counter_metric(const RunRecord& run, const std::string& metric);

}  // namespace kl
