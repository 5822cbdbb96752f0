// GPU tests of the context's copies (CTest label `gpu`, in test_gpu): an upload is finished, for
// the kernels queued after it on the work stream, when it returns (app/gpu/gpu_context.h).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "base/errors.h"
#include "gpu/gpu_context.h"
#include "gpu_matmul_support.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_gpu_context {

namespace {

using kl_test::gpu;

// The race this guards against: the matmul reference upcasts A and B through the host and hands
// them to cuBLAS on the work stream. With a plain cudaMemcpy (legacy stream, pageable source) the
// upload could still be in flight when cuBLAS read them; four test processes sharing the H200
// made it show (2026-11-29: 5 matmul rungs "wrong" at M=127 N=255 K=63 against a reference of
// 5520 where 2.4 was right). Here the tail of a large upload is copied on the work stream at
// once, round after round with a new value each time; every round must see its own value.
TEST(GpuContext, UploadIsCompleteForTheWorkStream) {
    kl::GpuContext& g = gpu();
    const int64_t elements = int64_t(1) << 25;  // 128 MiB: several staging chunks
    const int64_t tail = 1024;
    kl::DeviceArray& big = g.add_buffer("upload_big", kl::DType::F32, elements);
    kl::DeviceArray& small = g.add_buffer("upload_tail", kl::DType::F32, tail);
    for (int round = 1; round <= 12; ++round) {
        g.upload_from_float(big, std::vector<float>(size_t(elements), float(round)));
        ASSERT_EQ(cudaMemcpyAsync(small.data(), static_cast<float*>(big.data()) + (elements - tail),
                                  size_t(tail) * sizeof(float), cudaMemcpyDeviceToDevice, g.stream()),
                  cudaSuccess);
        const std::vector<float> seen = g.download_as_float(small);
        int stale = 0;
        for (float v : seen) stale += v != float(round);
        ASSERT_EQ(stale, 0) << "round " << round << ": the work stream read the upload before it was done";
    }
    g.remove_buffer("upload_big");
    g.remove_buffer("upload_tail");
}

// Bytes written at an offset land there and nowhere else, and a range past the end is refused
// with the buffer's name.
TEST(GpuContext, UploadBytesAtAnOffset) {
    kl::GpuContext& g = gpu();
    kl::DeviceArray& buf = g.add_buffer("upload_bytes", kl::DType::F32, 4);
    g.upload_from_float(buf, {1.f, 2.f, 3.f, 4.f});
    const float nine = 9.f;
    std::vector<unsigned char> bytes(sizeof nine);
    std::memcpy(bytes.data(), &nine, sizeof nine);
    g.upload_bytes(buf, 2 * sizeof(float), bytes);
    EXPECT_EQ(g.download_as_float(buf), (std::vector<float>{1.f, 2.f, 9.f, 4.f}));
    EXPECT_THROW(g.upload_bytes(buf, 4 * sizeof(float) - 1, bytes), kl::InputError);
    g.remove_buffer("upload_bytes");
}

}  // namespace

}  // namespace kl_test_gpu_context
