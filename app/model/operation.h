// An operation is the host side of a ladder: what the problem is (size axes, buffers), the
// work it must do (FLOPs, ideal bytes), how inputs are made (seeded random, never zeros), the
// trusted reference, and the tolerance a rung must meet. Few operations, many rungs: every
// rung of a ladder shares its operation's buffers, inputs and reference.
//
// - To add an operation: write app/model/ops/<name>.cpp with a class derived from Operation,
//   and register it at the bottom of that file with KL_REGISTER_OPERATION(ClassName).
// - Buffers are named; manifests bind kernel arguments to these names.
// - reference() writes expected values for every output buffer (as float, computed in higher
//   precision where it matters) and may use the GPU through the OpContext.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/dtype.h"

namespace kl {

class OpContext;  // op_context.h: named buffers, helper launches, downloads (GpuContext implements it)

struct SizeAxis {
    std::string name;  // "n", "rows", "M", ...
    int64_t min = 1;
    int64_t max = int64_t(1) << 40;
    std::string description;  // "elements", "matrix rows", ...
};

// A problem instance: values for every size axis of the operation, and the storage dtype.
struct Problem {
    std::map<std::string, int64_t> sizes;
    DType dtype = DType::F32;
    std::string compute;                          // the rung's declared lower precision (Rung::compute), "" if none
    int64_t size(const std::string& axis) const;  // throws InputError if missing
    std::string describe() const;                 // "n=268435456 fp32"
};

struct BufferDecl {
    enum class Role { Input, Output };
    std::string name;
    DType dtype;
    int64_t elements;
    Role role;
};

// The work any correct implementation must do: the floor of the roofline.
struct Work {
    double flops = 0;        // arithmetic operations counted by the operation's convention
    double ideal_bytes = 0;  // each input read once, each output written once
};

// An element passes when |out - ref| <= abs + rel * |ref| (and neither is NaN).
struct Tolerance {
    double abs = 0;
    double rel = 0;
};

// Expected output values (float, row-major, same element count as the output buffer).
using ReferenceOutputs = std::map<std::string, std::vector<float>>;

class Operation {
  public:
    virtual ~Operation() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    virtual std::vector<SizeAxis> size_axes() const = 0;
    virtual std::vector<DType> dtypes() const = 0;
    virtual std::vector<BufferDecl> buffers(const Problem& p) const = 0;
    virtual Work work(const Problem& p) const = 0;
    virtual Tolerance tolerance(const Problem& p) const = 0;
    // The tolerance of one output buffer: tolerance(p) unless an operation's outputs differ (a
    // sum over rows errs in proportion to the rows: layernorm_backward's dgamma and dbeta).
    virtual Tolerance tolerance_of(const Problem& p, const std::string& buffer) const;
    // Fill every input buffer. The default draws uniform values in [-1, 1) from a seeded
    // counter-based generator on the device; override for special inputs.
    virtual void make_inputs(const Problem& p, OpContext& gpu, uint64_t seed) const;
    // Compute the expected outputs. Called once per problem and cached across rungs.
    virtual void reference(const Problem& p, OpContext& gpu, ReferenceOutputs& out) const = 0;
    // For 2-D outputs: the shape (rows, cols) of an output buffer, for the error map.
    // {0, 0} means 1-D (the default).
    virtual std::pair<int64_t, int64_t> output_shape(const Problem& p, const std::string& buffer) const;
};

// [SECTION] Registry: operations register themselves at static-initialisation time.
using OperationFactory = std::function<std::unique_ptr<Operation>()>;
bool register_operation(const std::string& name, OperationFactory factory);
const Operation* find_operation(const std::string& name);  // nullptr if unknown
std::vector<std::string> operation_names();

}  // namespace kl

#define KL_REGISTER_OPERATION(Class)                                                        \
    namespace {                                                                             \
    const bool kl_registered_##Class =                                                      \
        ::kl::register_operation(Class().name(), [] { return std::make_unique<Class>(); }); \
    }
