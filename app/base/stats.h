// Summary statistics of repeated timings.
#pragma once
#include <vector>

namespace kl {

struct TimingStats {
    double median_ms = 0, min_ms = 0, max_ms = 0, mean_ms = 0;
    double rel_spread = 0;  // (p90 - p10) / median: how much the repetitions disagree
    int reps = 0;
};

// Throws InputError on an empty sample.
TimingStats summarize(std::vector<double> samples_ms);

}  // namespace kl
