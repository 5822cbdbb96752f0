// A run's kernel timeline (model/timeline.h) for handouts: a Markdown table (kernels and the
// gaps between them, their summed time beside the event time, the SM clock) and a CSV of the
// spans. `kladder export lesson` writes both for every step whose run was traced.
#pragma once
#include <string>

#include "model/results.h"

namespace kl::report {

// "" when the run carries no timeline.
std::string timeline_markdown(const RunRecord& run, size_t max_rows = 24);
std::string timeline_csv(const RunRecord& run);

}  // namespace kl::report
