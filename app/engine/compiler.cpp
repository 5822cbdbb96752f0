#include "compiler.h"

#include <dlfcn.h>
#include <link.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "atomic_file.h"
#include "cuda_check.h"
#include "errors.h"
#include "paths.h"

namespace fs = std::filesystem;

namespace kl {

namespace {

uint64_t fnv1a(const std::string& s, uint64_t h = 1469598103934665603ull) {
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string hex(uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

// Everything a rung may #include besides CUDA's headers: the headers in kernels/common/ and in
// the rung's own folder, named and read now (a header edited while the workbook runs must
// change the cache key, as an edited .cu does).
std::string included_headers(const std::string& source_path) {
    std::vector<fs::path> files;
    for (const fs::path& dir : {fs::path(kernels_dir()) / "common", fs::path(source_path).parent_path()}) {
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(dir, ec)) {
            const std::string ext = e.path().extension().string();
            if (e.is_regular_file(ec) && (ext == ".cuh" || ext == ".h")) files.push_back(e.path());
        }
    }
    std::sort(files.begin(), files.end());
    std::string text;
    for (const auto& f : files) text += f.filename().string() + "\n" + read_file(f.string()) + "\n";
    return text;
}

std::vector<std::string> nvrtc_options(const CompileRequest& req) {
    std::vector<std::string> opts;
    bool ptx = req.output == CompileRequest::Output::Ptx;
    std::string arch = req.arch;
    if (ptx) arch = "compute_" + arch.substr(3);  // PTX for the virtual architecture
    opts.push_back("--gpu-architecture=" + arch);
    opts.push_back("--std=c++17");
    opts.push_back("-lineinfo");  // lets Nsight Compute map counters to source lines
    opts.push_back("-I" + kernels_dir() + "/common");
    opts.push_back("-I" + fs::path(req.source_path).parent_path().string());
    opts.push_back("-I" + cuda_include_dir());
    for (const auto& d : req.defines) opts.push_back("-D" + d);
    return opts;
}

}  // namespace

// NVRTC opens libnvrtc-builtins.so.<major>.<minor> by name when it compiles. That dlopen searches
// libnvrtc's own search path, which has no RUNPATH, so our programs' RUNPATH does not reach it,
// and a toolkit installed as a plain folder (no /etc/ld.so.conf.d entry) fails with "failed to
// open libnvrtc-builtins". Loading the builtins first, from the folder libnvrtc itself came from,
// makes that later dlopen find the library already loaded (matched by its soname). No
// environment variable or system file is needed.
static void preload_nvrtc_builtins() {
    static const bool loaded = [] {
        int major = 0, minor = 0;
        if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return false;
        // The libnvrtc this process already loaded (RTLD_NOLOAD: never a second copy), and its path.
        void* nvrtc = dlopen(("libnvrtc.so." + std::to_string(major)).c_str(), RTLD_NOW | RTLD_NOLOAD);
        link_map* map = nullptr;
        if (!nvrtc || dlinfo(nvrtc, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name) return false;
        const fs::path dir = fs::path(map->l_name).parent_path();
        const std::string name = "libnvrtc-builtins.so." + std::to_string(major) + "." + std::to_string(minor);
        // Not fatal if it fails: NVRTC's own search may still succeed, and if it does not, its
        // error names the missing library.
        return dlopen((dir / name).c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr;
    }();
    (void)loaded;
}

std::string nvrtc_version_string() {
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    return std::to_string(major) + "." + std::to_string(minor);
}

CompiledCode compile_kernel(const CompileRequest& req) {
    std::error_code ec;
    if (!fs::exists(req.source_path, ec))
        throw InputError("kernel source not found: " + req.source_path +
                         (req.label.empty() ? "" : " (rung " + req.label + ")"));
    const std::string source = read_file(req.source_path);
    const auto opts = nvrtc_options(req);

    uint64_t h = fnv1a(source);
    h = fnv1a(included_headers(req.source_path), h);
    for (const auto& o : opts) h = fnv1a(o + "\n", h);
    h = fnv1a(nvrtc_version_string(), h);
    CompiledCode out;
    out.cache_key = hex(h);
    const bool ptx = req.output == CompileRequest::Output::Ptx;
    const std::string cache_path = cache_dir("kernels") + "/" + out.cache_key + (ptx ? ".ptx" : ".cubin");
    // The log is cached beside the code, so its warnings (ptxas's performance notes among them)
    // reach every compile; an entry without its log (written before the log was kept) is redone.
    const std::string log_path = cache_path + ".log";
    if (fs::exists(cache_path, ec) && fs::exists(log_path, ec)) {
        out.code = read_file(cache_path);
        out.log = read_file(log_path);
        out.from_cache = true;
        return out;
    }

    auto start = std::chrono::steady_clock::now();
    preload_nvrtc_builtins();
    nvrtcProgram prog;
    KL_NVRTC_CALL(
        nvrtcCreateProgram(&prog, source.c_str(), fs::path(req.source_path).filename().c_str(), 0, nullptr, nullptr));
    std::vector<const char*> argv;
    for (const auto& o : opts) argv.push_back(o.c_str());
    nvrtcResult res = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    out.log.resize(log_size);
    if (log_size) nvrtcGetProgramLog(prog, out.log.data());
    while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) out.log.pop_back();
    if (res != NVRTC_SUCCESS) {
        nvrtcDestroyProgram(&prog);
        std::string first_line = out.log.substr(0, out.log.find('\n'));
        throw CompileError("kernel " + (req.label.empty() ? req.source_path : req.label) + " failed to compile for " +
                               req.arch + ": " + first_line,
                           out.log);
    }
    size_t size = 0;
    if (ptx) {
        KL_NVRTC_CALL(nvrtcGetPTXSize(prog, &size));
        out.code.resize(size);
        KL_NVRTC_CALL(nvrtcGetPTX(prog, out.code.data()));
        while (!out.code.empty() && out.code.back() == '\0') out.code.pop_back();
    } else {
        KL_NVRTC_CALL(nvrtcGetCUBINSize(prog, &size));
        out.code.resize(size);
        KL_NVRTC_CALL(nvrtcGetCUBIN(prog, out.code.data()));
    }
    nvrtcDestroyProgram(&prog);
    out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    try {
        write_file_atomically(log_path, out.log);  // first: code found without its log is recompiled
        write_file_atomically(cache_path, out.code);
    } catch (const Error&) {
        // A read-only cache folder costs a recompile next time, nothing more.
    }
    return out;
}

}  // namespace kl
