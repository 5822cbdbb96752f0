// Operation of the divergence ladder (kernels/divergence/): y[i] = f(x[i]) for even i, g(x[i])
// for odd i, where f and g are two different series of `terms` terms (kernels/divergence/
// series.cuh). Enough dependent arithmetic per element (terms steps against 8 bytes) that the
// kernel is compute-bound: what a warp costs is the instructions it issues, and a warp whose
// lanes split on the branch issues both sides. The reference sums both geometric series in
// closed form, in fp64 (kernels/divergence/reference.cu).
#include "model/ops/xy_series.h"

namespace kl {

namespace {

class BranchSeries : public XySeriesOperation {
  public:
    BranchSeries() : XySeriesOperation("divergence/reference.cu", "ref_branch_series", "terms") {}
    std::string name() const override { return "branch_series"; }
    std::string description() const override {
        return "y = one series of x for even elements, another for odd ones, terms steps each";
    }
    std::vector<SizeAxis> size_axes() const override {
        return {{"n", 1, int64_t(1) << 32, "elements"}, {"terms", 1, 65536, "terms of each series"}};
    }
    // Two FLOPs a term on either side (even: one FMA; odd: a multiply and an add); x read once,
    // y written once.
    Work work(const Problem& p) const override {
        const double n = double(p.size("n"));
        return {2 * n * double(p.size("terms")), 2 * n * dtype_size(p.dtype)};
    }
    // Both series have ratio at most 1/2 in magnitude, so fp32 rounding does not grow with the
    // terms: a few ulps (below 1e-6 relative) against the fp64 closed form. 1e-5 leaves room;
    // an element sent down the wrong side misses by a third or more (the two ranges, [2/3, 2)
    // and (1/3, 1/2], do not meet), and a missing term by r^(terms-1), caught at small terms.
    Tolerance tolerance(const Problem&) const override { return {0, 1e-5}; }
};

}  // namespace

KL_REGISTER_OPERATION(BranchSeries)

}  // namespace kl
