// Operations of the elementwise ladder: vector_add (c = a + b) and gelu (tanh form).
// This file is the model for other operations: declare axes and buffers, count the work,
// compute the reference (here on the GPU in double precision), choose the tolerance.
// Storage fp32, bf16 or fp16 (lesson 7); the reference reads the same stored (rounded) inputs
// and computes in double, so the error a run reports is the rung's own float math plus the
// rounding of its output to the storage type (storage_rel below).
#include <cmath>

#include "model/op_context.h"
#include "model/operation.h"

namespace kl {

namespace {

// Launches a grid-stride reference kernel of kernels/elementwise/reference.cu reading `dtype`.
void launch_reference(OpContext& gpu, DType dtype, const char* entry, std::vector<KernelArg> args) {
    gpu.launch_helper("elementwise/reference.cu", entry, dim3(gpu.device().sm_count * 8), dim3(256), std::move(args),
                      {"ELEM=" + dtype_cuda_name(dtype)});
}

// Relative error of rounding a float result to the storage type: half an ulp, 2^-8 (bf16) or
// 2^-11 (fp16) of |y| at most, with 5% margin; 0 for fp32 (the op's own tolerance covers it).
double storage_rel(DType t) { return t == DType::F32 ? 0.0 : 1.05 * dtype_epsilon(t); }

class VectorAdd : public Operation {
  public:
    std::string name() const override { return "vector_add"; }
    std::string description() const override { return "c[i] = a[i] + b[i]: two reads and one write per element"; }
    std::vector<SizeAxis> size_axes() const override { return {{"n", 1, int64_t(1) << 36, "elements"}}; }
    std::vector<DType> dtypes() const override { return {DType::F32, DType::BF16, DType::F16}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        int64_t n = p.size("n");
        return {{"a", p.dtype, n, BufferDecl::Role::Input},
                {"b", p.dtype, n, BufferDecl::Role::Input},
                {"c", p.dtype, n, BufferDecl::Role::Output}};
    }
    Work work(const Problem& p) const override {
        double n = double(p.size("n"));
        return {n, 3 * n * dtype_size(p.dtype)};
    }
    // Float addition is correctly rounded, and so is the double reference rounded to float. In
    // 16 bits the float sum of two stored values is rounded once more to the storage type; fp16
    // sums below 2^-14 land on its subnormal grid (spacing 2^-24): an absolute 2^-25 more.
    Tolerance tolerance(const Problem& p) const override {
        return {p.dtype == DType::F16 ? 3e-8 : 0.0, 1e-7 + storage_rel(p.dtype)};
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        DeviceArray& ref = gpu.add_buffer("ref_c", DType::F32, p.size("n"));
        launch_reference(gpu, p.dtype, "ref_vector_add",
                         {KernelArg::pointer(ref.data()), KernelArg::pointer(gpu.buffer("a").data()),
                          KernelArg::pointer(gpu.buffer("b").data()), KernelArg::i64v(p.size("n"))});
        out["c"] = gpu.download_as_float(ref);
        gpu.remove_buffer("ref_c");
    }
};

class Gelu : public Operation {
  public:
    std::string name() const override { return "gelu"; }
    std::string description() const override {
        return "y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): one read and one write per element";
    }
    std::vector<SizeAxis> size_axes() const override { return {{"n", 1, int64_t(1) << 36, "elements"}}; }
    std::vector<DType> dtypes() const override { return {DType::F32, DType::BF16, DType::F16}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        int64_t n = p.size("n");
        return {{"x", p.dtype, n, BufferDecl::Role::Input}, {"y", p.dtype, n, BufferDecl::Role::Output}};
    }
    // 9 FLOPs per element by the usual count: x*x*x (2), *0.044715, +x, *sqrt(2/pi), tanh (1),
    // +1, *0.5x (2).
    Work work(const Problem& p) const override {
        double n = double(p.size("n"));
        return {9 * n, 2 * n * dtype_size(p.dtype)};
    }
    // tanhf and the reordered float arithmetic of a rung differ from the double reference by
    // a few ulps; 1e-5 relative plus an absolute floor for outputs near zero (it also covers
    // fp16's subnormal outputs, spaced 6e-8). 16-bit storage adds the output's rounding.
    Tolerance tolerance(const Problem& p) const override { return {1e-6, 1e-5 + storage_rel(p.dtype)}; }
    // Inputs in [-5, 5): covers the linear middle and both saturated tails of tanh.
    void make_inputs(const Problem& p, OpContext& gpu, uint64_t seed) const override {
        gpu.fill_uniform(gpu.buffer("x"), seed * 1000003u + 1, -5.f, 5.f);
        (void)p;
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        DeviceArray& ref = gpu.add_buffer("ref_y", DType::F32, p.size("n"));
        launch_reference(
            gpu, p.dtype, "ref_gelu_tanh",
            {KernelArg::pointer(ref.data()), KernelArg::pointer(gpu.buffer("x").data()), KernelArg::i64v(p.size("n"))});
        out["y"] = gpu.download_as_float(ref);
        gpu.remove_buffer("ref_y");
    }
};

}  // namespace

KL_REGISTER_OPERATION(VectorAdd)
KL_REGISTER_OPERATION(Gelu)

}  // namespace kl
