// Compiled rung code loaded into the current CUDA context with cudaLibraryLoadData (runtime
// API: the programs never link libcuda, so they start on machines without a driver).
// Keyed like the disk cache; a library stays loaded for the life of the GpuContext.
#pragma once
#include <cuda_runtime_api.h>

#include <map>
#include <string>

#include "gpu/compiler.h"

namespace kl {

class KernelCache {
  public:
    KernelCache() = default;
    ~KernelCache();
    KernelCache(const KernelCache&) = delete;
    KernelCache& operator=(const KernelCache&) = delete;

    // Compiles if needed, loads, and returns the entry point; throws with the rung's label.
    cudaKernel_t get(const CompileRequest& req, const std::string& entry);
    // Loads code compiled elsewhere (a Triton rung's cubin), kept under `key`; returns the entry.
    cudaKernel_t get_code(const std::string& key, const std::string& code, const std::string& entry,
                          const std::string& label);

  private:
    struct Loaded {
        cudaLibrary_t library = nullptr;
        std::map<std::string, cudaKernel_t> entries;
    };
    std::map<std::string, Loaded> loaded_;  // by cache key
};

}  // namespace kl
