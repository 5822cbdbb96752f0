// The CPU reference of the layernorm_backward ladder (ops/layernorm_backward.cpp), apart so that
// unit tests check it against finite differences without a GPU.
//
// Forward (per row of `cols` values s): LayerNorm xhat = (s - mean) * rstd, rstd = 1 / sqrt(var +
// eps), y = xhat * w + b; RMSNorm xhat = s * rstd, rstd = 1 / sqrt(mean(s^2) + eps), y = xhat * w.
// Backward, given dy, with g = dy * w and means over the row:
//   LayerNorm dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),   RMSNorm dx = rstd * (g - xhat *
//   mean(g * xhat)); dgamma = sum over rows of dy * xhat; dbeta = sum over rows of dy.
// Everything in double, the statistics from s itself (two passes), whatever a rung reads.
#pragma once
#include <cstdint>
#include <vector>

namespace kl {

constexpr double kNormBackwardEps = 1e-5;  // torch's layer_norm default, as the forward ladder

// Mean and rstd of one row, in double (mean = 0 for RMSNorm).
void norm_row_stats(const float* s, int64_t cols, bool rms, double* mean, double* rstd);

// dx of rows [first, first + count) into dx (count * cols values), and dy * xhat and dy added
// into dgamma and dbeta (cols values each; dbeta unused when rms).
void norm_backward_rows(const float* s, const float* dy, const float* w, int64_t count, int64_t cols, bool rms,
                        float* dx, std::vector<double>& dgamma, std::vector<double>& dbeta);

// y of the forward in double, for the finite-difference test: sum over the problem of dy * y.
double norm_forward_dot(const std::vector<double>& s, const std::vector<double>& w, const std::vector<double>& b,
                        const std::vector<double>& dy, int64_t rows, int64_t cols, bool rms);

}  // namespace kl
