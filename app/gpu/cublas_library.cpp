// Loads cuBLASLt, then cuBLAS, with dlopen: see cublas_library.h for why not linking them.
#include "gpu/cublas_library.h"

#include <dlfcn.h>

#include <string>
#include <vector>

#include "base/errors.h"
#include "gpu/shared_library.h"

namespace kl {

namespace {

// The loader's own search path first (the programs' run path names the toolkit's folder), then
// the folder libcudart was loaded from: cuBLAS ships beside it in every toolkit layout.
std::vector<std::string> candidates(const std::string& soname) {
    std::vector<std::string> out = {soname};
    if (std::string folder = cuda_runtime_folder(); !folder.empty()) out.push_back(folder + "/" + soname);
    return out;
}

// flags: RTLD_GLOBAL for cuBLASLt (libcublas needs it by its soname and finds it loaded),
// RTLD_LOCAL for cuBLAS itself.
void* open_library(const std::string& soname, int flags) {
    std::string tried;
    for (const auto& c : candidates(soname)) {
        if (void* h = dlopen(c.c_str(), RTLD_NOW | flags)) return h;
        const char* why = dlerror();
        tried += (tried.empty() ? "" : "; ") + c + (why ? std::string(": ") + why : std::string());
    }
    throw GpuError("cuBLAS unavailable: " + soname + " could not be loaded (" + tried.substr(0, 600) +
                   "); install the CUDA toolkit's cuBLAS beside libcudart");
}

template <typename F>
void resolve(void* handle, const char* soname, const char* name, F* slot) {
    *slot = reinterpret_cast<F>(dlsym(handle, name));
    if (!*slot)
        throw GpuError(std::string("cuBLAS unavailable: ") + soname + " has no " + name +
                       " (a cuBLAS older than the CUDA " + std::to_string(CUBLAS_VER_MAJOR) + " headers?)");
}

CublasLibrary load() {
    const std::string major = std::to_string(CUBLAS_VER_MAJOR);
    const std::string lt_name = "libcublasLt.so." + major, blas_name = "libcublas.so." + major;
    void* lt = open_library(lt_name, RTLD_GLOBAL);
    void* blas = open_library(blas_name, RTLD_LOCAL);
    CublasLibrary L;
#define KL_RESOLVE_BLAS(name) resolve(blas, blas_name.c_str(), #name, &L.name);
#define KL_RESOLVE_LT(name) resolve(lt, lt_name.c_str(), #name, &L.name);
    KL_CUBLAS_FUNCTIONS(KL_RESOLVE_BLAS)
    KL_CUBLASLT_FUNCTIONS(KL_RESOLVE_LT)
#define KL_RESOLVE_TYPED(name, type) resolve(blas, blas_name.c_str(), #name, &L.name);
    KL_CUBLAS_GEMM_FUNCTIONS(KL_RESOLVE_TYPED)
#undef KL_RESOLVE_TYPED
#undef KL_RESOLVE_BLAS
#undef KL_RESOLVE_LT
    return L;
}

}  // namespace

const CublasLibrary& cublas_library() {
    // A failed load throws from the initialiser, so the next call tries again (and says why again).
    static const CublasLibrary lib = load();
    return lib;
}

}  // namespace kl
