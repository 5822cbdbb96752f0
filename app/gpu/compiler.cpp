#include "gpu/compiler.h"

#include <dlfcn.h>
#include <link.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/paths.h"
#include "base/watchdog.h"
#include "gpu/compile_cache.h"
#include "gpu/cuda_check.h"
#include "model/include_scan.h"

namespace fs = std::filesystem;

namespace kl {

namespace {

// What NVRTC searches by itself: CUDA's include folder only. The tree's headers come in memory
// (include_scan.h), and --no-source-include keeps NVRTC from looking beside the source (which,
// for a program given in memory, is the process's working folder).
std::vector<std::string> nvrtc_options(const CompileRequest& req) {
    std::vector<std::string> opts;
    bool ptx = req.output == CompileRequest::Output::Ptx;
    std::string arch = req.arch;
    if (ptx) arch = "compute_" + arch.substr(3);  // PTX for the virtual architecture
    opts.push_back("--gpu-architecture=" + arch);
    opts.push_back("--std=c++17");
    opts.push_back("-lineinfo");  // lets Nsight Compute map counters to source lines
    opts.push_back("--no-source-include");
    opts.push_back("-I" + cuda_include_dir());
    for (const auto& d : req.defines) opts.push_back("-D" + d);
    return opts;
}

std::string label_of(const CompileRequest& req) { return req.label.empty() ? req.source_path : req.label; }

}  // namespace

// NVRTC opens libnvrtc-builtins.so.<major>.<minor> by name when it compiles. That dlopen searches
// libnvrtc's own search path, which has no RUNPATH, so our programs' RUNPATH does not reach it,
// and a toolkit installed as a plain folder (no /etc/ld.so.conf.d entry) fails with "failed to
// open libnvrtc-builtins". Loading the builtins first, from the folder libnvrtc itself came from,
// makes that later dlopen find the library already loaded (matched by its soname). No
// environment variable or system file is needed. Returns the loaded libnvrtc's real path.
static const std::string& preload_nvrtc_builtins() {
    static const std::string library = [] {
        int major = 0, minor = 0;
        if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return std::string();
        // The libnvrtc this process already loaded (RTLD_NOLOAD: never a second copy), and its path.
        void* nvrtc = dlopen(("libnvrtc.so." + std::to_string(major)).c_str(), RTLD_NOW | RTLD_NOLOAD);
        link_map* map = nullptr;
        if (!nvrtc || dlinfo(nvrtc, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name) return std::string();
        const fs::path dir = fs::path(map->l_name).parent_path();
        const std::string name = "libnvrtc-builtins.so." + std::to_string(major) + "." + std::to_string(minor);
        // Not fatal if it fails: NVRTC's own search may still succeed, and if it does not, its
        // error names the missing library.
        dlopen((dir / name).c_str(), RTLD_NOW | RTLD_GLOBAL);
        std::error_code ec;
        const fs::path real = fs::canonical(map->l_name, ec);
        return ec ? std::string(map->l_name) : real.string();
    }();
    return library;
}

std::string nvrtc_version_string() {
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    return std::to_string(major) + "." + std::to_string(minor);
}

namespace {

// The compiler as the cache key knows it: NVRTC's version and the library file it came from
// (an update within one version, libnvrtc.so.13.0.48 -> .88, changes its name or size).
std::string compiler_identity() {
    const std::string& library = preload_nvrtc_builtins();
    std::error_code ec;
    const auto size = library.empty() ? 0 : fs::file_size(library, ec);
    return "nvrtc " + nvrtc_version_string() + " " + library + " " + std::to_string(ec ? 0 : size);
}

// NVRTC on the scanned source, its headers in memory, under the compile time limit.
CompiledCode run_nvrtc(const CompileRequest& req, const ScannedSource& src, const std::string& program,
                       const std::vector<std::string>& opts) {
    CompiledCode out;
    std::vector<const char*> names, texts, argv;
    for (const auto& h : src.headers) names.push_back(h.name.c_str()), texts.push_back(h.text.c_str());
    for (const auto& o : opts) argv.push_back(o.c_str());
    const int limit = compile_time_limit_s();
    nvrtcProgram prog;
    KL_NVRTC_CALL(nvrtcCreateProgram(&prog, src.text.c_str(), program.c_str(), static_cast<int>(names.size()),
                                     texts.data(), names.data()));
    nvrtcResult res;
    {
        Watchdog watchdog(limit,
                          "kladder: compiling " + label_of(req) + " took longer than " + std::to_string(limit) +
                              " s (KL_COMPILE_TIMEOUT_S); stopped",
                          static_cast<int>(ExitCode::BadInput));
        res = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
    }
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    out.log.resize(log_size);
    if (log_size) nvrtcGetProgramLog(prog, out.log.data());
    while (!out.log.empty() && (out.log.back() == '\0' || out.log.back() == '\n')) out.log.pop_back();
    if (res != NVRTC_SUCCESS) {
        nvrtcDestroyProgram(&prog);
        std::string first_line = out.log.substr(0, out.log.find('\n'));
        throw CompileError("kernel " + label_of(req) + " failed to compile for " + req.arch + ": " + first_line,
                           out.log);
    }
    size_t size = 0;
    if (req.output == CompileRequest::Output::Ptx) {
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
    return out;
}

}  // namespace

CompiledCode compile_kernel(const CompileRequest& req) {
    std::error_code ec;
    if (!fs::exists(req.source_path, ec))
        throw InputError("kernel source not found: " + req.source_path +
                         (req.label.empty() ? "" : " (rung " + req.label + ")"));
    const ScannedSource src = scan_source(req.source_path, rung_include_search(req.source_path));
    const std::string program = fs::path(req.source_path).filename().string();
    const auto opts = nvrtc_options(req);
    const std::string key = compile_cache_key(src, program, opts, compiler_identity());
    const bool ptx = req.output == CompileRequest::Output::Ptx;
    const std::string entry_path = cache_dir("kernels") + "/" + key + (ptx ? ".ptx" : ".cubin");
    if (std::optional<CacheEntry> e = load_cache_entry(entry_path, key, label_of(req))) {
        CompiledCode out;
        out.code = std::move(e->code);
        out.log = std::move(e->log);  // kept with the code: ptxas's notes reach every compile
        out.cache_key = key;
        out.from_cache = true;
        return out;
    }
    const auto start = std::chrono::steady_clock::now();
    CompiledCode out = run_nvrtc(req, src, program, opts);
    out.cache_key = key;
    out.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    store_cache_entry(entry_path, {key, out.code, out.log});
    return out;
}

}  // namespace kl
