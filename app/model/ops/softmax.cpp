// Operation of the softmax ladder (kernels/softmax/): y[r][c] = exp(x[r][c] - m_r) / s_r with
// m_r the row's max and s_r = sum_c exp(x[r][c] - m_r), over each row of a rows x cols matrix
// stored in fp32, bf16 or fp16 (math in float in every rung). The reference runs on the GPU in
// double precision from the same stored inputs (kernels/softmax/reference.cu).
//
// Inputs are uniform in [-5, 5), and rows 1..5 (where they exist) carry special values that
// every rung must survive: an all -inf row (defined result: all zeros), values spread over
// +-1e4, a cluster around 1e4, identical values, and scattered -inf. See reference.cu.
#include <algorithm>

#include "model/op_context.h"
#include "model/operation.h"

namespace kl {

namespace {

class Softmax : public Operation {
  public:
    std::string name() const override { return "softmax"; }
    std::string description() const override {
        return "softmax over each row of a rows x cols matrix; a row of all -inf gives zeros";
    }
    std::vector<SizeAxis> size_axes() const override {
        return {{"rows", 1, (int64_t(1) << 31) - 1, "matrix rows (independent softmaxes)"},
                {"cols", 1, (int64_t(1) << 31) - 1, "row length n"}};
    }
    std::vector<DType> dtypes() const override { return {DType::F32, DType::BF16, DType::F16}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        const int64_t n = p.size("rows") * p.size("cols");
        return {{"in", p.dtype, n, BufferDecl::Role::Input}, {"out", p.dtype, n, BufferDecl::Role::Output}};
    }
    // 5 FLOPs per element by the usual count (max, subtract, exp, add, divide); ideal traffic
    // is one read and one write per element.
    Work work(const Problem& p) const override {
        const double n = double(p.size("rows")) * double(p.size("cols"));
        return {5 * n, 2 * n * dtype_size(p.dtype)};
    }
    // A rung computes exp(x - max) in float: x - max is exact when it matters (Sterbenz), the
    // scaling by log2(e) and ex2 add a few ulps, and the float row sum a few more: a few 1e-6
    // relative. 1e-5 relative keeps a margin; the absolute floor 1e-12 only forgives outputs
    // below e^-27.6, where the argument's rounding dominates and the mass is negligible.
    // 16-bit storage rounds each output once more: half an ulp, 2^-8 (bf16) or 2^-11 (fp16) of
    // it, with 5% margin; fp16 outputs under 2^-14 sit on its subnormal grid (spacing 2^-24).
    Tolerance tolerance(const Problem& p) const override {
        if (p.dtype == DType::F32) return {1e-12, 1e-5};
        return {p.dtype == DType::F16 ? 6e-8 : 1e-12, 1e-5 + 1.05 * dtype_epsilon(p.dtype)};
    }
    void make_inputs(const Problem& p, OpContext& gpu, uint64_t seed) const override {
        DeviceArray& in = gpu.buffer("in");
        gpu.fill_uniform(in, seed * 1000003u + 1, -5.f, 5.f);
        const int64_t cols = p.size("cols");
        const int64_t blocks = std::min<int64_t>((cols + 255) / 256, int64_t(gpu.device().sm_count) * 8);
        gpu.launch_helper("softmax/reference.cu", "softmax_special_rows", dim3(static_cast<unsigned>(blocks)),
                          dim3(256),
                          {KernelArg::pointer(in.data()), KernelArg::i64v(p.size("rows")), KernelArg::i64v(cols)},
                          {"ELEM=" + dtype_cuda_name(p.dtype)});
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        const int64_t rows = p.size("rows"), cols = p.size("cols");
        DeviceArray& ref = gpu.add_buffer("ref_out", DType::F32, rows * cols);
        const int64_t blocks = std::min<int64_t>(rows, int64_t(gpu.device().sm_count) * 16);
        gpu.launch_helper("softmax/reference.cu", "ref_softmax_rows", dim3(static_cast<unsigned>(blocks)), dim3(256),
                          {KernelArg::pointer(ref.data()), KernelArg::pointer(gpu.buffer("in").data()),
                           KernelArg::i64v(rows), KernelArg::i64v(cols)},
                          {"ELEM=" + dtype_cuda_name(p.dtype)});
        out["out"] = gpu.download_as_float(ref);
        gpu.remove_buffer("ref_out");
    }
    std::pair<int64_t, int64_t> output_shape(const Problem& p, const std::string&) const override {
        return {p.size("rows"), p.size("cols")};
    }
};

}  // namespace

KL_REGISTER_OPERATION(Softmax)

}  // namespace kl
