#include "model/ops/norm_backward_ref.h"

#include <cmath>

namespace kl {

void norm_row_stats(const float* s, int64_t cols, bool rms, double* mean, double* rstd) {
    double sum = 0;
    if (!rms)
        for (int64_t c = 0; c < cols; ++c) sum += s[c];
    const double m = rms ? 0.0 : sum / double(cols);
    double sq = 0;
    for (int64_t c = 0; c < cols; ++c) sq += (s[c] - m) * (s[c] - m);
    *mean = m;
    *rstd = 1.0 / std::sqrt(sq / double(cols) + kNormBackwardEps);
}

void norm_backward_rows(const float* s, const float* dy, const float* w, int64_t count, int64_t cols, bool rms,
                        float* dx, std::vector<double>& dgamma, std::vector<double>& dbeta) {
    for (int64_t r = 0; r < count; ++r) {
        const float* sr = s + r * cols;
        const float* dyr = dy + r * cols;
        double mean = 0, rstd = 0;
        norm_row_stats(sr, cols, rms, &mean, &rstd);
        double sum_g = 0, sum_gx = 0;
        for (int64_t c = 0; c < cols; ++c) {
            const double xhat = (sr[c] - mean) * rstd, g = double(dyr[c]) * w[c];
            sum_g += g;
            sum_gx += g * xhat;
            dgamma[c] += double(dyr[c]) * xhat;
            if (!rms) dbeta[c] += dyr[c];
        }
        const double a = rms ? 0.0 : sum_g / double(cols), b = sum_gx / double(cols);
        for (int64_t c = 0; c < cols; ++c) {
            const double xhat = (sr[c] - mean) * rstd, g = double(dyr[c]) * w[c];
            dx[r * cols + c] = float(rstd * (g - a - xhat * b));
        }
    }
}

double norm_forward_dot(const std::vector<double>& s, const std::vector<double>& w, const std::vector<double>& b,
                        const std::vector<double>& dy, int64_t rows, int64_t cols, bool rms) {
    double dot = 0;
    for (int64_t r = 0; r < rows; ++r) {
        const double* sr = s.data() + r * cols;
        double sum = 0, sq = 0;
        for (int64_t c = 0; c < cols; ++c) sum += sr[c];
        const double mean = rms ? 0.0 : sum / double(cols);
        for (int64_t c = 0; c < cols; ++c) sq += (sr[c] - mean) * (sr[c] - mean);
        const double rstd = 1.0 / std::sqrt(sq / double(cols) + kNormBackwardEps);
        for (int64_t c = 0; c < cols; ++c)
            dot += dy[r * cols + c] * ((sr[c] - mean) * rstd * w[c] + (rms ? 0.0 : b[c]));
    }
    return dot;
}

}  // namespace kl
