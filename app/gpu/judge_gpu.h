// The GPU side of the judge's hidden checks (course/judge.h): outputs poisoned, inputs hashed,
// NaN and Inf planted. The runner calls these when RunOptions::judge asks; every CUDA call is
// checked (KL_CUDA_CALL), and what to plant where is course/judge.h's (tested without a GPU).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/operation.h"

namespace kl {

class GpuContext;

// Every output buffer filled with 0xFF bytes (NaN in every float type) on the context's stream.
void poison_outputs(GpuContext& gpu, const std::vector<BufferDecl>& buffers);

// The SHA-256 of every input buffer's bytes, in declaration order (outputs: an empty string).
// Synchronises the stream first: the hash is of what the GPU finished writing.
std::vector<std::string> input_hashes(GpuContext& gpu, const std::vector<BufferDecl>& buffers);

// The names of the inputs whose hash differs between `before` and `after` (input_hashes of the
// same buffers).
std::vector<std::string> changed_inputs(const std::vector<BufferDecl>& buffers, const std::vector<std::string>& before,
                                        const std::vector<std::string>& after);

// NaN, +Inf and -Inf written into every input at planted_positions(elements, seed); returns how
// many values were written (0 for a type without them, fp8 e4m3).
int64_t plant_non_finite(GpuContext& gpu, const std::vector<BufferDecl>& buffers, uint64_t seed);

}  // namespace kl
