// The figures of one run that lessons predict and exercises set as goals, by name: "ms", "us",
// "gbps", "tflops", "pct_copy", "pct_gemm", "pct_reference", "peak_gib", each with its unit.
// A lesson's `predict.metric` and an exercise's goal are checked against this list when they load.
#pragma once
#include <optional>
#include <string>

#include "model/results.h"

namespace kl {

// The metric's value in a run ("ms", "us", "gbps", "tflops", "pct_copy", ... as bindings name
// them), or nullopt when the run does not carry it.
std::optional<double> run_metric_value(const RunRecord& run, const std::string& metric);
// The metric's unit ("GB/s"), or "" for an unknown metric (is_run_metric tells them apart).
std::string run_metric_unit(const std::string& metric);
bool is_run_metric(const std::string& metric);

}  // namespace kl
