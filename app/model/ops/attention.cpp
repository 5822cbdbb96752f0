// Operation of the attention ladder (kernels/attention/): O = softmax(Q K^T / sqrt(d)) V for
// each of B x H heads of N tokens, head dimension d. Q, K, V and O are [B, H, N, d] contiguous
// in the problem's dtype (fp32 or bf16). Every rung also writes lse[B, H, N] in fp32: the
// natural log-sum-exp of each query row's scaled scores, the one number per row that a
// FlashAttention forward keeps for its backward pass. causal = 1 lets query i see keys 0..i;
// key 0 is always visible, so no row is ever fully masked (N = 1 included: O = V).
//
// [SECTION] index: inputs and tolerance / reference (GPU, double) / CPU self-check / operation
//
// The reference is kernels/attention/reference.cu: a direct double-precision computation, O(N)
// memory, never a materialized score matrix (so it serves the sizes the flash rungs can run).
// Each time it runs, a few of its rows are recomputed on the CPU in double and must agree to
// 1e-6: a reference that drifts is an error, not a silently wrong baseline.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/errors.h"
#include "model/op_context.h"
#include "model/operation.h"
#include "model/ops/attention_forward_reference.h"

namespace kl {

namespace {

// [SECTION] Inputs and tolerance
//
// Q is uniform in [-6, 6), K and V in [-1, 1). Then a scaled score q.k / sqrt(d) has standard
// deviation 6 / 3 = 2 for any d, so softmax rows are peaked (a few tens of keys carry most of the
// weight at N = 4096) and O has entries of order 0.1: a kernel that averaged V uniformly, or
// dropped a key block, fails clearly. With unit-range Q the rows would be nearly flat and O
// close to zero for every N, which would hide such bugs.
constexpr float kQueryRange = 6.f;

// [SECTION] CPU self-check of the reference

// `count` elements of `buf` from element `first`, as float.
std::vector<float> download_slice(OpContext& gpu, const DeviceArray& buf, int64_t first, int64_t count) {
    const size_t es = static_cast<size_t>(dtype_size(buf.dtype()));
    std::vector<unsigned char> raw =
        gpu.download_bytes(buf, static_cast<size_t>(first) * es, static_cast<size_t>(count) * es);
    std::vector<float> out(static_cast<size_t>(count));
    for (size_t i = 0; i < out.size(); ++i) {
        if (buf.dtype() == DType::F32) {
            std::memcpy(&out[i], &raw[i * 4], 4);
        } else {
            uint16_t b;
            std::memcpy(&b, &raw[i * 2], 2);
            out[i] = buf.dtype() == DType::BF16 ? bf16_to_float(b) : half_to_float(b);
        }
    }
    return out;
}

// Recomputes a few query rows on the CPU in double and compares them with the GPU reference
// (O as float [B*H*N][d], lse as float [B*H*N]). Throws GpuError on a disagreement.
void self_check_reference(const Problem& p, OpContext& gpu, const std::vector<float>& ref_o,
                          const std::vector<float>& ref_lse) {
    const int64_t bh_count = p.size("B") * p.size("H"), n = p.size("N"), d = p.size("d");
    const bool causal = p.size("causal") != 0;
    // First and last rows of the first head, and rows in the middle and at the end of others.
    const std::set<std::pair<int64_t, int64_t>> rows = {
        {0, 0}, {0, n - 1}, {bh_count / 2, (2 * n) / 3}, {bh_count - 1, n / 2}, {bh_count - 1, n - 1}};
    const double scale = 1.0 / std::sqrt(double(d));
    int64_t loaded_head = -1;
    std::vector<float> k, v;
    for (const auto& [bh, i] : rows) {
        if (bh != loaded_head) {
            k = download_slice(gpu, gpu.buffer("K"), bh * n * d, n * d);
            v = download_slice(gpu, gpu.buffer("V"), bh * n * d, n * d);
            loaded_head = bh;
        }
        const std::vector<float> q = download_slice(gpu, gpu.buffer("Q"), (bh * n + i) * d, d);
        const int64_t keys = causal ? i + 1 : n;
        std::vector<double> s(static_cast<size_t>(keys));
        double m = -INFINITY;
        for (int64_t j = 0; j < keys; ++j) {
            double dot = 0;
            for (int64_t c = 0; c < d; ++c) dot += double(q[c]) * double(k[j * d + c]);
            s[j] = dot * scale;
            m = std::max(m, s[j]);
        }
        // As the GPU reference: a NaN score makes the row NaN; a row whose every score is -inf
        // has lse -inf and O zero (std::max passes over NaN, so m is the largest number).
        double l = 0;
        for (double& x : s) l += (x = std::isnan(x) ? x : m == -INFINITY ? 0.0 : std::exp(x - m));
        auto mismatch = [&](const char* what, int64_t col, double expected, float got) {
            char msg[320];
            std::snprintf(
                msg, sizeof msg,
                "attention reference self-check failed for %s: %s at head %lld, row %lld, column %lld is %.9g on the "
                "GPU but %.9g on the CPU (double)",
                p.describe().c_str(), what, static_cast<long long>(bh), static_cast<long long>(i),
                static_cast<long long>(col), double(got), expected);
            throw GpuError(msg);
        };
        auto close = [](double expected, float got) {
            if (std::isnan(expected) || std::isnan(got)) return std::isnan(expected) && std::isnan(got);
            if (std::isinf(expected) || std::isinf(got)) return double(got) == expected;
            return std::fabs(double(got) - expected) <= 1e-6 + 1e-6 * std::fabs(expected);
        };
        const double lse = m + std::log(l);
        if (!close(lse, ref_lse[bh * n + i])) mismatch("lse", 0, lse, ref_lse[bh * n + i]);
        for (int64_t c = 0; c < d; ++c) {
            double o = 0;
            for (int64_t j = 0; j < keys; ++j) o += s[j] * double(v[j * d + c]);
            o = l == 0 ? 0.0 : o / l;
            const float got = ref_o[(bh * n + i) * d + c];
            if (!close(o, got)) mismatch("O", c, o, got);
        }
    }
}

// [SECTION] The operation

class Attention : public Operation {
  public:
    std::string name() const override { return "attention"; }
    std::string description() const override {
        return "O = softmax(Q K^T / sqrt(d)) V per head, Q, K, V, O as [B, H, N, d]; also lse[B, H, N] = log-sum-exp "
               "of each "
               "row's scores; causal = 1 masks keys after the query";
    }
    std::vector<SizeAxis> size_axes() const override {
        return {{"B", 1, 65535, "batch"},
                {"H", 1, 65535, "heads"},
                {"N", 1, int64_t(1) << 20, "sequence length (queries = keys)"},
                {"d", 1, 256, "head dimension (the kernels take 64 or 128)"},
                {"causal", 0, 1, "1: query i sees keys 0..i only"}};
    }
    std::vector<DType> dtypes() const override { return {DType::F32, DType::BF16}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        const int64_t rows = p.size("B") * p.size("H") * p.size("N");
        const int64_t n = rows * p.size("d");
        return {{"Q", p.dtype, n, BufferDecl::Role::Input},
                {"K", p.dtype, n, BufferDecl::Role::Input},
                {"V", p.dtype, n, BufferDecl::Role::Input},
                {"O", p.dtype, n, BufferDecl::Role::Output},
                {"lse", DType::F32, rows, BufferDecl::Role::Output}};
    }
    // Two matrix products of 2 N^2 d FLOPs per head. Causal attention is counted as half by the
    // usual convention (the exact share of visible pairs is (N + 1) / 2N), so a rung that skips
    // masked blocks shows about the same TFLOP/s as without the mask, and one that computes and
    // then discards them shows half. Ideal traffic: Q, K, V read once, O and lse written once.
    Work work(const Problem& p) const override {
        const double bh = double(p.size("B")) * double(p.size("H")), n = double(p.size("N")), d = double(p.size("d"));
        const double flops = 4 * bh * n * n * d * (p.size("causal") ? 0.5 : 1.0);
        return {flops, 4 * bh * n * d * dtype_size(p.dtype) + 4 * bh * n};
    }
    // fp32 rungs: the scores' float dot products and exp2 approximations err by a few 1e-7
    // relative, well inside 1e-4; the absolute floor 1e-5 covers outputs near zero (O's
    // entries are weighted means of values in [-1, 1)). Measured: max_abs <= 4e-6.
    // bf16 rungs: the weights P are rounded to bf16 before P V, each by at most u = 2^-8 of
    // itself, so O can move by up to u * max|V| = 3.9e-3 (the weights sum to 1); O itself is
    // rounded to bf16 (at most u |O|). Tolerance: 4e-3 absolute plus 1e-2 relative. Measured
    // (H100): flash 3.0e-3 at most, naive 4.3e-3 (where |O| is large), rel_l2 about 2e-3; a
    // dropped key tile or a wrong rescale moves O by far more (O's entries are of order 0.1). The reference sees the
    // same bf16 inputs, upcast, so input rounding does not count against a rung.
    Tolerance tolerance(const Problem& p) const override {
        if (p.dtype == DType::F32) return {1e-5, 1e-4};
        return {4e-3, 1e-2};
    }
    void make_inputs(const Problem&, OpContext& gpu, uint64_t seed) const override {
        gpu.fill_uniform(gpu.buffer("Q"), seed * 1000003u + 1, -kQueryRange, kQueryRange);
        gpu.fill_uniform(gpu.buffer("K"), seed * 1000003u + 2, -1.f, 1.f);
        gpu.fill_uniform(gpu.buffer("V"), seed * 1000003u + 3, -1.f, 1.f);
    }
    // [SECTION] Reference
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        AttentionForwardOutputs forward = run_attention_forward_reference(p, gpu, "attention reference");
        out["O"] = std::move(forward.o);
        out["lse"] = std::move(forward.lse);
        self_check_reference(p, gpu, out["O"], out["lse"]);
    }
    // O as (B*H*N rows, d columns); lse as (B*H heads, N queries).
    std::pair<int64_t, int64_t> output_shape(const Problem& p, const std::string& buffer) const override {
        const int64_t bh = p.size("B") * p.size("H");
        if (buffer == "lse") return {bh, p.size("N")};
        return {bh * p.size("N"), p.size("d")};
    }
};

}  // namespace

KL_REGISTER_OPERATION(Attention)

}  // namespace kl
