// Operation of the matmul ladder's fp8 rungs: C = sa sb A Bt^T with fp8 e4m3 A (M x K) and Bt
// (N x K), both row-major with K innermost (the layout Hopper's fp8 wgmma and cuBLASLt's fp8 GEMM
// need: neither transposes 8-bit operands), per-tensor fp32 scales sa and sb (device buffers of
// one value, as cuBLASLt takes them), fp32 C.
//
// Inputs are drawn in the whole e4m3 range, uniform in [-448, 448) and rounded to e4m3, as a
// per-tensor scale maps a tensor's largest value to 448; sa = 1/256 and sb = 1/128 map them back
// to [-1.75, 1.75) and [-3.5, 3.5) (different, so a rung that drops or swaps one scale fails).
// Reference: cuBLAS fp32 with TF32 off on exact fp32 copies of the fp8 values (the
// `cublas_sgemm_nt` builtin), scaled on the host (powers of two: exact).
#include <cmath>

#include "model/op_context.h"
#include "model/operation.h"

namespace kl {

namespace {

constexpr float kScaleA = 1.0f / 256, kScaleB = 1.0f / 128;

class MatmulFp8 : public Operation {
  public:
    std::string name() const override { return "matmul_fp8"; }
    std::string description() const override {
        return "C = sa sb A Bt^T: fp8 e4m3 A (M x K) and Bt (N x K), per-tensor scales, fp32 C: 2MNK FLOPs";
    }
    std::vector<SizeAxis> size_axes() const override {
        const int64_t max = (int64_t(1) << 31) - 1;
        return {{"M", 1, max, "rows of A and C"},
                {"N", 1, max, "rows of Bt, columns of C"},
                {"K", 1, max, "columns of A and Bt"}};
    }
    std::vector<DType> dtypes() const override { return {DType::E4M3}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        const int64_t M = p.size("M"), N = p.size("N"), K = p.size("K");
        return {{"A", DType::E4M3, M * K, BufferDecl::Role::Input},
                {"Bt", DType::E4M3, N * K, BufferDecl::Role::Input},
                {"scale_a", DType::F32, 1, BufferDecl::Role::Input},
                {"scale_b", DType::F32, 1, BufferDecl::Role::Input},
                {"C", DType::F32, M * N, BufferDecl::Role::Output}};
    }
    Work work(const Problem& p) const override {
        const double M = double(p.size("M")), N = double(p.size("N")), K = double(p.size("K"));
        return {2 * M * N * K, M * K + N * K + 4 * M * N};
    }
    // Products of e4m3 values (4 significant bits each) are exact; what a rung may differ by is
    // the sums. Hopper's fp8 wgmma adds into its fp32 accumulator with a narrower alignment
    // (about 14 significant bits kept, as DeepSeek-V3's report measured on H800), once per 32-deep
    // instruction: K / 32 additions of up to 2^-14 of a partial sum of size ~2.04 sqrt(k) (scaled
    // inputs have RMS 1.01 and 2.02). Summed as if they all leaned one way, with a factor 2 of
    // margin: 2^-10 sqrt(K / 32 + 1) 2.04 sqrt(K): 2.9 at K = 8192, where C has RMS 185 (1.6%).
    // A lost 128-deep K tile moves C by ~23 there, a dropped scale by 2x; NaN never passes.
    Tolerance tolerance(const Problem& p) const override {
        const double K = double(p.size("K"));
        return {std::ldexp(1.0, -10) * std::sqrt(K / 32 + 1) * 2.04 * std::sqrt(K), std::ldexp(1.0, -10)};
    }
    void make_inputs(const Problem&, OpContext& gpu, uint64_t seed) const override {
        gpu.fill_uniform(gpu.buffer("A"), seed * 1000003u + 1, -448.f, 448.f);
        gpu.fill_uniform(gpu.buffer("Bt"), seed * 1000003u + 2, -448.f, 448.f);
        gpu.upload_from_float(gpu.buffer("scale_a"), {kScaleA});
        gpu.upload_from_float(gpu.buffer("scale_b"), {kScaleB});
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        const int64_t M = p.size("M"), N = p.size("N"), K = p.size("K");
        DeviceArray& a = gpu.add_buffer("ref_A32", DType::F32, M * K);
        gpu.upload_from_float(a, gpu.download_as_float(gpu.buffer("A")));
        DeviceArray& b = gpu.add_buffer("ref_Bt32", DType::F32, N * K);
        gpu.upload_from_float(b, gpu.download_as_float(gpu.buffer("Bt")));
        DeviceArray& c = gpu.add_buffer("ref_C", DType::F32, M * N);
        gpu.run_builtin("cublas_sgemm_nt",
                        {KernelArg::pointer(c.data()), KernelArg::pointer(a.data()), KernelArg::pointer(b.data()),
                         KernelArg::i32v(static_cast<int32_t>(M)), KernelArg::i32v(static_cast<int32_t>(N)),
                         KernelArg::i32v(static_cast<int32_t>(K))});
        std::vector<float> ref = gpu.download_as_float(c);
        for (float& v : ref) v *= kScaleA * kScaleB;
        out["C"] = std::move(ref);
        for (const char* name : {"ref_A32", "ref_Bt32", "ref_C"}) gpu.remove_buffer(name);
    }
    std::pair<int64_t, int64_t> output_shape(const Problem& p, const std::string&) const override {
        return {p.size("M"), p.size("N")};
    }
};

}  // namespace

KL_REGISTER_OPERATION(MatmulFp8)

}  // namespace kl
