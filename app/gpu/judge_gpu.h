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

// Every input buffer's bytes as they are now, in declaration order (outputs: empty), kept on the
// host: compared byte for byte after the run (a hash of a 2 GB input would cost seconds on the CPU
// for each run; the copy and the comparison cost milliseconds). Synchronises the stream first.
std::vector<std::vector<unsigned char>> snapshot_inputs(GpuContext& gpu, const std::vector<BufferDecl>& buffers);

// The names of the inputs whose bytes differ now from `before` (snapshot_inputs of the same buffers).
std::vector<std::string> changed_inputs(GpuContext& gpu, const std::vector<BufferDecl>& buffers,
                                        const std::vector<std::vector<unsigned char>>& before);

// NaN, +Inf and -Inf written into every input at planted_positions(elements, seed); returns how
// many values were written (0 for a type without them, fp8 e4m3).
int64_t plant_non_finite(GpuContext& gpu, const std::vector<BufferDecl>& buffers, uint64_t seed);

}  // namespace kl
