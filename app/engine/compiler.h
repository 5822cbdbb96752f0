// Run-time compilation of rung sources with NVRTC. Needs no GPU: `kladder check-kernels`
// compiles every rung on machines without one. Results are cached on disk, keyed by a hash
// of the source (and kl_common.cuh), the options, the target and the NVRTC version.
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
// source does not compile, InputError when it cannot be read.
CompiledCode compile_kernel(const CompileRequest& req);

std::string nvrtc_version_string();  // "13.0"

}  // namespace kl
