// What a library routine (builtins.h) runs with: the stream its work is queued on and the cuBLAS
// handle bound to that stream, which its owner (the GPU context) makes on first use. The
// routines need nothing else of the context, and the context dispatches to them: this is the
// whole of what they share.
#pragma once
#include <cuda_runtime_api.h>

#include <functional>

struct cublasContext;
using cublasHandle_t = cublasContext*;

namespace kl {

struct RoutineTarget {
    cudaStream_t stream = nullptr;
    std::function<cublasHandle_t()> cublas;
    // The runner's checking call (outputs poisoned, then compared with the reference): a routine that
    // times without writing the ladder's buffers (a PyTorch peer, torch_bridge.h) writes them now.
    bool checking = false;
};

}  // namespace kl
