// Operation of the recompute ladder (kernels/recompute/): the forward and backward passes of
// three stacked sigmoids, y = s3 = sigmoid(sigmoid(sigmoid(x))) and, given the incoming gradient
// g, dx = g * s3(1 - s3) * s2(1 - s2) * s1(1 - s1). The reference runs on the GPU in double
// precision (kernels/recompute/reference.cu).
#include "model/op_context.h"
#include "model/operation.h"

namespace kl {

namespace {

class ThreeSigmoids : public Operation {
  public:
    std::string name() const override { return "three_sigmoids"; }
    std::string description() const override {
        return "forward y = sigmoid(sigmoid(sigmoid(x))) and backward dx = g * s3(1-s3) s2(1-s2) s1(1-s1)";
    }
    std::vector<SizeAxis> size_axes() const override { return {{"n", 1, int64_t(1) << 34, "elements"}}; }
    std::vector<DType> dtypes() const override { return {DType::F32}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        const int64_t n = p.size("n");
        return {{"x", p.dtype, n, BufferDecl::Role::Input},
                {"g", p.dtype, n, BufferDecl::Role::Input},
                {"y", p.dtype, n, BufferDecl::Role::Output},
                {"dx", p.dtype, n, BufferDecl::Role::Output}};
    }
    // 21 FLOPs per element: three sigmoids forward (negate, exp, add, divide: 4 each) and the
    // backward product (three 1 - s and six multiplies). Ideal traffic: x and g read once, y and
    // dx written once (4 accesses). No real plan reaches it: the backward pass runs later than
    // the forward pass, so it reads x (or what was stored from it) a second time: 5 at best.
    Work work(const Problem& p) const override {
        const double n = double(p.size("n"));
        return {21 * n, 4 * n * dtype_size(p.dtype)};
    }
    // The rungs' sigmoid is 1 / (1 + __expf(-z)): the fast exponential errs by about 1e-6
    // relative for |z| <= 9, the reciprocal is correctly rounded, and a product of seven factors
    // in float adds a few 1e-7: under 5e-6 in all (measured on the H100: rel L2 1.8e-7). 1e-5
    // relative keeps a margin; the absolute floor forgives gradients below 1e-7 (g near zero, or
    // 1 - s1 near 0.0025 at x = 6, where float's rounding of s1 alone is 2e-5 of 1 - s1). A rung
    // that used s2 where s1 belongs misses by tens of percent.
    Tolerance tolerance(const Problem&) const override { return {1e-7, 1e-5}; }
    // x in [-6, 6): the sigmoid's linear middle and both flat tails; g in [-1, 1).
    void make_inputs(const Problem&, OpContext& gpu, uint64_t seed) const override {
        gpu.fill_uniform(gpu.buffer("x"), seed * 1000003u + 1, -6.f, 6.f);
        gpu.fill_uniform(gpu.buffer("g"), seed * 1000003u + 2, -1.f, 1.f);
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        const int64_t n = p.size("n");
        DeviceArray& ref_y = gpu.add_buffer("ref_y", DType::F32, n);
        DeviceArray& ref_dx = gpu.add_buffer("ref_dx", DType::F32, n);
        gpu.launch_helper("recompute/reference.cu", "ref_three_sigmoids", dim3(gpu.device().sm_count * 8), dim3(256),
                          {KernelArg::pointer(ref_y.data()), KernelArg::pointer(ref_dx.data()),
                           KernelArg::pointer(gpu.buffer("x").data()), KernelArg::pointer(gpu.buffer("g").data()),
                           KernelArg::i64v(n)});
        out["y"] = gpu.download_as_float(ref_y);
        out["dx"] = gpu.download_as_float(ref_dx);
        gpu.remove_buffer("ref_y");
        gpu.remove_buffer("ref_dx");
    }
};

}  // namespace

KL_REGISTER_OPERATION(ThreeSigmoids)

}  // namespace kl
