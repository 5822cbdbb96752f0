// Operations of the layernorm ladder (kernels/layernorm/): the residual add of a transformer
// block fused with the norm after it. add_layernorm: s = x + r, y = (s - mean) / sqrt(var + eps)
// * w + b per row; add_rmsnorm: s = x + r, y = s / sqrt(mean(s^2) + eps) * w. eps = 1e-5 (torch's
// layer_norm default; the peers pass it to rms_norm too). x, r, s, y are rows x cols; w, b cols.
//
// The norm is taken of s as stored (rounded to the storage type), as separate framework kernels
// do: rungs and reference then agree on s exactly, and y's error is the rung's own. The reference
// runs on the GPU in double precision (kernels/layernorm/reference.cu); rows 1..3 of the inputs
// hold special values (a mean far from zero, a constant row, a wide row: see reference.cu).
#include <algorithm>

#include "model/op_context.h"
#include "model/operation.h"

namespace kl {

namespace {

class AddNorm : public Operation {
  public:
    explicit AddNorm(bool rms) : rms_(rms) {}
    std::string name() const override { return rms_ ? "add_rmsnorm" : "add_layernorm"; }
    std::string description() const override {
        return rms_ ? "s = x + r; y = s / sqrt(mean(s^2) + 1e-5) * w, per row of rows x cols"
                    : "s = x + r; y = (s - mean) / sqrt(var + 1e-5) * w + b, per row of rows x cols";
    }
    std::vector<SizeAxis> size_axes() const override {
        return {{"rows", 1, (int64_t(1) << 31) - 1, "rows (tokens), each normalized on its own"},
                {"cols", 1, int64_t(1) << 20, "row length (hidden size)"}};
    }
    std::vector<DType> dtypes() const override { return {DType::F32, DType::BF16, DType::F16}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        const int64_t cols = p.size("cols"), n = p.size("rows") * cols;
        std::vector<BufferDecl> b = {{"x", p.dtype, n, BufferDecl::Role::Input},
                                     {"r", p.dtype, n, BufferDecl::Role::Input},
                                     {"w", p.dtype, cols, BufferDecl::Role::Input}};
        if (!rms_) b.push_back({"b", p.dtype, cols, BufferDecl::Role::Input});
        b.push_back({"s", p.dtype, n, BufferDecl::Role::Output});
        b.push_back({"y", p.dtype, n, BufferDecl::Role::Output});
        return b;
    }
    // FLOPs per element by the usual count: add (1), mean and variance (3: add, subtract,
    // multiply-add), normalize (4: subtract, scale, weight, bias); RMSNorm: add, square-add,
    // scale, weight (5). Ideal traffic: x and r read, s and y written, w (and b) read once.
    Work work(const Problem& p) const override {
        const double cols = double(p.size("cols")), n = double(p.size("rows")) * cols;
        const int params = rms_ ? 1 : 2;
        return {(rms_ ? 5 : 8) * n, (4 * n + params * cols) * dtype_size(p.dtype)};
    }
    // s matches the reference exactly (same float add, same rounding). y: fp32 statistics over
    // up to 4096-element rows err by a few 1e-7 of the row's scale; in row 1 (mean 32) the mean's
    // rounding shifts every y by up to about 1e-5 (32 x 2^-24 x a few, over a std of 0.8), hence
    // 5e-5 absolute and relative for fp32 storage. In 16-bit storage y itself is rounded: half an
    // ulp is 2^-9 of |y| in bf16, 2^-12 in fp16; the tolerances allow twice that plus a floor.
    // A dropped bias, a wrong weight index or a variance off by one element misses by 1e-3 or more.
    Tolerance tolerance(const Problem& p) const override {
        switch (p.dtype) {
            case DType::BF16: return {2e-3, 4e-3};
            case DType::F16: return {5e-4, 1e-3};
            default: return {5e-5, 5e-5};
        }
    }
    // x, r in [-1, 1); w in [0.5, 1.5), b in [-0.5, 0.5), so that a rung that ignores either shows.
    void make_inputs(const Problem& p, OpContext& gpu, uint64_t seed) const override {
        gpu.fill_uniform(gpu.buffer("x"), seed * 1000003u + 1, -1.f, 1.f);
        gpu.fill_uniform(gpu.buffer("r"), seed * 1000003u + 2, -1.f, 1.f);
        gpu.fill_uniform(gpu.buffer("w"), seed * 1000003u + 3, 0.5f, 1.5f);
        if (!rms_) gpu.fill_uniform(gpu.buffer("b"), seed * 1000003u + 4, -0.5f, 0.5f);
        const int64_t cols = p.size("cols");
        const int64_t blocks = std::min<int64_t>((cols + 255) / 256, int64_t(gpu.device().sm_count) * 8);
        gpu.launch_helper("layernorm/reference.cu", "ln_special_rows", dim3(static_cast<unsigned>(blocks)), dim3(256),
                          {KernelArg::pointer(gpu.buffer("x").data()), KernelArg::pointer(gpu.buffer("r").data()),
                           KernelArg::i64v(p.size("rows")), KernelArg::i64v(cols)},
                          {"ELEM=" + dtype_cuda_name(p.dtype)});
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        const int64_t rows = p.size("rows"), cols = p.size("cols");
        DeviceArray& ref_s = gpu.add_buffer("ref_s", DType::F32, rows * cols);
        DeviceArray& ref_y = gpu.add_buffer("ref_y", DType::F32, rows * cols);
        const int64_t blocks = std::min<int64_t>(rows, int64_t(gpu.device().sm_count) * 16);
        DeviceArray& w = gpu.buffer("w");
        gpu.launch_helper("layernorm/reference.cu", "ref_add_norm", dim3(static_cast<unsigned>(blocks)), dim3(256),
                          {KernelArg::pointer(ref_s.data()), KernelArg::pointer(ref_y.data()),
                           KernelArg::pointer(gpu.buffer("x").data()), KernelArg::pointer(gpu.buffer("r").data()),
                           KernelArg::pointer(w.data()), KernelArg::pointer(rms_ ? w.data() : gpu.buffer("b").data()),
                           KernelArg::i64v(rows), KernelArg::i64v(cols), KernelArg::i32v(rms_ ? 1 : 0)},
                          {"ELEM=" + dtype_cuda_name(p.dtype)});
        out["s"] = gpu.download_as_float(ref_s);
        out["y"] = gpu.download_as_float(ref_y);
        gpu.remove_buffer("ref_s");
        gpu.remove_buffer("ref_y");
    }
    std::pair<int64_t, int64_t> output_shape(const Problem& p, const std::string&) const override {
        return {p.size("rows"), p.size("cols")};
    }

  private:
    bool rms_;
};

class AddLayerNorm : public AddNorm {
  public:
    AddLayerNorm() : AddNorm(false) {}
};
class AddRmsNorm : public AddNorm {
  public:
    AddRmsNorm() : AddNorm(true) {}
};

}  // namespace

KL_REGISTER_OPERATION(AddLayerNorm)
KL_REGISTER_OPERATION(AddRmsNorm)

}  // namespace kl
