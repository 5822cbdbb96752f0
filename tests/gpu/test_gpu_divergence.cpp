// GPU tests (CTest label `gpu`, in program test_gpu_launch, test gpu.launch) of the divergence
// ladder: both rungs correct at aligned and odd sizes, one term and many, every block size; the
// warp-uniform rung faster than the divergent one at the ladder's sizes; and, where the device
// allows counters, the counter that shows why (threads_per_inst) and the remap's price (sectors
// per load request).
#include <gtest/gtest.h>

#include <map>

#include "base/paths.h"
#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "model/manifest_load.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_gpu_divergence {

namespace {

kl::GpuContext& divergence_gpu() {
    static kl::GpuContext ctx;
    return ctx;
}

const kl::Ladder& divergence_ladder() {
    static kl::Ladder L = kl::load_ladder(kl::kernels_dir() + "/divergence/ladder.toml");
    return L;
}

kl::RunRecord run_divergence(const std::string& rung, const std::map<std::string, int64_t>& sizes, kl::RunOptions o) {
    const kl::Rung* r = divergence_ladder().find_rung(rung);
    EXPECT_NE(r, nullptr) << rung;
    o.sizes = sizes;
    kl::Runner runner(divergence_gpu(), std::nullopt);
    return runner.run(divergence_ladder(), *r, o);
}

double counter_of(const kl::RunRecord& r, const char* key) {
    return r.counters.is_object() && r.counters.contains(key) && r.counters[key].is_number()
               ? r.counters[key].get<double>()
               : -1;
}

}  // namespace

// n = 1 (one lane of one warp), 63 and 64 (the remap's two halves of a 64-element span, the last
// one cut short), a large odd n (a last block part even, part odd), and a power of two; one term
// (each series is its first term: 1 and 1/2) and many.
TEST(GpuDivergence, EveryRungCorrectAtAlignedAndOddSizes) {
    int passed = 0, runs = 0;
    for (const auto& r : divergence_ladder().rungs)
        for (int64_t n : {int64_t(1), int64_t(63), int64_t(64), int64_t(1000003), int64_t(1) << 20})
            for (int64_t terms : {1, 2, 255})
                for (int64_t tpb : {32, 64, 256, 1024}) {
                    if (r.id == "branch_warps" && tpb < 64) continue;  // half the warps per side
                    kl::RunOptions o;
                    o.time = false;
                    o.params = {{"TPB", tpb}};
                    SCOPED_TRACE(r.id + " n=" + std::to_string(n) + " terms=" + std::to_string(terms) +
                                 " TPB=" + std::to_string(tpb));
                    kl::RunRecord rec = run_divergence(r.id, {{"n", n}, {"terms", terms}}, o);
                    ASSERT_TRUE(rec.correctness);
                    EXPECT_TRUE(rec.correctness->passed) << rec.correctness->summary();
                    passed += rec.correctness->passed;
                    ++runs;
                }
    EXPECT_EQ(passed, runs);
    EXPECT_EQ(runs, 5 * 3 * (4 + 3));
}

// The ladder's point, loosely (the lesson quotes the measured figures): each warp of branch_lanes
// issues both series, each of branch_warps one, so at the ladder's sizes (compute-bound) the
// second takes about half the time. Asked: under four fifths.
TEST(GpuDivergence, WarpUniformBranchBeatsTheDivergentOne) {
    kl::RunOptions o;
    const std::map<std::string, int64_t> s(divergence_ladder().default_sizes.begin(),
                                           divergence_ladder().default_sizes.end());
    const double lanes = run_divergence("branch_lanes", s, o).timing->median_ms;
    const double warps = run_divergence("branch_warps", s, o).timing->median_ms;
    std::printf("divergence ladder: branch_lanes %.3f ms, branch_warps %.3f ms (%.2fx)\n", lanes, warps, lanes / warps);
    EXPECT_LT(warps, 0.8 * lanes);
}

// The counters say why, and what the remap costs: active threads per warp instruction near 16
// against near 32; sectors per load request 4 against 8; the same DRAM bytes within 10%.
TEST(GpuDivergence, CountersShowMaskedLanesAndTheRemapsSectors) {
    kl::RunOptions o;
    o.counters = true;
    o.min_reps = o.max_reps = 3;
    const std::map<std::string, int64_t> s = {{"n", int64_t(1) << 22}, {"terms", 64}};
    kl::RunRecord lanes = run_divergence("branch_lanes", s, o);
    if (lanes.counters.is_null()) GTEST_SKIP() << "counters unavailable here: " << lanes.counters_note;
    kl::RunRecord warps = run_divergence("branch_warps", s, o);
    ASSERT_TRUE(warps.counters.is_object()) << warps.counters_note;
    const double tl = counter_of(lanes, "threads_per_inst"), tw = counter_of(warps, "threads_per_inst");
    const double sl = counter_of(lanes, "sectors_per_request_ld"), sw = counter_of(warps, "sectors_per_request_ld");
    const double dl = counter_of(lanes, "dram_bytes"), dw = counter_of(warps, "dram_bytes");
    std::printf("threads per instruction %.2f vs %.2f; sectors per load request %.2f vs %.2f; DRAM %.1f vs %.1f MB\n",
                tl, tw, sl, sw, dl / 1e6, dw / 1e6);
    ASSERT_GT(tl, 0) << lanes.counters_note;
    EXPECT_LT(tl, 20);
    EXPECT_GT(tw, 30);
    EXPECT_NEAR(sl, 4, 0.5);
    EXPECT_NEAR(sw, 8, 0.5);
    if (dl > 0 && dw > 0) { EXPECT_NEAR(dw / dl, 1, 0.1); }
}

}  // namespace kl_test_gpu_divergence
