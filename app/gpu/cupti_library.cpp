// Loads CUPTI with dlopen: see cupti_library.h.
#include "gpu/cupti_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

#include "gpu/shared_library.h"

namespace kl {

namespace {

std::vector<std::string> cupti_candidates() {
    std::vector<std::string> out = {"libcupti.so.13"};  // the loader's own search path first
    std::vector<std::string> roots;
    if (std::string lib = cuda_runtime_folder(); !lib.empty()) {
        out.push_back(lib + "/libcupti.so.13");
        roots.push_back(folder_of(lib));
    }
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* v = std::getenv(var)) roots.push_back(v);
    roots.push_back("/usr/local/cuda");
    for (const auto& r : roots)
        for (const char* sub :
             {"/lib64", "/extras/CUPTI/lib64", "/targets/x86_64-linux/lib", "/targets/sbsa-linux/lib"})
            out.push_back(r + sub + "/libcupti.so.13");
    return out;
}

}  // namespace

const CuptiLibrary& cupti_library() {
    static const CuptiLibrary lib = [] {
        CuptiLibrary L;
        void* handle = nullptr;
        std::string tried;
        for (const auto& c : cupti_candidates()) {
            handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (handle) break;
            if (tried.size() < 200) tried += (tried.empty() ? "" : ", ") + c;
        }
        if (!handle) {
            L.failure = "hardware counters unavailable: CUPTI (libcupti.so.13) was not found (tried " + tried + ")";
            return L;
        }
        L.handle = handle;
        char origin[4096] = {0};
        if (dlinfo(handle, RTLD_DI_ORIGIN, origin) == 0) {
            L.path = std::string(origin) + "/libcupti.so.13";
            for (const char* dep : {"/libnvperf_host.so", "/libnvperf_target.so"})
                dlopen((std::string(origin) + dep).c_str(), RTLD_NOW | RTLD_GLOBAL);  // best effort, see above
        }
#define KL_RESOLVE(name)                                               \
    L.name = reinterpret_cast<decltype(L.name)>(dlsym(handle, #name)); \
    if (!L.name && L.failure.empty())                                  \
        L.failure = "hardware counters unavailable: " + L.path + " has no " #name " (CUPTI older than CUDA 13?)";
        KL_CUPTI_FUNCTIONS(KL_RESOLVE)
#undef KL_RESOLVE
        return L;
    }();
    return lib;
}

void* cupti_library_handle(std::string* failure) {
    const CuptiLibrary& L = cupti_library();
    if (!L.handle) *failure = L.failure;
    return L.handle;
}

}  // namespace kl
