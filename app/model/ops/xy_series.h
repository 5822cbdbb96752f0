// What the two operations of `count` dependent float steps per element share, y = f(x) with one
// fp32 input x and one output y of n elements (launch_chain: `steps` adds; branch_series: `terms`
// terms of two series): the buffers, x drawn uniform in [-1, 1), and the reference, a helper
// kernel of the ladder's reference.cu called as (y, x, n, count) on a grid of 8 blocks per SM.
// Each operation keeps its own axes, work and tolerance.
#pragma once
#include <cstdint>
#include <vector>

#include "model/op_context.h"
#include "model/operation.h"

namespace kl {

class XySeriesOperation : public Operation {
  public:
    std::vector<DType> dtypes() const override { return {DType::F32}; }
    std::vector<BufferDecl> buffers(const Problem& p) const override {
        const int64_t n = p.size("n");
        return {{"x", p.dtype, n, BufferDecl::Role::Input}, {"y", p.dtype, n, BufferDecl::Role::Output}};
    }
    void make_inputs(const Problem&, OpContext& gpu, uint64_t seed) const override {
        gpu.fill_uniform(gpu.buffer("x"), seed * 1000003u + 1, -1.f, 1.f);
    }
    void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const override {
        const int64_t n = p.size("n");
        DeviceArray& ref_y = gpu.add_buffer("ref_y", DType::F32, n);
        gpu.launch_helper(helper_, entry_, dim3(gpu.device().sm_count * 8), dim3(256),
                          {KernelArg::pointer(ref_y.data()), KernelArg::pointer(gpu.buffer("x").data()),
                           KernelArg::i64v(n), KernelArg::i32v(static_cast<int32_t>(p.size(count_axis_)))});
        out["y"] = gpu.download_as_float(ref_y);
        gpu.remove_buffer("ref_y");
    }

  protected:
    // `helper`: "launch/reference.cu"; `entry`: its kernel; `count_axis`: the size axis it takes.
    XySeriesOperation(const char* helper, const char* entry, const char* count_axis)
        : helper_(helper), entry_(entry), count_axis_(count_axis) {}

  private:
    const char* helper_;
    const char* entry_;
    const char* count_axis_;
};

}  // namespace kl
