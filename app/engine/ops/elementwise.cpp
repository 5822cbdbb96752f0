// Operations of the elementwise ladder: vector_add (c = a + b) and gelu (tanh form).
// This file is the model for other operations: declare axes and buffers, count the work,
// compute the reference (here on the GPU in double precision), choose the tolerance.
#include <cmath>

#include "../op_context.h"
#include "../operation.h"

namespace kl {

namespace {

// Launches a grid-stride reference kernel of kernels/elementwise/reference.cu.
void launch_reference(OpContext& gpu, const char* entry, std::vector<KernelArg> args) {
    gpu.launch_helper("elementwise/reference.cu", entry, dim3(gpu.device().sm_count * 8), dim3(256), std::move(args));
}

class VectorAdd : public Operation {
  public:
    std::string name() const override { return "vector_add"; }
    std::string description() const override { return "c[i] = a[i] + b[i]: two reads and one write per element"; }
    std::vector<SizeAxis> size_axes() const override { return {{"n", 1, int64_t(1) << 36, "elements"}}; }
    std::vector<DType> dtypes() const override { return {DType::F32}; }
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
    // Float addition is correctly rounded, and so is the double reference rounded to float.
    Tolerance tolerance(const Problem&) const override { return {0.0, 1e-7}; }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        DeviceBuffer& ref = gpu.add_buffer("ref_c", DType::F32, p.size("n"));
        launch_reference(gpu, "ref_vector_add",
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
    std::vector<DType> dtypes() const override { return {DType::F32}; }
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
    // a few ulps; 1e-5 relative plus an absolute floor for outputs near zero.
    Tolerance tolerance(const Problem&) const override { return {1e-6, 1e-5}; }
    // Inputs in [-5, 5): covers the linear middle and both saturated tails of tanh.
    void make_inputs(const Problem& p, OpContext& gpu, uint64_t seed) const override {
        gpu.fill_uniform(gpu.buffer("x"), seed * 1000003u + 1, -5.f, 5.f);
        (void)p;
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        DeviceBuffer& ref = gpu.add_buffer("ref_y", DType::F32, p.size("n"));
        launch_reference(
            gpu, "ref_gelu_tanh",
            {KernelArg::pointer(ref.data()), KernelArg::pointer(gpu.buffer("x").data()), KernelArg::i64v(p.size("n"))});
        out["y"] = gpu.download_as_float(ref);
        gpu.remove_buffer("ref_y");
    }
};

}  // namespace

KL_REGISTER_OPERATION(VectorAdd)
KL_REGISTER_OPERATION(Gelu)

}  // namespace kl
