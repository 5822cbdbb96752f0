// The `kladder serve` loop, callable without the command line (tests/fuzz/fuzz_serve.cpp feeds
// it hostile request lines). Protocol: model/serve_protocol.h.
#pragma once
#include <cstdio>
#include <istream>
#include <memory>
#include <optional>
#include <string>

#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "model/serve_protocol.h"

namespace kl::cli {

struct ServeState {
    bool use_gpu = true;  // false: never touch CUDA (every run request is answered "no GPU")
    std::unique_ptr<GpuContext> gpu;
    std::unique_ptr<Runner> runner;
    std::string no_gpu_reason;
    // [hold] the batch whose one hold was learned last, and that hold (model/serve_protocol.h)
    std::optional<uint64_t> hold_batch;
    BatchHold hold;
};

// Opens the GPU (when use_gpu and one is there) and writes the hello line.
void serve_start(ServeState& st);
// Answers every line of `in` on `out` with exactly one terminal reply (malformed lines with an
// error reply) until EOF or a quit request; returns the process exit code.
int serve_loop(ServeState& st, std::istream& in, FILE* out);

}  // namespace kl::cli
