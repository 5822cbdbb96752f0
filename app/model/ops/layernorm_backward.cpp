// Operations of the layernorm_backward ladder (kernels/layernorm_backward/): the backward pass of
// the norm the layernorm ladder computes forward. layernorm_backward: given s (the forward's
// input, rows x cols), w (cols), dy (rows x cols) and the row statistics the forward saved (mean,
// rstd: rows, fp32), write dx (rows x cols), dgamma and dbeta (cols); rmsnorm_backward: the same
// without mean and dbeta. eps = 1e-5 as forward. The math: model/ops/norm_backward_ref.h.
//
// The reference runs on the CPU in double (norm_backward_ref.cpp), with the statistics taken from
// s itself, not from the saved fp32 ones: a rung may read them or recompute them. Rows 1..3 of s
// hold the forward ladder's special values (a mean of 32, a constant row, a row 64 times wider).
#include <algorithm>
#include <cmath>

#include "model/op_context.h"
#include "model/operation.h"
#include "model/ops/norm_backward_ref.h"

namespace kl {

namespace {

float round_to(DType t, float v) {
    if (t == DType::BF16) return bf16_to_float(float_to_bf16(v));
    if (t == DType::F16) return half_to_float(float_to_half(v));
    return v;
}

class NormBackward : public Operation {
  public:
    explicit NormBackward(bool rms) : rms_(rms) {}
    std::string name() const override { return rms_ ? "rmsnorm_backward" : "layernorm_backward"; }
    std::string description() const override {
        return rms_ ? "RMSNorm backward: dx, dgamma from s, w, dy (and the saved rstd), per row of rows x cols"
                    : "LayerNorm backward: dx, dgamma, dbeta from s, w, dy (and the saved mean, rstd), rows x cols";
    }
    std::vector<SizeAxis> size_axes() const override {
        return {{"rows", 1, (int64_t(1) << 31) - 1, "rows (tokens): dgamma and dbeta sum over them"},
                {"cols", 1, int64_t(1) << 20, "row length (hidden size)"}};
    }
    std::vector<DType> dtypes() const override { return {DType::F32, DType::BF16, DType::F16}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        const int64_t rows = p.size("rows"), cols = p.size("cols"), n = rows * cols;
        std::vector<BufferDecl> b = {{"s", p.dtype, n, BufferDecl::Role::Input},
                                     {"w", p.dtype, cols, BufferDecl::Role::Input},
                                     {"dy", p.dtype, n, BufferDecl::Role::Input}};
        if (!rms_) b.push_back({"mean", DType::F32, rows, BufferDecl::Role::Input});
        b.push_back({"rstd", DType::F32, rows, BufferDecl::Role::Input});
        b.push_back({"dx", p.dtype, n, BufferDecl::Role::Output});
        b.push_back({"dgamma", p.dtype, cols, BufferDecl::Role::Output});
        if (!rms_) b.push_back({"dbeta", p.dtype, cols, BufferDecl::Role::Output});
        return b;
    }
    // FLOPs per element by the usual count: xhat (2: subtract, scale), g = dy * w (1), the two row
    // sums of g and g * xhat (3), dx (4: two multiply-adds, subtract, scale), dgamma and dbeta
    // (3): 13; RMSNorm 9 (no mean, no dbeta). The floor of traffic: s and dy read, dx written,
    // w read and dgamma (and dbeta) written once; no statistics (a rung can recompute them from s
    // in registers; the rungs that read the saved ones add 8 bytes a row in their models).
    Work work(const Problem& p) const override {
        const double cols = double(p.size("cols")), n = double(p.size("rows")) * cols;
        return {(rms_ ? 9 : 13) * n, (3 * n + (rms_ ? 2 : 3) * cols) * dtype_size(p.dtype)};
    }
    // dx: fp32 sums over a row of 4096 err by about 1e-7 of the row's scale (a few 1e-7 of
    // |dx|, which is of order 1; up to 316 in the constant row, where rstd = 1 / sqrt(eps)); the
    // saved fp32 statistics differ from the double ones by one rounding (in row 1, mean 32, by
    // 2e-6, which moves dx by rstd^2 * 2e-6 * mean(g * xhat), 1e-7). Hence 2e-5 absolute and
    // relative in fp32. In 16-bit storage dx itself is rounded: half an ulp is 2^-9 of |dx| in
    // bf16, 2^-12 in fp16; the tolerances allow twice that plus a floor (the forward's). Leaving
    // out mean(g) or xhat * mean(g * xhat) misses by 1e-2 of |dx|.
    Tolerance tolerance(const Problem& p) const override {
        switch (p.dtype) {
            case DType::BF16: return {2e-3, 4e-3};
            case DType::F16: return {5e-4, 1e-3};
            default: return {2e-5, 2e-5};
        }
    }
    // dgamma and dbeta sum `rows` terms dy * xhat and dy (|term| < 2): an fp32 sum with random
    // signs errs by about u * 0.5 * rows (u = 2^-24: each of the rows additions rounds a partial
    // sum of order sqrt(rows) by u, and those errors add up like a random walk), whatever order
    // the blocks add in. The absolute tolerance is 2^-20 * rows, 16 times that estimate with a
    // floor of 1e-5: 4e-3 at 4096 rows, for sums of order 30 (relative 1e-4). A row left out moves
    // a sum by 0.45 on average, and a wrong scale by far more. In 16-bit storage the sum is then
    // rounded: the dtype's relative tolerance of dx covers it.
    Tolerance tolerance_of(const Problem& p, const std::string& buffer) const override {
        Tolerance t = tolerance(p);
        if (buffer == "dgamma" || buffer == "dbeta")
            t.abs = std::max(t.abs, 1e-5 + std::ldexp(double(p.size("rows")), -20));
        return t;
    }
    // s and dy in [-1, 1), w in [0.5, 1.5); rows 1..3 of s made special as in the forward's inputs;
    // then the statistics of s as stored, as the forward saved them (fp32).
    void make_inputs(const Problem& p, OpContext& gpu, uint64_t seed) const override {
        gpu.fill_uniform(gpu.buffer("s"), seed * 1000003u + 1, -1.f, 1.f);
        gpu.fill_uniform(gpu.buffer("dy"), seed * 1000003u + 2, -1.f, 1.f);
        gpu.fill_uniform(gpu.buffer("w"), seed * 1000003u + 3, 0.5f, 1.5f);
        const int64_t rows = p.size("rows"), cols = p.size("cols");
        std::vector<float> s = gpu.download_as_float(gpu.buffer("s"));
        for (int64_t c = 0; c < cols; ++c) {
            if (rows > 1) s[cols + c] = round_to(p.dtype, s[cols + c] + 32.f);  // var = E[s^2] - E[s]^2 cancels
            if (rows > 2) s[2 * cols + c] = 0.375f;                             // variance 0: rstd = 1 / sqrt(eps)
            if (rows > 3) s[3 * cols + c] = round_to(p.dtype, s[3 * cols + c] * 64.f);
        }
        gpu.upload_from_float(gpu.buffer("s"), s);
        std::vector<float> mean(static_cast<size_t>(rows)), rstd(static_cast<size_t>(rows));
        for (int64_t r = 0; r < rows; ++r) {
            double m = 0, rs = 0;
            norm_row_stats(s.data() + r * cols, cols, rms_, &m, &rs);
            mean[r] = float(m);
            rstd[r] = float(rs);
        }
        if (!rms_) gpu.upload_from_float(gpu.buffer("mean"), mean);
        gpu.upload_from_float(gpu.buffer("rstd"), rstd);
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        const int64_t rows = p.size("rows"), cols = p.size("cols");
        const std::vector<float> s = gpu.download_as_float(gpu.buffer("s"));
        const std::vector<float> dy = gpu.download_as_float(gpu.buffer("dy"));
        const std::vector<float> w = gpu.download_as_float(gpu.buffer("w"));
        std::vector<float> dx(static_cast<size_t>(rows * cols));
        std::vector<double> dgamma(static_cast<size_t>(cols)), dbeta(static_cast<size_t>(cols));
        norm_backward_rows(s.data(), dy.data(), w.data(), rows, cols, rms_, dx.data(), dgamma, dbeta);
        out["dx"] = std::move(dx);
        out["dgamma"] = std::vector<float>(dgamma.begin(), dgamma.end());
        if (!rms_) out["dbeta"] = std::vector<float>(dbeta.begin(), dbeta.end());
    }
    std::pair<int64_t, int64_t> output_shape(const Problem& p, const std::string& buffer) const override {
        if (buffer == "dx") return {p.size("rows"), p.size("cols")};
        return {0, 0};
    }

  private:
    bool rms_;
};

class LayerNormBackward : public NormBackward {
  public:
    LayerNormBackward() : NormBackward(false) {}
};
class RmsNormBackward : public NormBackward {
  public:
    RmsNormBackward() : NormBackward(true) {}
};

}  // namespace

KL_REGISTER_OPERATION(LayerNormBackward)
KL_REGISTER_OPERATION(RmsNormBackward)

}  // namespace kl
