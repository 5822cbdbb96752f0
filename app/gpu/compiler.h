// Run-time compilation of rung sources with NVRTC. Needs no GPU: `kladder check-kernels`
// compiles every rung on machines without one. The workbook reads the source and every header
// it includes itself (include_scan.h) and gives them to NVRTC in memory, so NVRTC opens no file
// of the tree. Results are cached on disk (compile_cache.h), keyed by a SHA-256 of all it read,
// the options (target included) and the compiler. Every compile runs under a time limit
// (KL_COMPILE_TIMEOUT_S, default 300 s): past it the process prints one line and exits 2.
#pragma once
#include <string>
#include <vector>

namespace kl {

struct CompileRequest {
    std::string source_path;           // absolute path of the .cu file
    std::vector<std::string> defines;  // "TPB=256", "ELEM=float", ...
    std::string arch = "sm_90";        // "sm_90", "sm_90a", "sm_80" ...
    enum class Output { Cubin, Ptx } output = Output::Cubin;
    std::string label;  // for messages: "elementwise/gelu_fused"
};

struct CompiledCode {
    std::string code;  // CUBIN bytes, or PTX text
    std::string log;   // NVRTC's log (warnings too, ptxas's included; kept in the cache beside the code)
    std::string cache_key;
    bool from_cache = false;
    double compile_ms = 0;
};

// Compiles or returns the cached result. Throws CompileError (with NVRTC's log) when the
// source does not compile, InputError when it or a header it includes cannot be read (a FIFO,
// a device, a link out of the tree, a NUL byte) or the cache folder lies inside the data tree.
CompiledCode compile_kernel(const CompileRequest& req);

std::string nvrtc_version_string();  // "13.0"

}  // namespace kl
