// Operations of the transpose ladder (kernels/transpose/): copy2d, out[r][c] = in[r][c], and
// transpose, out[c][r] = in[r][c], of a rows x cols row-major fp32 matrix. Both move each
// element once each way and compute nothing, so a correct rung matches the reference exactly.
#include <algorithm>

#include "model/op_context.h"
#include "model/operation.h"

namespace kl {

namespace {

// Size axes shared by both operations: kernels take rows and cols as 32-bit ints.
std::vector<SizeAxis> matrix_axes() {
    return {{"rows", 1, (int64_t(1) << 31) - 1, "matrix rows (of the input)"},
            {"cols", 1, (int64_t(1) << 31) - 1, "matrix columns (of the input)"}};
}

std::vector<BufferDecl> in_out_buffers(const Problem& p) {
    const int64_t n = p.size("rows") * p.size("cols");
    return {{"in", p.dtype, n, BufferDecl::Role::Input}, {"out", p.dtype, n, BufferDecl::Role::Output}};
}

// Ideal traffic: every element read once and written once; no arithmetic.
Work move_work(const Problem& p) {
    return {0.0, 2.0 * double(p.size("rows")) * double(p.size("cols")) * dtype_size(p.dtype)};
}

class Copy2d : public Operation {
  public:
    std::string name() const override { return "copy2d"; }
    std::string description() const override {
        return "out[r][c] = in[r][c] for a rows x cols matrix: one read and one write per element";
    }
    std::vector<SizeAxis> size_axes() const override { return matrix_axes(); }
    std::vector<DType> dtypes() const override { return {DType::F32}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override { return in_out_buffers(p); }
    Work work(const Problem& p) const override { return move_work(p); }
    Tolerance tolerance(const Problem&) const override { return {0.0, 0.0}; }  // values are moved, not computed
    void reference(const Problem&, OpContext& gpu, ReferenceOutputs& out) const override {
        out["out"] = gpu.download_as_float(gpu.buffer("in"));  // a copy is its own reference
    }
    std::pair<int64_t, int64_t> output_shape(const Problem& p, const std::string&) const override {
        return {p.size("rows"), p.size("cols")};
    }
};

class Transpose : public Operation {
  public:
    std::string name() const override { return "transpose"; }
    std::string description() const override {
        return "out[c][r] = in[r][c]: a rows x cols matrix becomes cols x rows; one read and one write per element";
    }
    std::vector<SizeAxis> size_axes() const override { return matrix_axes(); }
    std::vector<DType> dtypes() const override { return {DType::F32}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override { return in_out_buffers(p); }
    Work work(const Problem& p) const override { return move_work(p); }
    Tolerance tolerance(const Problem&) const override { return {0.0, 0.0}; }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        const int64_t n = p.size("rows") * p.size("cols");
        DeviceArray& ref = gpu.add_buffer("ref_out", DType::F32, n);
        const int64_t blocks = std::min<int64_t>((n + 255) / 256, int64_t(gpu.device().sm_count) * 32);
        gpu.launch_helper("transpose/reference.cu", "ref_transpose", dim3(static_cast<unsigned>(blocks)), dim3(256),
                          {KernelArg::pointer(ref.data()), KernelArg::pointer(gpu.buffer("in").data()),
                           KernelArg::i64v(p.size("rows")), KernelArg::i64v(p.size("cols"))});
        out["out"] = gpu.download_as_float(ref);
        gpu.remove_buffer("ref_out");
    }
    std::pair<int64_t, int64_t> output_shape(const Problem& p, const std::string&) const override {
        return {p.size("cols"), p.size("rows")};
    }
};

}  // namespace

KL_REGISTER_OPERATION(Copy2d)
KL_REGISTER_OPERATION(Transpose)

}  // namespace kl
