#include "gpu/judge_gpu.h"

#include <algorithm>
#include <cstring>

#include "course/judge.h"
#include "gpu/cuda_check.h"
#include "gpu/gpu_context.h"

namespace kl {

namespace {
constexpr size_t kCompareChunkBytes = size_t(64) << 20;
}  // namespace

void poison_outputs(GpuContext& gpu, const std::vector<BufferDecl>& buffers) {
    for (const auto& b : buffers)
        if (b.role == BufferDecl::Role::Output) gpu.poison(gpu.buffer(b.name));
}

std::vector<std::vector<unsigned char>> snapshot_inputs(GpuContext& gpu, const std::vector<BufferDecl>& buffers) {
    std::vector<std::vector<unsigned char>> out;
    for (const auto& b : buffers) {
        out.emplace_back();
        if (b.role != BufferDecl::Role::Input) continue;
        const DeviceArray& buf = gpu.buffer(b.name);
        out.back() = gpu.download_bytes(buf, 0, buf.bytes());  // synchronises; checked
    }
    return out;
}

std::vector<std::string> changed_inputs(GpuContext& gpu, const std::vector<BufferDecl>& buffers,
                                        const std::vector<std::vector<unsigned char>>& before) {
    std::vector<std::string> changed;
    for (size_t i = 0; i < buffers.size() && i < before.size(); ++i) {
        if (buffers[i].role != BufferDecl::Role::Input) continue;
        const DeviceArray& buf = gpu.buffer(buffers[i].name);
        bool same = buf.bytes() == before[i].size();
        // In pieces: a second whole copy of a large input is not needed to compare it.
        for (size_t at = 0; same && at < buf.bytes(); at += kCompareChunkBytes) {
            const size_t n = std::min(kCompareChunkBytes, buf.bytes() - at);
            const std::vector<unsigned char> now = gpu.download_bytes(buf, at, n);
            same = std::memcmp(now.data(), before[i].data() + at, n) == 0;
        }
        if (!same) changed.push_back(buffers[i].name);
    }
    return changed;
}

int64_t plant_non_finite(GpuContext& gpu, const std::vector<BufferDecl>& buffers, uint64_t seed) {
    int64_t planted = 0;
    for (const auto& b : buffers) {
        if (b.role != BufferDecl::Role::Input) continue;
        DeviceArray& buf = gpu.buffer(b.name);
        for (const PlantedValue& v : planted_positions(b.elements, seed)) {
            const std::vector<unsigned char> bytes = non_finite_bytes(b.dtype, v.kind);
            if (bytes.empty()) continue;
            gpu.upload_bytes(buf, size_t(v.index) * bytes.size(), bytes);
            ++planted;
        }
    }
    return planted;
}

}  // namespace kl
