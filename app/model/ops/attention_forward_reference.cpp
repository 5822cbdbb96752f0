#include "model/ops/attention_forward_reference.h"

#include <cstdint>

#include "base/errors.h"
#include "model/dtype.h"

namespace kl {

AttentionForwardOutputs run_attention_forward_reference(const Problem& p, OpContext& gpu, const std::string& who) {
    const int64_t bh = p.size("B") * p.size("H"), n = p.size("N"), d = p.size("d");
    constexpr int64_t kRowsPerBlock = 8, kThreads = 256;  // REF_ROWS, REF_THREADS of attention/reference.cu
    const int64_t row_blocks = (n + kRowsPerBlock - 1) / kRowsPerBlock;
    if (bh * row_blocks > 2147483647LL)
        throw InputError(who + ": B * H * ceil(N / 8) = " + std::to_string(bh * row_blocks) +
                         " blocks exceed the grid limit 2^31 - 1");
    DeviceArray& ref_o = gpu.add_buffer("ref_forward_O", DType::F32, bh * n * d);
    DeviceArray& ref_lse = gpu.add_buffer("ref_forward_lse", DType::F32, bh * n);
    // Each block stages its 8 query rows and one double partial per thread.
    const size_t smem = static_cast<size_t>(kRowsPerBlock * d + kRowsPerBlock * kThreads) * sizeof(double);
    gpu.launch_helper(
        "attention/reference.cu", "ref_attention", dim3(static_cast<unsigned>(bh * row_blocks)), dim3(kThreads),
        {KernelArg::pointer(ref_o.data()), KernelArg::pointer(ref_lse.data()),
         KernelArg::pointer(gpu.buffer("Q").data()), KernelArg::pointer(gpu.buffer("K").data()),
         KernelArg::pointer(gpu.buffer("V").data()), KernelArg::i64v(n), KernelArg::i32v(static_cast<int32_t>(d)),
         KernelArg::i32v(static_cast<int32_t>(p.size("causal"))), KernelArg::i64v(row_blocks)},
        {"ELEM=" + dtype_cuda_name(p.dtype)}, smem);
    AttentionForwardOutputs out{gpu.download_as_float(ref_o), gpu.download_as_float(ref_lse)};
    gpu.remove_buffer("ref_forward_O");
    gpu.remove_buffer("ref_forward_lse");
    return out;
}

}  // namespace kl
