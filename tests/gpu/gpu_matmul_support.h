// What the matmul GPU tests of test_gpu share (test_gpu_streamk.cpp, test_gpu_fp32.cpp): one CUDA
// context for the whole program and the matmul manifest, loaded once.
#pragma once

#include "base/paths.h"
#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "model/manifest_load.h"

namespace kl_test {

inline kl::GpuContext& gpu() {
    static kl::GpuContext ctx;
    return ctx;
}

inline const kl::Ladder& matmul() {
    static kl::Ladder L = kl::load_ladder(kl::kernels_dir() + "/matmul/ladder.toml");
    return L;
}

}  // namespace kl_test
