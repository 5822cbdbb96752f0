// Operation of the matmul ladder (kernels/matmul/): C = A * B with row-major A (M x K),
// B (K x N) and C (M x N). A and B are stored in the problem's dtype (fp32, or bf16 for the
// tensor-core rungs); C is always fp32, as are the sums.
//
// Reference: cuBLAS fp32 with TF32 off (the `cublas_sgemm` builtin, pedantic math) on fp32
// copies of the inputs, so bf16 problems are checked against the exact product of the bf16
// values, up to fp32 rounding: what a correct bf16 rung should reproduce.
#include <cmath>

#include "model/op_context.h"
#include "model/operation.h"

namespace kl {

namespace {

class Matmul : public Operation {
  public:
    std::string name() const override { return "matmul"; }
    std::string description() const override {
        return "C = A B for row-major A (M x K) and B (K x N): 2MNK FLOPs; fp32 C";
    }
    // Kernels take M, N and K as 32-bit ints.
    std::vector<SizeAxis> size_axes() const override {
        const int64_t max = (int64_t(1) << 31) - 1;
        return {{"M", 1, max, "rows of A and C"},
                {"N", 1, max, "columns of B and C"},
                {"K", 1, max, "columns of A, rows of B"}};
    }
    std::vector<DType> dtypes() const override { return {DType::F32, DType::BF16}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        const int64_t M = p.size("M"), N = p.size("N"), K = p.size("K");
        return {{"A", p.dtype, M * K, BufferDecl::Role::Input},
                {"B", p.dtype, K * N, BufferDecl::Role::Input},
                {"C", DType::F32, M * N, BufferDecl::Role::Output}};
    }
    // One multiply and one add per (i, j, k); ideal traffic reads A and B once and writes C once.
    Work work(const Problem& p) const override {
        const double M = double(p.size("M")), N = double(p.size("N")), K = double(p.size("K"));
        return {2 * M * N * K, dtype_size(p.dtype) * (M * K + K * N) + 4 * M * N};
    }
    // Inputs are uniform in [-1, 1), so each C element is a sum of K terms of RMS 1/3: its size
    // is about sqrt(K) / 3, and partial sums reach a few times that. Rounding errors grow with K,
    // not with |C| (elements near zero are ordinary), hence tolerances that scale with K:
    // - bf16: products of bf16 values are exact in fp32, so a rung differs from the reference
    //   only in how the sums are rounded. Tensor cores add each 16-deep product into the fp32
    //   accumulator with truncation, up to one unit in the last place (2^-23 relative) per add,
    //   K / 16 adds: rel = (K / 16) 2^-23 of |C|, plus the same times sqrt(K) for partial sums
    //   larger than the result. At K = 4096: 3.1e-5 relative + 2.0e-3 absolute. Measured on an
    //   H100 (2026-11-22, 4096^3): cuBLAS bf16 and both tensor-core rungs reached 5e-4 absolute
    //   on elements near 67, four times what a round-to-nearest bound would allow.
    // - fp32: a rung and cuBLAS differ only in the order of the K additions. Each addition
    //   rounds by at most half a unit in the last place (2^-24 relative) of a partial sum of
    //   typical size sqrt(K) / 3, in the rung and again in the reference: K 2^-23 sqrt(K) / 3
    //   absolute (1.0e-2 at K = 4096, 2.1e-5 at K = 63; the measured differences are 10-100x
    //   smaller, and 0 where the order is the same). TF32 inputs (10-bit mantissa) give errors of
    //   RMS ~ 1.3e-4 sqrt(K), 8.5e-3 at K = 4096, and maxima of ~5x that over 16 M elements: a
    //   rung that slipped into TF32 fails this bound.
    // - fp32 data computed in TF32 on purpose (`compute = "tf32"`, the `cublas_tf32` reference
    //   rung): 1.5e-3 sqrt(K), about 11 of those RMS. A wrong tile, a lost K step or an
    //   unwritten element still misses by far more.
    Tolerance tolerance(const Problem& p) const override {
        const double K = double(p.size("K"));
        if (p.dtype == DType::BF16) {
            const double per_add = std::ldexp(1.0, -23) * std::ceil(K / 16);
            return {per_add * std::sqrt(K) + 1e-6, per_add};
        }
        if (p.compute == "tf32") return {1.5e-3 * std::sqrt(K), 1e-5};
        return {std::ldexp(1.0, -23) * K * std::sqrt(K) / 3 + 1e-7, 1e-6};
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        const int64_t M = p.size("M"), N = p.size("N"), K = p.size("K");
        DeviceArray& ref = gpu.add_buffer("ref_C", DType::F32, M * N);
        const DeviceArray* a = &gpu.buffer("A");
        const DeviceArray* b = &gpu.buffer("B");
        if (p.dtype != DType::F32) {  // exact upcast of the stored 16-bit values
            DeviceArray& a32 = gpu.add_buffer("ref_A32", DType::F32, M * K);
            gpu.upload_from_float(a32, gpu.download_as_float(*a));
            DeviceArray& b32 = gpu.add_buffer("ref_B32", DType::F32, K * N);
            gpu.upload_from_float(b32, gpu.download_as_float(*b));
            a = &a32;
            b = &b32;
        }
        gpu.run_builtin("cublas_sgemm",
                        {KernelArg::pointer(ref.data()), KernelArg::pointer(a->data()), KernelArg::pointer(b->data()),
                         KernelArg::i32v(static_cast<int32_t>(M)), KernelArg::i32v(static_cast<int32_t>(N)),
                         KernelArg::i32v(static_cast<int32_t>(K))});
        out["C"] = gpu.download_as_float(ref);
        gpu.remove_buffer("ref_C");
        gpu.remove_buffer("ref_A32");
        gpu.remove_buffer("ref_B32");
    }
    std::pair<int64_t, int64_t> output_shape(const Problem& p, const std::string&) const override {
        return {p.size("M"), p.size("N")};
    }
};

}  // namespace

KL_REGISTER_OPERATION(Matmul)

}  // namespace kl
