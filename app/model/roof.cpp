#include "model/roof.h"

#include <algorithm>
#include <map>

namespace kl {

double memory_roof_gbps(const std::vector<BandwidthPoint>& points, double read_fraction) {
    // The best kernel at each mix measured (a copy kernel and cudaMemcpy share 0.5).
    std::map<double, double> best;
    for (const auto& p : points)
        if (p.gbps > 0 && p.read_fraction >= 0 && p.read_fraction <= 1)
            best[p.read_fraction] = std::max(best[p.read_fraction], p.gbps);
    if (best.empty()) return 0;
    const double f = std::clamp(read_fraction, 0.0, 1.0);
    auto hi = best.lower_bound(f);
    if (hi == best.end()) return std::prev(hi)->second;
    if (hi->first == f || hi == best.begin()) return hi->second;
    auto lo = std::prev(hi);
    const double t = (f - lo->first) / (hi->first - lo->first);
    return lo->second + t * (hi->second - lo->second);
}

double read_fraction_of(const std::vector<BufferDecl>& buffers) {
    double read = 0, total = 0;
    for (const auto& b : buffers) {
        const double bytes = double(b.elements) * dtype_size(b.dtype);
        total += bytes;
        if (b.role == BufferDecl::Role::Input) read += bytes;
    }
    return total > 0 ? read / total : 0.5;
}

bool above_roof(double gbps, double roof_gbps, double rel_spread) {
    return roof_gbps > 0 && gbps > roof_gbps * (1.0 + std::max(rel_spread, 0.0));
}

bool roof_points_plausible(const std::vector<BandwidthPoint>& points) {
    double memcpy_gbps = 0, kernel_gbps = 0;
    for (const BandwidthPoint& p : points) {
        if (p.kernel == "memcpy")
            memcpy_gbps = std::max(memcpy_gbps, p.gbps);
        else if (p.read_fraction == 0.5)
            kernel_gbps = std::max(kernel_gbps, p.gbps);
    }
    return memcpy_gbps <= 0 || kernel_gbps >= 0.5 * memcpy_gbps;
}

}  // namespace kl
