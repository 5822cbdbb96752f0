#include "gpu/judge_gpu.h"

#include <algorithm>

#include "base/sha256.h"
#include "course/judge.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_context.h"

namespace kl {

namespace {
// Inputs are hashed in pieces of this many bytes: a large input never needs a second host copy.
constexpr size_t kHashChunkBytes = size_t(64) << 20;
}  // namespace

void poison_outputs(GpuContext& gpu, const std::vector<BufferDecl>& buffers) {
    for (const auto& b : buffers)
        if (b.role == BufferDecl::Role::Output) gpu.poison(gpu.buffer(b.name));
}

std::vector<std::string> input_hashes(GpuContext& gpu, const std::vector<BufferDecl>& buffers) {
    std::vector<std::string> out;
    for (const auto& b : buffers) {
        if (b.role != BufferDecl::Role::Input) {
            out.emplace_back();
            continue;
        }
        DeviceArray& buf = gpu.buffer(b.name);
        Sha256 h;
        for (size_t at = 0; at < buf.bytes(); at += kHashChunkBytes) {
            const size_t n = std::min(kHashChunkBytes, buf.bytes() - at);
            const std::vector<unsigned char> bytes = gpu.download_bytes(buf, at, n);  // synchronises, checked
            h.update(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
        }
        out.push_back(h.hex());
    }
    return out;
}

std::vector<std::string> changed_inputs(const std::vector<BufferDecl>& buffers, const std::vector<std::string>& before,
                                        const std::vector<std::string>& after) {
    std::vector<std::string> changed;
    for (size_t i = 0; i < buffers.size() && i < before.size() && i < after.size(); ++i)
        if (buffers[i].role == BufferDecl::Role::Input && before[i] != after[i]) changed.push_back(buffers[i].name);
    return changed;
}

int64_t plant_non_finite(GpuContext& gpu, const std::vector<BufferDecl>& buffers, uint64_t seed) {
    int64_t planted = 0;
    gpu.synchronize();  // the inputs are written by make_inputs on the stream
    for (const auto& b : buffers) {
        if (b.role != BufferDecl::Role::Input) continue;
        DeviceArray& buf = gpu.buffer(b.name);
        for (const PlantedValue& v : planted_positions(b.elements, seed)) {
            const std::vector<unsigned char> bytes = non_finite_bytes(b.dtype, v.kind);
            if (bytes.empty()) continue;
            auto* at = static_cast<unsigned char*>(buf.data()) + size_t(v.index) * bytes.size();
            KL_CUDA_CALL(cudaMemcpy(at, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
            ++planted;
        }
    }
    return planted;
}

}  // namespace kl
