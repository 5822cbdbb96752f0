#include "gpu/shared_library.h"

#include <cuda_runtime_api.h>
#include <dlfcn.h>

namespace kl {

std::string folder_of(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::string cuda_runtime_folder() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&cudaRuntimeGetVersion), &info) && info.dli_fname)
        return folder_of(info.dli_fname);
    return {};
}

}  // namespace kl
