// Triton rungs (kind = "triton"): a .py file with one @triton.jit kernel, compiled to a cubin by
// the compile helper the program carries (triton_child.h), run with the learner's python3 in a
// confined child, then loaded and launched by the runner like any CUDA rung. The rung's source is
// checked before any Python sees it (triton_source.h). This file is the CUDA-free half: finding
// Python and Triton (once per process, and only when a Triton rung is compiled or run), the
// helper's JSON contract, the compile cache, and the launch contract the runner follows
// (runner.cpp):
//   - the kernel's parameters are the launch's `args` in order (Triton drops the constexprs),
//     followed by two pointers: the global scratch and the profile scratch, each null unless the
//     compiled kernel's metadata asks for bytes (then grid blocks x size, aligned);
//   - a block has num_warps * 32 threads (x only); the dynamic shared memory is the metadata's
//     `shared` (opted into above 48 KB like any rung).
// The contract was checked against Triton 3.6 on the H100 (tests/gpu/test_gpu_triton.cpp).
#pragma once
#include <cuda_runtime_api.h>  // dim3 only

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/dtype.h"
#include "model/manifest.h"
#include "model/op_context.h"  // KernelArg

namespace kl {

// [SECTION] Python and Triton

struct TritonAvailability {
    bool available = false;
    std::string python;   // the interpreter that was probed
    std::string version;  // Triton's version ("3.6.0") when available
    std::string reason;   // when not: one line saying what to install, and where
};
// $KL_PYTHON, else python3 on PATH, probed once per process (the helper's --probe, confined like
// a compile). Call it only for a Triton rung about to be compiled or run, after
// check_triton_rung_source: nothing else starts Python.
const TritonAvailability& triton_availability();
// The same, uncached, for an explicit interpreter setting ("" = python3 on PATH).
TritonAvailability probe_triton(const std::string& kl_python);

// Reads and checks a Triton rung's source (triton_source.h) and that every launch's entry is one
// of its @triton.jit functions. Throws InputError "PATH:LINE: ...". Runs no Python.
void check_triton_rung_source(const Rung& rung);

// [SECTION] The helper's request and answer (docs/formats.md, "Triton rungs")

struct TritonArg {
    std::string type;    // "*fp32", "*bf16", "*fp16", "i32", "i64", "fp32"
    bool div16 = false;  // the value (or pointer) is a multiple of 16, as Triton's launcher marks it
};

struct TritonCompileRequest {
    std::string source_path, kernel, label;
    std::vector<TritonArg> signature;                         // the kernel's non-constexpr arguments
    std::vector<std::pair<std::string, int64_t>> constexprs;  // sorted by name
    int num_warps = 4, num_stages = 3, arch = 90;
};

// The request for one launch of a Triton rung at resolved parameters: constexprs are the
// parameters other than num_warps and num_stages, plus the rung's `constexprs` evaluated in
// `scope`; the signature follows the launch's args (buffers -> pointers to their dtype,
// scalars -> i32 / i64 / fp32, div16 from the value; device buffers are 256-byte aligned).
TritonCompileRequest triton_request(const Rung& rung, const LaunchSpec& launch, const ParamValues& params,
                                    const Scope& scope, const std::map<std::string, DType>& buffer_dtypes, int arch_cc,
                                    const std::string& label);
// The helper's request; `staged` is where the checked source was copied for it (the helper reads
// that copy, and names req.source_path in its messages).
std::string encode_triton_request(const TritonCompileRequest& req, const std::string& staged = "");

struct TritonCompiled {
    std::string name;  // the cubin's entry point
    std::string triton_version, cubin, ptx, ttgir, cache_key;
    std::vector<std::string> params;  // the kernel's parameter names, scratch pointers not included
    int64_t shared = 0;
    int num_warps = 0, num_stages = 0, num_ctas = 1;
    int64_t global_scratch_size = 0, global_scratch_align = 1, profile_scratch_size = 0, profile_scratch_align = 1;
    bool from_cache = false;
};

// Parses the helper's stdout. Throws CompileError with the helper's one line ({"ok": false})
// and InputError when the answer is not the contract's JSON.
TritonCompiled parse_triton_answer(const std::string& text, const std::string& label);

// Hex key of the compile cache: the source bytes, the helper's bytes, the request (kernel,
// signature, constexprs, num_warps, num_stages, arch) and the Triton version.
std::string triton_cache_key(const TritonCompileRequest& req, const std::string& source, const std::string& helper,
                             const std::string& triton_version);

// Checks the source (before any Python runs), then compiles through the helper, or answers from
// the disk cache (<cache>/kernels/<key>.triton.json). Throws InputError (a source outside the
// rules, named PATH:LINE; no Python or Triton: the availability's reason), CompileError (the
// helper's one line, or its time limit, with its stderr as the log).
TritonCompiled compile_triton(const TritonCompileRequest& req);

// [SECTION] Launch contract

struct TritonLaunchShape {
    dim3 block;                        // num_warps * 32 threads
    int64_t shared = 0;                // dynamic shared memory bytes
    int64_t global_scratch_bytes = 0;  // 0: pass a null pointer
    int64_t profile_scratch_bytes = 0;
};
TritonLaunchShape triton_launch_shape(const TritonCompiled& k, dim3 grid);

// The manifest's arguments followed by the global and the profile scratch pointers.
std::vector<KernelArg> pack_triton_args(std::vector<KernelArg> args, const void* global_scratch,
                                        const void* profile_scratch);

std::string base64_decode(const std::string& text, bool* ok);

}  // namespace kl
