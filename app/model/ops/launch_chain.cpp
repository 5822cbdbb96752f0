// Operation of the launch ladder (kernels/launch/): `steps` dependent steps over a small array,
// y = x + 1 + 1 + ... (steps times), each step one float add per element. The work is tiny on
// purpose: the ladder measures what it costs to get a step onto the GPU (a launch, a graph
// node, a grid barrier or nothing), not the step itself. The reference runs the same float
// adds in order on the GPU (kernels/launch/reference.cu).
#include "model/ops/xy_series.h"

namespace kl {

namespace {

class LaunchChain : public XySeriesOperation {
  public:
    LaunchChain() : XySeriesOperation("launch/reference.cu", "ref_launch_chain", "steps") {}
    std::string name() const override { return "launch_chain"; }
    std::string description() const override { return "steps dependent steps y = y + 1 over n elements, from y = x"; }
    std::vector<SizeAxis> size_axes() const override {
        return {{"n", 1, int64_t(1) << 28, "elements"}, {"steps", 1, 65536, "dependent steps (kernels)"}};
    }
    // One add per element per step; ideal traffic: x read once, y written once (a fused plan).
    Work work(const Problem& p) const override {
        const double n = double(p.size("n"));
        return {n * double(p.size("steps")), 2 * n * dtype_size(p.dtype)};
    }
    // Every step is one IEEE float add, correctly rounded, done in the same order by every rung
    // and the reference: a correct rung matches bit for bit. A skipped or doubled step misses by
    // about 1, far outside 1e-6 relative of values below 65,537.
    Tolerance tolerance(const Problem&) const override { return {0, 1e-6}; }
};

}  // namespace

KL_REGISTER_OPERATION(LaunchChain)

}  // namespace kl
