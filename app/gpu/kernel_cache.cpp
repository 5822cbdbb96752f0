#include "gpu/kernel_cache.h"

#include "gpu/cuda_check.h"

namespace kl {

KernelCache::~KernelCache() {
    for (auto& [key, lib] : loaded_)
        if (lib.library) cudaLibraryUnload(lib.library);  // unchecked: may run after a fault
}

cudaKernel_t KernelCache::get(const CompileRequest& req, const std::string& entry) {
    CompiledCode code = compile_kernel(req);
    return get_code(code.cache_key, code.code, entry, req.label.empty() ? req.source_path : req.label);
}

cudaKernel_t KernelCache::get_code(const std::string& key, const std::string& code, const std::string& entry,
                                   const std::string& label) {
    Loaded& lib = loaded_[key];
    if (!lib.library) {
        ScopedContext ctx("loading " + label);
        KL_CUDA_CALL(cudaLibraryLoadData(&lib.library, code.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    }
    auto it = lib.entries.find(entry);
    if (it != lib.entries.end()) return it->second;
    cudaKernel_t k = nullptr;
    cudaError_t err = cudaLibraryGetKernel(&k, lib.library, entry.c_str());
    if (err != cudaSuccess) {
        cudaGetLastError();
        throw InputError("kernel entry '" + entry + "' not found in " + label +
                         " (is it declared extern \"C\" __global__?)");
    }
    lib.entries[entry] = k;
    return k;
}

}  // namespace kl
