// The CPU reference of the attention_backward ladder (ops/attention_backward.cpp), apart so that
// unit tests check it against finite differences without a GPU.
//
// One head of N tokens, head dimension d, scale = 1 / sqrt(d); rows of [N][d] matrices.
// Forward: s_ij = scale q_i . k_j, L_i = ln sum_j exp(s_ij), P_ij = exp(s_ij - L_i), O = P V
// (causal: only keys j <= i are visible, P_ij = 0 beyond).
// Backward, given dO and the forward's O and L (P recomputed from L, never stored):
//   dV = P^T dO,  dP = dO V^T,  D_i = rowsum(dO_i * O_i),  dS = P * (dP - D),
//   dQ = scale dS K,  dK = scale dS^T Q.
// D_i = sum_j P_ij dP_ij because O_i = sum_j P_ij v_j: the softmax's Jacobian contracted with dP.
// Everything in double; the inputs are what the rungs read (O and L as stored).
#pragma once
#include <cstdint>
#include <vector>

namespace kl {

// One head's inputs: pointers to [n][d] rows (lse: n values). T is float (the operation's
// downloads) or double (the finite-difference test).
template <class T>
struct AttentionHead {
    const T *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *dout = nullptr, *lse = nullptr;
    int64_t n = 0, d = 0;
    bool causal = false;
};

// dQ of query row i (d values), and dK, dV of key row j (d values each): O(n d) each, so that a
// GPU reference can be spot-checked row by row at any size.
template <class T>
void attention_backward_dq_row(const AttentionHead<T>& h, int64_t i, double* dq);
template <class T>
void attention_backward_dkdv_row(const AttentionHead<T>& h, int64_t j, double* dk, double* dv);

// The whole head: dq, dk, dv resized to n * d.
template <class T>
void attention_backward_head(const AttentionHead<T>& h, std::vector<double>& dq, std::vector<double>& dk,
                             std::vector<double>& dv);

// The forward of one head in double: o (n * d) and lse (n), resized.
void attention_forward_head(const double* q, const double* k, const double* v, int64_t n, int64_t d, bool causal,
                            std::vector<double>& o, std::vector<double>& lse);

}  // namespace kl
