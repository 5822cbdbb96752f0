// Operations of the mlp ladder (kernels/mlp/, lesson 11).
//
// mlp: a transformer block's feed-forward half, Y = GeLU(X W1) W2, row-major, bf16 storage with
// fp32 sums: X (T x D tokens), W1 (D x F), W2 (F x D), Y (T x D, fp32). H = GeLU(X W1) (T x F,
// bf16) is the intermediate every plan stores, since the second product needs all of a row of H
// before any output of that row is done; it is an output too, so that the check sees the first
// product and the activation directly, not only through the second product.
// qkv: the attention block's three input projections as one product, C = X W with
// W = [Wq | Wk | Wv] (D x 3D), C (T x 3D, fp32): the same work as three products of D columns.
//
// References: cuBLAS fp32 with TF32 off (cublas_sgemm) on exact fp32 copies of the bf16 inputs,
// and for mlp the activation in double precision rounded once to bf16 (kernels/mlp/reference.cu).
#include <cmath>

#include "model/op_context.h"
#include "model/operation.h"

namespace kl {

namespace {

KernelArg ptr(const DeviceArray& b) { return KernelArg::pointer(b.data()); }
KernelArg i32(int64_t v) { return KernelArg::i32v(static_cast<int32_t>(v)); }

// An fp32 copy of a bf16 buffer, made on the device.
DeviceArray& upcast(OpContext& gpu, const std::string& from, const std::string& to) {
    const DeviceArray& in = gpu.buffer(from);
    DeviceArray& out = gpu.add_buffer(to, DType::F32, in.elements());
    gpu.launch_helper("mlp/reference.cu", "ref_bf16_to_f32", dim3(gpu.device().sm_count * 8), dim3(256),
                      {ptr(out), ptr(in), KernelArg::i64v(in.elements())});
    return out;
}

void sgemm(OpContext& gpu, DeviceArray& c, const DeviceArray& a, const DeviceArray& b, int64_t M, int64_t N,
           int64_t K) {
    gpu.run_builtin("cublas_sgemm", {ptr(c), ptr(a), ptr(b), i32(M), i32(N), i32(K)});
}

// Kernels take the sizes as 32-bit ints; every matrix must also be indexable in 32 bits per row.
std::vector<SizeAxis> gemm_axes(bool with_hidden) {
    const int64_t max = (int64_t(1) << 31) - 1;
    std::vector<SizeAxis> axes = {{"T", 1, max, "tokens (rows of X and Y)"}, {"D", 1, max, "model width d_model"}};
    if (with_hidden) axes.push_back({"F", 1, max, "hidden width of the MLP (4 d_model in GPT)"});
    return axes;
}

class Mlp : public Operation {
  public:
    std::string name() const override { return "mlp"; }
    std::string description() const override {
        return "Y = GeLU(X W1) W2, bf16 X (T x D), W1 (D x F), W2 (F x D), H = GeLU(X W1) bf16; fp32 sums and Y";
    }
    std::vector<SizeAxis> size_axes() const override { return gemm_axes(true); }
    std::vector<DType> dtypes() const override { return {DType::BF16}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        const int64_t T = p.size("T"), D = p.size("D"), F = p.size("F");
        return {{"X", DType::BF16, T * D, BufferDecl::Role::Input},
                {"W1", DType::BF16, D * F, BufferDecl::Role::Input},
                {"W2", DType::BF16, F * D, BufferDecl::Role::Input},
                {"H", DType::BF16, T * F, BufferDecl::Role::Output},
                {"Y", DType::F32, T * D, BufferDecl::Role::Output}};
    }
    // Two products of 2 T D F FLOPs each (the activation's ~9 T F is not counted, as GEMM counts
    // go). Ideal traffic: X, W1 and W2 read once, Y written once: H need not leave the chip in
    // principle (a fully fused MLP), so its write and read belong to the rungs' models.
    Work work(const Problem& p) const override {
        const double T = double(p.size("T")), D = double(p.size("D")), F = double(p.size("F"));
        return {4 * T * D * F, 2 * (T * D + 2 * D * F) + 4 * T * D};
    }
    // Scales (make_inputs): X uniform in [-1, 1), W1 in +-sqrt(3 / D), W2 in +-sqrt(3 / F), so the
    // pre-activation U has RMS 0.58 whatever D (GeLU's curved middle), H RMS ~0.35, Y RMS ~0.35.
    // What a correct plan differs by, measured on an H100 (2026-11-24):
    // - The fused plans (the epilogue rung, cuBLASLt's GELU epilogue at aligned sizes) round once,
    //   GeLU's result to bf16: one bf16 step (2^-8 relative) where the reference's fp32 sum and
    //   double GeLU round the other way: rel L2 1.6e-4 at 8192 x 4096 x 16384.
    // - A framework's plan (the unfused rung; cuBLASLt's GELU at sizes that are not multiples of
    //   8 does the same) stores U in bf16 before GeLU: a second rounding (2^-9 of U), so H may be
    //   a bf16 step further (0.8516 for 0.8438: 2^-6.8) and Y, a sum of F products of such H with
    //   W2, moves by up to ~F 2^-9 |h| |w2| at small F (2.7e-3 at F = 8) and by 2^-9 |Y| sqrt-ish
    //   at large F: rel L2 3.2e-3, twenty times the fused plans'.
    // Hence 2^-6 relative and 8e-3 absolute: the stored pre-activation is the plan under test, not
    // an error. What a wrong rung misses by: a lost 64-deep K tile of the first product moves H by
    // ~0.07, a wrong tile by ~0.5; an unwritten element is NaN.
    Tolerance tolerance(const Problem&) const override { return {8e-3, std::ldexp(1.0, -6)}; }
    void make_inputs(const Problem& p, OpContext& gpu, uint64_t seed) const override {
        const float a = float(std::sqrt(3.0 / double(p.size("D")))), b = float(std::sqrt(3.0 / double(p.size("F"))));
        gpu.fill_uniform(gpu.buffer("X"), seed * 1000003u + 1, -1.f, 1.f);
        gpu.fill_uniform(gpu.buffer("W1"), seed * 1000003u + 2, -a, a);
        gpu.fill_uniform(gpu.buffer("W2"), seed * 1000003u + 3, -b, b);
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        const int64_t T = p.size("T"), D = p.size("D"), F = p.size("F");
        DeviceArray& x = upcast(gpu, "X", "ref_X32");
        DeviceArray& w1 = upcast(gpu, "W1", "ref_W1_32");
        DeviceArray& h = gpu.add_buffer("ref_H", DType::F32, T * F);
        sgemm(gpu, h, x, w1, T, F, D);
        gpu.remove_buffer("ref_X32");
        gpu.remove_buffer("ref_W1_32");
        gpu.launch_helper("mlp/reference.cu", "ref_gelu_bf16_rounded", dim3(gpu.device().sm_count * 8), dim3(256),
                          {ptr(h), KernelArg::i64v(T * F)});
        DeviceArray& w2 = upcast(gpu, "W2", "ref_W2_32");
        DeviceArray& y = gpu.add_buffer("ref_Y", DType::F32, T * D);
        sgemm(gpu, y, h, w2, T, D, F);
        out["H"] = gpu.download_as_float(h);
        out["Y"] = gpu.download_as_float(y);
        for (const char* b : {"ref_H", "ref_W2_32", "ref_Y"}) gpu.remove_buffer(b);
    }
    std::pair<int64_t, int64_t> output_shape(const Problem& p, const std::string& buffer) const override {
        return {p.size("T"), buffer == "H" ? p.size("F") : p.size("D")};
    }
};

class Qkv : public Operation {
  public:
    std::string name() const override { return "qkv"; }
    std::string description() const override {
        return "C = X [Wq | Wk | Wv]: bf16 X (T x D) and W (D x 3D), fp32 C (T x 3D): three projections";
    }
    std::vector<SizeAxis> size_axes() const override { return gemm_axes(false); }
    std::vector<DType> dtypes() const override { return {DType::BF16}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        const int64_t T = p.size("T"), D = p.size("D");
        return {{"X", DType::BF16, T * D, BufferDecl::Role::Input},
                {"W", DType::BF16, D * 3 * D, BufferDecl::Role::Input},
                {"C", DType::F32, T * 3 * D, BufferDecl::Role::Output}};
    }
    Work work(const Problem& p) const override {
        const double T = double(p.size("T")), D = double(p.size("D"));
        return {6 * T * D * D, 2 * (T * D + 3 * D * D) + 4 * 3 * T * D};
    }
    // As the matmul operation's bf16 bound (ops/matmul.cpp): products of bf16 values are exact in
    // fp32; tensor cores truncate each 16-deep addition, K / 16 of them at up to 2^-23 of the
    // partial sums (~sqrt(K) / 3 with inputs in [-1, 1)).
    Tolerance tolerance(const Problem& p) const override {
        const double K = double(p.size("D"));
        const double per_add = std::ldexp(1.0, -23) * std::ceil(K / 16);
        return {per_add * std::sqrt(K) + 1e-6, per_add};
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        const int64_t T = p.size("T"), D = p.size("D");
        DeviceArray& x = upcast(gpu, "X", "ref_X32");
        DeviceArray& w = upcast(gpu, "W", "ref_W32");
        DeviceArray& c = gpu.add_buffer("ref_C", DType::F32, T * 3 * D);
        sgemm(gpu, c, x, w, T, 3 * D, D);
        out["C"] = gpu.download_as_float(c);
        for (const char* b : {"ref_X32", "ref_W32", "ref_C"}) gpu.remove_buffer(b);
    }
    std::pair<int64_t, int64_t> output_shape(const Problem& p, const std::string&) const override {
        return {p.size("T"), 3 * p.size("D")};
    }
};

}  // namespace

KL_REGISTER_OPERATION(Mlp)
KL_REGISTER_OPERATION(Qkv)

}  // namespace kl
