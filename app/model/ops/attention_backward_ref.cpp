#include "model/ops/attention_backward_ref.h"

#include <algorithm>
#include <cmath>

namespace kl {

namespace {

template <class A, class B>
double dot(const A* a, const B* b, int64_t d) {
    double s = 0;
    for (int64_t c = 0; c < d; ++c) s += double(a[c]) * double(b[c]);
    return s;
}

// P_ij recomputed from the saved L_i; 0 where the mask hides key j from query i.
template <class T>
double prob(const AttentionHead<T>& h, int64_t i, int64_t j, double scale) {
    if (h.causal && j > i) return 0.0;
    return std::exp(scale * dot(h.q + i * h.d, h.k + j * h.d, h.d) - double(h.lse[i]));
}

// dS_ij = P_ij (dO_i . v_j - D_i).
template <class T>
double dscore(const AttentionHead<T>& h, int64_t i, int64_t j, double scale, double d_i) {
    const double p = prob(h, i, j, scale);
    return p == 0.0 ? 0.0 : p * (dot(h.dout + i * h.d, h.v + j * h.d, h.d) - d_i);
}

}  // namespace

template <class T>
void attention_backward_dq_row(const AttentionHead<T>& h, int64_t i, double* dq) {
    const double scale = 1.0 / std::sqrt(double(h.d));
    const double d_i = dot(h.dout + i * h.d, h.o + i * h.d, h.d);
    std::fill(dq, dq + h.d, 0.0);
    const int64_t keys = h.causal ? i + 1 : h.n;
    for (int64_t j = 0; j < keys; ++j) {
        const double ds = dscore(h, i, j, scale, d_i);
        for (int64_t c = 0; c < h.d; ++c) dq[c] += scale * ds * double(h.k[j * h.d + c]);
    }
}

template <class T>
void attention_backward_dkdv_row(const AttentionHead<T>& h, int64_t j, double* dk, double* dv) {
    const double scale = 1.0 / std::sqrt(double(h.d));
    std::fill(dk, dk + h.d, 0.0);
    std::fill(dv, dv + h.d, 0.0);
    for (int64_t i = h.causal ? j : 0; i < h.n; ++i) {
        const double d_i = dot(h.dout + i * h.d, h.o + i * h.d, h.d);
        const double p = prob(h, i, j, scale);
        const double ds = p * (dot(h.dout + i * h.d, h.v + j * h.d, h.d) - d_i);
        for (int64_t c = 0; c < h.d; ++c) {
            dv[c] += p * double(h.dout[i * h.d + c]);
            dk[c] += scale * ds * double(h.q[i * h.d + c]);
        }
    }
}

template <class T>
void attention_backward_head(const AttentionHead<T>& h, std::vector<double>& dq, std::vector<double>& dk,
                             std::vector<double>& dv) {
    const size_t size = static_cast<size_t>(h.n * h.d);
    dq.assign(size, 0.0);
    dk.assign(size, 0.0);
    dv.assign(size, 0.0);
    for (int64_t r = 0; r < h.n; ++r) {
        attention_backward_dq_row(h, r, dq.data() + r * h.d);
        attention_backward_dkdv_row(h, r, dk.data() + r * h.d, dv.data() + r * h.d);
    }
}

void attention_forward_head(const double* q, const double* k, const double* v, int64_t n, int64_t d, bool causal,
                            std::vector<double>& o, std::vector<double>& lse) {
    const double scale = 1.0 / std::sqrt(double(d));
    o.assign(static_cast<size_t>(n * d), 0.0);
    lse.assign(static_cast<size_t>(n), 0.0);
    std::vector<double> s(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const int64_t keys = causal ? i + 1 : n;
        double m = -INFINITY;
        for (int64_t j = 0; j < keys; ++j) m = std::max(m, s[j] = scale * dot(q + i * d, k + j * d, d));
        double l = 0;
        for (int64_t j = 0; j < keys; ++j) l += (s[j] = std::exp(s[j] - m));
        for (int64_t j = 0; j < keys; ++j)
            for (int64_t c = 0; c < d; ++c) o[i * d + c] += s[j] / l * v[j * d + c];
        lse[i] = m + std::log(l);
    }
}

template void attention_backward_dq_row(const AttentionHead<float>&, int64_t, double*);
template void attention_backward_dq_row(const AttentionHead<double>&, int64_t, double*);
template void attention_backward_dkdv_row(const AttentionHead<float>&, int64_t, double*, double*);
template void attention_backward_dkdv_row(const AttentionHead<double>&, int64_t, double*, double*);
template void attention_backward_head(const AttentionHead<float>&, std::vector<double>&, std::vector<double>&,
                                      std::vector<double>&);
template void attention_backward_head(const AttentionHead<double>&, std::vector<double>&, std::vector<double>&,
                                      std::vector<double>&);

}  // namespace kl
