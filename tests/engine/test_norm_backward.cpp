// The layernorm_backward ladder's CPU reference (model/ops/norm_backward_ref.*) against central
// finite differences of an independent double forward, and the operations' buffers and
// tolerances (model library only, no GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "model/operation.h"
#include "model/ops/norm_backward_ref.h"

using namespace kl;

namespace {

struct Case {
    int64_t rows, cols;
    std::vector<float> s, dy, w, b;
};

// Random values in float (the reference reads float), row 1 constant (variance 0: rstd =
// 1 / sqrt(eps), the forward's special row) and row 2 with a mean far from zero.
Case make_case(int64_t rows, int64_t cols, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    Case c{rows, cols, {}, {}, {}, {}};
    for (int64_t i = 0; i < rows * cols; ++i) {
        c.s.push_back(u(gen));
        c.dy.push_back(u(gen));
    }
    for (int64_t j = 0; j < cols; ++j) {
        c.w.push_back(1.f + 0.5f * u(gen));
        c.b.push_back(0.5f * u(gen));
        if (rows > 1) c.s[cols + j] = 0.375f;
        if (rows > 2) c.s[2 * cols + j] += 32.f;
    }
    return c;
}

std::vector<double> as_double(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }

// d/dv of sum(dy * y) by central differences, v one of s, w, b (index i), in double.
double numeric(const Case& c, bool rms, char which, int64_t i) {
    std::vector<double> s = as_double(c.s), w = as_double(c.w), b = as_double(c.b), dy = as_double(c.dy);
    std::vector<double>& v = which == 's' ? s : which == 'w' ? w : b;
    const double h = 1e-6 * std::max(1.0, std::fabs(v[i]));
    const double keep = v[i];
    v[i] = keep + h;
    const double up = norm_forward_dot(s, w, b, dy, c.rows, c.cols, rms);
    v[i] = keep - h;
    const double down = norm_forward_dot(s, w, b, dy, c.rows, c.cols, rms);
    return (up - down) / (2 * h);
}

void check_against_finite_differences(int64_t rows, int64_t cols, bool rms) {
    const Case c = make_case(rows, cols, 7u + unsigned(rows * 31 + cols));
    std::vector<float> dx(static_cast<size_t>(rows * cols));
    std::vector<double> dgamma(static_cast<size_t>(cols)), dbeta(static_cast<size_t>(cols));
    norm_backward_rows(c.s.data(), c.dy.data(), c.w.data(), rows, cols, rms, dx.data(), dgamma, dbeta);
    // Central differences err by h^2 * f''' / 6: near the constant row's zero variance f''' is
    // of order f / eps, so h^2 / eps = 1e-7 of the value; rounding adds 1e-16 * 30 / h, 3e-9.
    // Hence 1e-6 relative; dx is rounded to float, 6e-8 relative more.
    auto near = [](double want, double got) { return std::fabs(got - want) <= 1e-6 * (1 + std::fabs(want)); };
    for (int64_t i = 0; i < rows * cols; ++i)
        EXPECT_TRUE(near(numeric(c, rms, 's', i), dx[i]))
            << "dx[" << i << "] " << dx[i] << " vs " << numeric(c, rms, 's', i) << (rms ? " (RMSNorm)" : "");
    for (int64_t j = 0; j < cols; ++j) {
        EXPECT_TRUE(near(numeric(c, rms, 'w', j), dgamma[j])) << "dgamma[" << j << "] " << dgamma[j];
        if (!rms) { EXPECT_TRUE(near(numeric(c, rms, 'b', j), dbeta[j])) << "dbeta[" << j << "] " << dbeta[j]; }
    }
}

}  // namespace

TEST(NormBackwardReference, LayerNormMatchesFiniteDifferences) {
    check_against_finite_differences(4, 5, false);
    check_against_finite_differences(3, 1, false);  // one column: xhat = 0, dx = 0 exactly
}

TEST(NormBackwardReference, RmsNormMatchesFiniteDifferences) { check_against_finite_differences(4, 7, true); }

// The row statistics the forward saves: a constant row has variance 0 and rstd 1 / sqrt(eps).
TEST(NormBackwardReference, RowStatisticsOfAConstantRow) {
    const std::vector<float> row(9, 0.375f);
    double mean = 0, rstd = 0;
    norm_row_stats(row.data(), 9, false, &mean, &rstd);
    EXPECT_DOUBLE_EQ(mean, 0.375);
    EXPECT_NEAR(rstd, 1 / std::sqrt(kNormBackwardEps), 1e-9);
    norm_row_stats(row.data(), 9, true, &mean, &rstd);
    EXPECT_DOUBLE_EQ(mean, 0.0);
    EXPECT_NEAR(rstd, 1 / std::sqrt(0.375 * 0.375 + kNormBackwardEps), 1e-12);
}

TEST(NormBackwardOperation, BuffersOfLayerNormAndRmsNorm) {
    const Operation* ln = find_operation("layernorm_backward");
    const Operation* rms = find_operation("rmsnorm_backward");
    ASSERT_NE(ln, nullptr);
    ASSERT_NE(rms, nullptr);
    Problem p;
    p.sizes = {{"rows", 3}, {"cols", 5}};
    p.dtype = DType::BF16;
    auto names = [&](const Operation* op, BufferDecl::Role role) {
        std::string out;
        for (const auto& b : op->buffers(p))
            if (b.role == role) out += b.name + ":" + to_string(b.dtype) + ":" + std::to_string(b.elements) + " ";
        return out;
    };
    EXPECT_EQ(names(ln, BufferDecl::Role::Input), "s:bf16:15 w:bf16:5 dy:bf16:15 mean:fp32:3 rstd:fp32:3 ");
    EXPECT_EQ(names(ln, BufferDecl::Role::Output), "dx:bf16:15 dgamma:bf16:5 dbeta:bf16:5 ");
    EXPECT_EQ(names(rms, BufferDecl::Role::Input), "s:bf16:15 w:bf16:5 dy:bf16:15 rstd:fp32:3 ");
    EXPECT_EQ(names(rms, BufferDecl::Role::Output), "dx:bf16:15 dgamma:bf16:5 ");
    // The floor: s and dy read, dx written, w read, dgamma and dbeta written (no statistics).
    EXPECT_DOUBLE_EQ(ln->work(p).ideal_bytes, (3 * 15 + 3 * 5) * 2);
    EXPECT_DOUBLE_EQ(rms->work(p).ideal_bytes, (3 * 15 + 2 * 5) * 2);
}

// dgamma and dbeta sum over the rows: their absolute tolerance grows with them; dx's does not.
TEST(NormBackwardOperation, SumsOverRowsGetATolerancePerRow) {
    const Operation* ln = find_operation("layernorm_backward");
    ASSERT_NE(ln, nullptr);
    Problem p;
    p.sizes = {{"rows", 4096}, {"cols", 4096}};
    const Tolerance dx = ln->tolerance_of(p, "dx"), dgamma = ln->tolerance_of(p, "dgamma");
    EXPECT_DOUBLE_EQ(dx.abs, ln->tolerance(p).abs);
    EXPECT_NEAR(dgamma.abs, 1e-5 + 4096.0 / (1 << 20), 1e-12);
    EXPECT_DOUBLE_EQ(ln->tolerance_of(p, "dbeta").abs, dgamma.abs);
    p.sizes["rows"] = 1;
    EXPECT_LT(ln->tolerance_of(p, "dgamma").abs, 2e-5 + 1e-5);  // one row: the fp32 floor of dx
    p.dtype = DType::BF16;
    p.sizes["rows"] = 65536;
    EXPECT_NEAR(ln->tolerance_of(p, "dgamma").abs, 1e-5 + 65536.0 / (1 << 20), 1e-12);
    EXPECT_DOUBLE_EQ(ln->tolerance_of(p, "dgamma").rel, ln->tolerance(p).rel);
}
