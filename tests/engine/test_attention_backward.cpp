// The attention_backward ladder's CPU reference (model/ops/attention_backward_ref.*) against a
// case worked by hand and central finite differences of the double forward, and the operation's
// buffers, work and tolerance (model library only, no GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "model/operation.h"
#include "model/ops/attention_backward_ref.h"

using namespace kl;

namespace {

struct Grads {
    std::vector<double> o, lse, dq, dk, dv;
};

// The forward, then the backward from its O and L: what the operation's inputs are.
Grads run(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v,
          const std::vector<double>& dout, int64_t n, int64_t d, bool causal) {
    Grads g;
    attention_forward_head(q.data(), k.data(), v.data(), n, d, causal, g.o, g.lse);
    AttentionHead<double> h;
    h.q = q.data(), h.k = k.data(), h.v = v.data(), h.o = g.o.data(), h.dout = dout.data(), h.lse = g.lse.data();
    h.n = n, h.d = d, h.causal = causal;
    attention_backward_head(h, g.dq, g.dk, g.dv);
    return g;
}

// sum(dO * O) as a function of one of q, k, v: its gradient is the backward's output.
double forward_dot(const std::vector<double>& q, const std::vector<double>& k, const std::vector<double>& v,
                   const std::vector<double>& dout, int64_t n, int64_t d, bool causal) {
    std::vector<double> o, lse;
    attention_forward_head(q.data(), k.data(), v.data(), n, d, causal, o, lse);
    double s = 0;
    for (size_t e = 0; e < o.size(); ++e) s += dout[e] * o[e];
    return s;
}

void check_attention_against_finite_differences(int64_t n, int64_t d, bool causal) {
    std::mt19937 gen(static_cast<unsigned>(11 + n * 7 + d));
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> q(n * d), k(n * d), v(n * d), dout(n * d);
    for (auto* t : {&q, &k, &v, &dout})
        for (double& x : *t) x = (t == &q ? 3.0 : 1.0) * u(gen);  // Q wider, as the operation's inputs
    const Grads g = run(q, k, v, dout, n, d, causal);
    // Central differences err by h^2 f''' / 6 (f''' of order 10 here: 2e-10 at h = 1e-5) plus
    // rounding, 1e-16 x 10 / h = 1e-10: 1e-7 leaves a wide margin, and a missing term (D, the
    // scale, a mask) misses by 1e-2 or more.
    const double h = 1e-5;
    auto numeric = [&](std::vector<double>& t, size_t e) {
        const double keep = t[e];
        t[e] = keep + h;
        const double up = forward_dot(q, k, v, dout, n, d, causal);
        t[e] = keep - h;
        const double down = forward_dot(q, k, v, dout, n, d, causal);
        t[e] = keep;
        return (up - down) / (2 * h);
    };
    for (size_t e = 0; e < q.size(); ++e) {
        EXPECT_NEAR(g.dq[e], numeric(q, e), 1e-7) << "dQ[" << e << "] n=" << n << " d=" << d << " causal=" << causal;
        EXPECT_NEAR(g.dk[e], numeric(k, e), 1e-7) << "dK[" << e << "] n=" << n << " d=" << d << " causal=" << causal;
        EXPECT_NEAR(g.dv[e], numeric(v, e), 1e-7) << "dV[" << e << "] n=" << n << " d=" << d << " causal=" << causal;
    }
}

}  // namespace

TEST(AttentionBackwardReference, MatchesFiniteDifferences) {
    check_attention_against_finite_differences(5, 3, false);
    check_attention_against_finite_differences(5, 3, true);
    check_attention_against_finite_differences(1, 4, false);  // one token: P = 1, O = V, dQ = dK = 0
}

// Worked by hand (d = 1, so scale = 1): q = 0 makes every score 0. Keys k = (1, 2), values
// v = (1, 3), dO = (1, 1).
// Not causal: P = 1/2 everywhere, L = ln 2, O = (2, 2), D = dO * O = (2, 2), dP_ij = v_j,
// dS = P (dP - D) = [[-1/2, 1/2], [-1/2, 1/2]]; dQ_i = sum_j dS_ij k_j = 1/2, dK = dS^T q = 0,
// dV_j = sum_i P_ij dO_i = 1.
// Causal: P = [[1, 0], [1/2, 1/2]], L = (0, ln 2), O = (1, 2), D = (1, 2),
// dS = [[0, 0], [-1/2, 1/2]]; dQ = (0, 1/2), dK = 0, dV = (3/2, 1/2).
TEST(AttentionBackwardReference, TwoTokensByHand) {
    const std::vector<double> q = {0, 0}, k = {1, 2}, v = {1, 3}, dout = {1, 1};
    const Grads full = run(q, k, v, dout, 2, 1, false);
    EXPECT_NEAR(full.lse[0], std::log(2.0), 1e-15);
    EXPECT_NEAR(full.o[1], 2.0, 1e-15);
    for (int i = 0; i < 2; ++i) {
        EXPECT_NEAR(full.dq[i], 0.5, 1e-15);
        EXPECT_NEAR(full.dk[i], 0.0, 1e-15);
        EXPECT_NEAR(full.dv[i], 1.0, 1e-15);
    }
    const Grads causal = run(q, k, v, dout, 2, 1, true);
    EXPECT_NEAR(causal.lse[0], 0.0, 1e-15);
    EXPECT_NEAR(causal.o[0], 1.0, 1e-15);
    EXPECT_NEAR(causal.dq[0], 0.0, 1e-15);
    EXPECT_NEAR(causal.dq[1], 0.5, 1e-15);
    EXPECT_NEAR(causal.dv[0], 1.5, 1e-15);
    EXPECT_NEAR(causal.dv[1], 0.5, 1e-15);
    EXPECT_NEAR(causal.dk[0], 0.0, 1e-15);
}

// The row functions the GPU reference is spot-checked with give the rows of the whole head.
TEST(AttentionBackwardReference, RowsAgreeWithTheHead) {
    std::mt19937 gen(5);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    const int64_t n = 6, d = 4;
    std::vector<float> q(n * d), k(n * d), v(n * d), o(n * d), dout(n * d), lse(n);
    for (auto* t : {&q, &k, &v, &o, &dout, &lse})
        for (float& x : *t) x = u(gen);
    AttentionHead<float> h;
    h.q = q.data(), h.k = k.data(), h.v = v.data(), h.o = o.data(), h.dout = dout.data(), h.lse = lse.data();
    h.n = n, h.d = d, h.causal = true;
    std::vector<double> dq, dk, dv, row(d), row2(d);
    attention_backward_head(h, dq, dk, dv);
    attention_backward_dq_row(h, 3, row.data());
    for (int64_t c = 0; c < d; ++c) EXPECT_DOUBLE_EQ(row[c], dq[3 * d + c]);
    attention_backward_dkdv_row(h, 2, row.data(), row2.data());
    for (int64_t c = 0; c < d; ++c) {
        EXPECT_DOUBLE_EQ(row[c], dk[2 * d + c]);
        EXPECT_DOUBLE_EQ(row2[c], dv[2 * d + c]);
    }
}

TEST(AttentionBackwardOperation, BuffersWorkAndTolerance) {
    const Operation* op = find_operation("attention_backward");
    ASSERT_NE(op, nullptr);
    Problem p;
    p.sizes = {{"B", 2}, {"H", 3}, {"N", 5}, {"d", 64}, {"causal", 0}};
    p.dtype = DType::BF16;
    std::string in, out;
    for (const auto& b : op->buffers(p))
        (b.role == BufferDecl::Role::Input ? in : out) +=
            b.name + ":" + to_string(b.dtype) + ":" + std::to_string(b.elements) + " ";
    EXPECT_EQ(in, "Q:bf16:1920 K:bf16:1920 V:bf16:1920 O:bf16:1920 dO:bf16:1920 L:fp32:30 ");
    EXPECT_EQ(out, "dQ:bf16:1920 dK:bf16:1920 dV:bf16:1920 ");
    // Five products of 2 N^2 d per head, 2.5 times the forward's count; causal half.
    const Operation* fwd = find_operation("attention");
    ASSERT_NE(fwd, nullptr);
    EXPECT_DOUBLE_EQ(op->work(p).flops, 10.0 * 6 * 25 * 64);
    EXPECT_DOUBLE_EQ(op->work(p).flops, 2.5 * fwd->work(p).flops);
    // The floor: five [B, H, N, d] tensors and L read, three written.
    EXPECT_DOUBLE_EQ(op->work(p).ideal_bytes, 8.0 * 1920 * 2 + 4 * 30);
    p.sizes["causal"] = 1;
    EXPECT_DOUBLE_EQ(op->work(p).flops, 5.0 * 6 * 25 * 64);
    EXPECT_EQ(op->dtypes(), std::vector<DType>{DType::BF16});
    EXPECT_DOUBLE_EQ(op->tolerance(p).abs, 1e-2);
    EXPECT_DOUBLE_EQ(op->tolerance(p).rel, 2e-2);
    EXPECT_DOUBLE_EQ(op->tolerance_of(p, "dK").abs, op->tolerance(p).abs);
}
