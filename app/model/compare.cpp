#include "model/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kl {

Correctness compare_outputs(const std::vector<float>& actual, const std::vector<float>& expected, const Tolerance& tol,
                            std::pair<int64_t, int64_t> shape) {
    Correctness c;
    c.tolerance = tol;
    c.elements = static_cast<int64_t>(expected.size());
    if (actual.size() != expected.size()) {
        c.mismatches = c.elements;
        return c;
    }
    const bool map2d = shape.first > 0 && shape.second > 0 && shape.first * shape.second == c.elements;
    std::vector<int64_t> cell_bad, cell_total;
    if (map2d) {
        c.error_map.source_rows = shape.first;
        c.error_map.source_cols = shape.second;
        c.error_map.rows = static_cast<int>(std::min<int64_t>(64, shape.first));
        c.error_map.cols = static_cast<int>(std::min<int64_t>(64, shape.second));
        cell_bad.assign(size_t(c.error_map.rows) * c.error_map.cols, 0);
        cell_total.assign(cell_bad.size(), 0);
    }
    double diff2 = 0, ref2 = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
        const double e = expected[i], a = actual[i];
        bool bad;
        if (std::isnan(a)) ++c.unwritten;
        if (!std::isfinite(a) && std::isfinite(e)) {
            ++c.nan_count;
            bad = true;
        } else if (!std::isfinite(e)) {
            bad = !(a == e);  // an infinite reference must be matched exactly; NaN never passes
        } else {
            const double d = std::fabs(a - e);
            diff2 += d * d;
            ref2 += e * e;
            c.max_abs = std::max(c.max_abs, d);
            bad = !(d <= tol.abs + tol.rel * std::fabs(e));
        }
        if (bad) {
            ++c.mismatches;
            if (c.first_mismatches.size() < 8) c.first_mismatches.push_back({static_cast<int64_t>(i), e, a});
        }
        if (map2d) {
            int64_t r = static_cast<int64_t>(i) / shape.second, col = static_cast<int64_t>(i) % shape.second;
            size_t cell = size_t(r * c.error_map.rows / shape.first) * c.error_map.cols +
                          size_t(col * c.error_map.cols / shape.second);
            ++cell_total[cell];
            cell_bad[cell] += bad;
        }
    }
    c.rel_l2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
    c.passed = c.mismatches == 0 && c.elements > 0;
    if (map2d) {
        c.error_map.fraction_bad.resize(cell_bad.size());
        for (size_t i = 0; i < cell_bad.size(); ++i)
            c.error_map.fraction_bad[i] = cell_total[i] ? float(cell_bad[i]) / float(cell_total[i]) : 0.f;
    }
    return c;
}

std::string Correctness::summary() const {
    char buf[256];
    if (passed) {
        std::snprintf(buf, sizeof buf, "PASS rel_l2 %.2e max_abs %.2e", rel_l2, max_abs);
        return buf;
    }
    std::snprintf(buf, sizeof buf, "FAIL %lld of %lld elements wrong (%lld NaN/inf, %lld unwritten), rel_l2 %.2e",
                  static_cast<long long>(mismatches), static_cast<long long>(elements),
                  static_cast<long long>(nan_count), static_cast<long long>(unwritten), rel_l2);
    std::string s = buf;
    if (!first_mismatches.empty()) {
        const auto& m = first_mismatches.front();
        std::snprintf(buf, sizeof buf, "; first at [%lld]: expected %.6g, got %.6g", static_cast<long long>(m.index),
                      m.expected, m.actual);
        s += buf;
    }
    return s;
}

}  // namespace kl
