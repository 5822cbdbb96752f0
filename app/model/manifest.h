// Ladder manifests (kernels/<ladder>/ladder.toml): the one list of rungs that the CLI, the
// GUI, the lessons, the exports and the tests all read. Format: docs/formats.md.
// Loading validates everything it can without a GPU; errors read
// "<file>:<line>: <field>: <problem>".
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/errors.h"
#include "base/expr.h"
#include "model/dtype.h"

namespace kl {

struct ParamSpec {
    std::string name;
    int64_t default_value = 0;
    // What runs recorded before the parameter existed ran with, when that is not the default (the
    // default changed after measuring): results that do not list the parameter stand for this value.
    std::optional<int64_t> before;
    std::vector<int64_t> values;  // explicit list, or empty for a range
    int64_t min = 0, max = 0;
    bool pow2 = false;
    std::string help;
    // `lab = true`: a measuring or ablation switch, not an idea. The teaching rung pins it at its
    // default (values = {default}, pinned); the rung's lab twin (Rung::lab) varies it.
    bool lab = false;
    bool pinned = false;
    bool accepts(int64_t v) const;
    std::vector<int64_t> allowed() const;  // every valid value (ranges enumerated, capped at 4096 entries)
    std::string describe_allowed() const;  // "one of 32, 64, 128" / "1..16, powers of two"
};

struct Constraint {
    Expr expr;
    std::string message;
    int line = 0;
    std::string where;  // "<ladder.toml>:<line>: rung[i].constraint[j].expr": names it when it cannot be evaluated
};

// A manifest expression that parsed and passed the load checks but cannot be evaluated for a
// problem (x / 0, an overflow): an error of the manifest, naming its file, line and field, not
// a problem the rung declines (a false constraint, an InputError without the manifest's place).
struct ManifestError : InputError {
    explicit ManifestError(const std::string& m) : InputError(m) {}
};

// "tmap(A, rows=M, cols=K, box_rows=BM, box_cols=64, swizzle=128)": a TMA tensor map over a
// row-major rows x cols buffer, copied box_rows x box_cols at a time, encoded on the host and
// passed by value (a 128-byte `const __grid_constant__` kernel parameter).
struct TensorMapSpec {
    std::string buffer;
    Expr rows, cols, box_rows, box_cols;
    int swizzle = 0;  // bytes: 0 (none), 32, 64 or 128
};

struct ArgSpec {
    enum class Kind { Buffer, Scalar, TensorMap } kind = Kind::Scalar;
    enum class Type { I32, I64, F32 } type = Type::I32;
    std::string buffer;       // for Kind::Buffer
    Expr value;               // for Kind::Scalar
    TensorMapSpec tmap;       // for Kind::TensorMap
    bool is_literal = false;  // "0.5:f32": a floating-point constant, not an expression
    double literal = 0;
    std::string text;  // as written
};

struct LaunchSpec {
    std::string entry;              // kernel function, or empty when builtin is set
    std::string builtin;            // engine routine ("cublas_sgemm"), or empty
    std::vector<Expr> grid, block;  // 1..3 each
    Expr smem;
    std::vector<ArgSpec> args;
    // `when = "d == 64"`: the launch runs only for problems where this holds (one kernel
    // instantiation per head dimension, say); empty: always.
    Expr when;
    // `repeat = "steps"`: the launch is enqueued this many times in a row (0 allowed), each
    // waiting for the one before (launch_modes.h); empty: once.
    Expr repeat;
    int line = 0;
    std::string when_where;  // "<ladder.toml>:<line>: rung[i].launch[j].when"
    // Throws ManifestError (naming when_where) when `when` cannot be evaluated.
    bool applies(const Scope& scope) const;
};

struct ScratchSpec {
    std::string name;
    Expr elements;
    std::optional<DType> dtype;  // default: the problem's dtype
};

struct RungModel {
    Expr bytes;  // expected DRAM bytes; empty when not given
    Expr flops;  // optional override of the operation's count
    std::string note;
};

// The most characters a rung's `short` label may have: it names a bar on a plot's axis.
inline constexpr size_t kShortLabelChars = 24;
// The most parameters a teaching rung may offer the learner (issue 37): more are switches of a lab
// rung. Pinned lab switches and parameters with a single value do not count.
inline constexpr size_t kTeachingParams = 5;

struct Rung {
    std::string id, title, file, source_path, operation, idea, arch;
    // `short`: what plot axes and the ladder strip's cards call it when the title is too long
    // ("FA2, 64-row tiles"); unique within the ladder, at most kShortLabelChars. "" when not given.
    std::string short_label;
    // The name for tight places: the short label, else the title.
    const std::string& label() const { return short_label.empty() ? title : short_label; }
    // "cuda" (a .cu file compiled by NVRTC) or "triton" (a .py file with one @triton.jit kernel,
    // compiled by the helper the program carries; triton_rung.h). A Triton rung's parameters
    // other than num_warps and num_stages are the kernel's constexprs, `constexprs` adds those
    // computed from the problem (HEAD_D = "d"), and its launches run num_warps * 32 threads.
    std::string kind = "cuda";
    std::vector<std::pair<std::string, Expr>> constexprs;
    bool is_triton() const { return kind == "triton"; }
    // The oldest GPU architecture the rung runs on ("sm_80" for mma.sync and cp.async) and why,
    // in one phrase; "" for rungs that run everywhere. An "a" target in `arch` (sm_90a) implies
    // its own architecture. Checked by rung_arch_refusal() (device_profile.h).
    std::string min_arch, min_arch_why;
    // Arithmetic below the dtype's own precision that the rung does on purpose ("tf32": fp32
    // data through TF32 tensor cores), so that it is checked with that precision's tolerance;
    // "" for rungs that compute in their dtype.
    std::string compute;
    // `graph = true`: the rung's launches are captured once into a CUDA graph and every run
    // (checked and timed) replays it with one cudaGraphLaunch (launch_modes.h).
    bool graph = false;
    std::vector<DType> dtypes;
    bool reference = false;
    // A lab rung (`lab = true`, or the twin the loader makes of a rung with lab switches, id
    // "<id>_lab", lab_of naming the teaching rung): off the lesson strip and the window's strip,
    // listed by `kladder list --lab`, checked by check-kernels and run by the GPU tests.
    bool lab = false;
    std::string lab_of;
    std::vector<ParamSpec> params;  // manifest order
    std::vector<Constraint> constraints;
    std::vector<LaunchSpec> launches;
    std::vector<ScratchSpec> scratch;
    RungModel model;
    int line = 0;
    int index = 0;  // position in the ladder
    // What lessons, the strip, plot axes and `kladder list` call it: the manifest's `number`, else
    // the file's number ("11" for 11_wgmma_bf16.cu), "R1", "R2", ... for library references (no
    // file), else the position ("03"). Unique within the ladder's teaching rungs; a lab twin
    // shares its teaching rung's number.
    std::string number;
    // The parameters a learner can set (those with more than one value: pinned lab switches and
    // single-valued variant selectors left out): at most kTeachingParams on a teaching rung.
    size_t free_params() const;
    // A learner's rung (model/workspace.h): read from the workspace, not from kernels/; number
    // "M1", "M2", ...; forked_from names the ladder's rung it started as.
    bool learner = false;
    std::string forked_from;
    const ParamSpec* find_param(const std::string& name) const;
    // A PyTorch peer: a reference whose launch is `builtin = "torch.<peer>"` (gpu/torch_bridge.h).
    bool is_torch_peer() const;
    // "reference", "PyTorch peer" or "": what the strip and `kladder list` mark a rung with.
    std::string reference_mark() const;
};

struct Ladder {
    std::string id, title, operation, summary;
    std::vector<std::pair<std::string, int64_t>> default_sizes;  // manifest order
    std::vector<DType> dtypes;
    std::vector<Rung> rungs;      // the teaching rungs, in strip order
    std::vector<Rung> lab_rungs;  // off the strip (Rung::lab); find_rung finds them too
    std::string manifest_path, dir;
    const Rung* find_rung(const std::string& id) const;
    // Teaching rungs, then lab rungs: what check-kernels and the GPU tests go through.
    std::vector<const Rung*> every_rung() const;
};

// [SECTION] Resolving a rung for a problem
using ParamValues = std::map<std::string, int64_t>;

// Defaults overridden by `overrides`; throws InputError for unknown names, values outside
// the allowed set, and violated constraints (with the constraint's message).
ParamValues resolve_params(const Rung& rung, const ParamValues& overrides);
// The scope expressions see: sizes, params, esize, num_sms.
Scope make_scope(const std::map<std::string, int64_t>& sizes, const ParamValues& params, DType dtype, int num_sms);
// Checks constraints (InputError with the message and the values involved), and that at least one
// launch applies when the rung's launches carry `when` conditions (InputError naming the rung,
// the conditions and the values they saw). A constraint or condition that cannot be evaluated
// (x / 0, an overflow) throws ManifestError naming ladder.toml:LINE and the field.
void check_constraints(const Rung& rung, const Scope& scope);
// The launches that run for this problem, in manifest order (those whose `when` holds).
std::vector<const LaunchSpec*> applicable_launches(const Rung& rung, const Scope& scope);
// -D defines for NVRTC: params, ELEM, ELEM_IS_*.
std::vector<std::string> compile_defines(const Rung& rung, const ParamValues& params, DType dtype);
std::string rung_arch(const Rung& rung, const std::string& device_arch);

}  // namespace kl
