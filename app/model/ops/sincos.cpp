// Operation of the sin^2 + cos^2 rungs of the elementwise ladder (lesson 4, the CS336 lecture's
// fusion example): y = sin(x)^2 + cos(x)^2. Mathematically 1; computed honestly, it is a
// memory-bound elementwise chain whose unfused form runs five kernels.
#include "model/op_context.h"
#include "model/operation.h"

namespace kl {

namespace {

class Sin2Cos2 : public Operation {
  public:
    std::string name() const override { return "sin2_cos2"; }
    std::string description() const override { return "y = sin(x)^2 + cos(x)^2: one read and one write per element"; }
    std::vector<SizeAxis> size_axes() const override { return {{"n", 1, int64_t(1) << 36, "elements"}}; }
    std::vector<DType> dtypes() const override { return {DType::F32, DType::BF16, DType::F16}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        const int64_t n = p.size("n");
        return {{"x", p.dtype, n, BufferDecl::Role::Input}, {"y", p.dtype, n, BufferDecl::Role::Output}};
    }
    // 5 FLOPs per element by the usual count (sin, cos, two squares, one add).
    Work work(const Problem& p) const override {
        const double n = double(p.size("n"));
        return {5 * n, 2 * n * dtype_size(p.dtype)};
    }
    // sinf and cosf are accurate to 2 ulps over the input range; the sum of their squares is
    // within a few ulps of 1. A rung that dropped a square or a term misses by O(1). In 16-bit
    // storage the output is rounded once more (half an ulp of 1: 2^-8 bf16, 2^-11 fp16); the
    // reference reads the same stored x.
    Tolerance tolerance(const Problem& p) const override {
        return {0.0, 1e-6 + (p.dtype == DType::F32 ? 0.0 : 1.05 * dtype_epsilon(p.dtype))};
    }
    // x in [-10, 10): several periods, so the argument reduction is exercised.
    void make_inputs(const Problem&, OpContext& gpu, uint64_t seed) const override {
        gpu.fill_uniform(gpu.buffer("x"), seed * 1000003u + 1, -10.f, 10.f);
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        DeviceArray& ref = gpu.add_buffer("ref_y", DType::F32, p.size("n"));
        gpu.launch_helper(
            "elementwise/reference_sincos.cu", "ref_sin2_cos2", dim3(gpu.device().sm_count * 8), dim3(256),
            {KernelArg::pointer(ref.data()), KernelArg::pointer(gpu.buffer("x").data()), KernelArg::i64v(p.size("n"))},
            {"ELEM=" + dtype_cuda_name(p.dtype)});
        out["y"] = gpu.download_as_float(ref);
        gpu.remove_buffer("ref_y");
    }
};

}  // namespace

KL_REGISTER_OPERATION(Sin2Cos2)

}  // namespace kl
