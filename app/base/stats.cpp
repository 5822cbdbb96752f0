#include "base/stats.h"

#include <algorithm>
#include <numeric>

#include "base/errors.h"

namespace kl {

namespace {
// Linear interpolation between order statistics (the "type 7" quantile).
double quantile(const std::vector<double>& sorted, double q) {
    double pos = q * double(sorted.size() - 1);
    size_t lo = static_cast<size_t>(pos);
    size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (pos - double(lo)) * (sorted[hi] - sorted[lo]);
}
}  // namespace

TimingStats summarize(std::vector<double> s) {
    if (s.empty()) throw InputError("no timing samples to summarize");
    std::sort(s.begin(), s.end());
    TimingStats t;
    t.reps = static_cast<int>(s.size());
    t.min_ms = s.front();
    t.max_ms = s.back();
    t.median_ms = quantile(s, 0.5);
    t.mean_ms = std::accumulate(s.begin(), s.end(), 0.0) / double(s.size());
    t.rel_spread = t.median_ms > 0 ? (quantile(s, 0.9) - quantile(s, 0.1)) / t.median_ms : 0;
    return t;
}

}  // namespace kl
