// GPU tests of matmul rung 18's three reshapings of the last round (CTest label `gpu`, in
// test_gpu). STREAMK = 1: the stacks left after the whole rounds are cut by K-tiles, and a cut tile's pieces meet in C
// (TMA reduce-adds, or atomic adds when no tensor map describes C). Sizes chosen so that the remainder is streamed (all
// stacks at 1792^3, 1793^3 and 2048^3; 58 of 256 at 4096 x 4096 x 1024; a tile in four to five pieces at 1024 x 1024 x
// 4096), one where it is too small to stream (2047 x 2049 x 1023), and padded operands. QUEUE: stacks taken from a
// counter in scratch. NARROW: the left-over stacks re-cut along N into one narrow piece per cluster. Each run first
// takes the no-warm-up measurement (one launch), so the checked launch finds the flags and the counter the previous one
// left: they must be back at zero.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "gpu_matmul_support.h"
#include "lab_twin.h"
#include "model/device_profile.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_gpu_streamk {

namespace {

using kl_test::gpu;
using kl_test::matmul;

using Sizes = std::vector<std::map<std::string, int64_t>>;
std::map<std::string, int64_t> mnk(int64_t m, int64_t n, int64_t k) { return {{"M", m}, {"N", n}, {"K", k}}; }

const Sizes kReshapeSizes =
    {
        mnk(1792, 1792, 1792), mnk(1793, 1793, 1793), mnk(2048, 2048, 2048), mnk(4096, 4096, 1024),
        mnk(1024, 1024, 4096), mnk(2047, 2049, 1023), mnk(515, 1004, 200),   mnk(4097, 4097, 4097),
        mnk(8192, 256, 1024),  // 32 stacks of one column: fewer than the clusters
};

// Checks rung 18 with each of `variants` at each size, the checked launch after one unchecked
// launch, and returns how many passed.
int check_after_one_launch(const std::vector<kl::ParamValues>& variants, const Sizes& sizes = kReshapeSizes) {
    const kl::Ladder& L = matmul();
    const kl::Rung* ts = kl_test::with_switches(L, "wgmma_tma_store_bf16");
    kl::Runner runner(gpu(), std::nullopt);
    int checked = 0;
    for (const auto& params : variants) {
        for (const auto& s : sizes) {
            kl::RunOptions o;
            o.sizes = s;
            o.params = params;
            o.time = false;
            o.mode = kl::RunMode::NoWarmup;  // one launch before the checked one
            std::string p;
            for (const auto& [k, v] : params) p += " " + k + "=" + std::to_string(v);
            SCOPED_TRACE("matmul/wgmma_tma_store_bf16" + p + " M=" + std::to_string(s.at("M")) +
                         " N=" + std::to_string(s.at("N")) + " K=" + std::to_string(s.at("K")));
            kl::RunRecord rec = runner.run(L, *ts, o);
            if (!rec.correctness) ADD_FAILURE() << rec.error;
            if (rec.correctness && rec.correctness->passed) ++checked;
            EXPECT_TRUE(rec.correctness && rec.correctness->passed)
                << (rec.correctness ? rec.correctness->summary() : "no check");
            if (runner.context_lost()) {
                ADD_FAILURE() << "a rung faulted";
                return checked;
            }
        }
    }
    return checked;
}

bool rung18_runs_here() {
    const kl::Rung* ts = kl_test::with_switches(matmul(), "wgmma_tma_store_bf16");
    return ts && kl::rung_arch_refusal(*ts, gpu().device().cc()).empty();
}

}  // namespace

TEST(GpuStreamK, CutTilesMeetInCAtOddSizesAndLeaveTheFlagsAtZero) {
    if (!rung18_runs_here()) GTEST_SKIP() << "rung 18 is sm_90a only";
    const std::vector<kl::ParamValues> variants = {
        {{"STREAMK", 1}},
        {{"STREAMK", 1}, {"CLUSTER", 1}},
        {{"STREAMK", 1}, {"BN", 128}, {"GROUP_M", 8}},
        {{"STREAMK", 1}, {"BK", 32}, {"STAGES", 8}},
        {{"STREAMK", 1}, {"BM", 256}, {"BN", 128}, {"CROWS", 128}},
        {{"STREAMK", 1}, {"LAG", 2}},  // staggered consumers on cut pieces (a piece may be shorter than LAG)
        {{"STREAMK", 1}, {"PAIR_N", 1}},
    };
    EXPECT_EQ(check_after_one_launch(variants), int(variants.size()) * 9);
}

// QUEUE: the last round's stacks (1) or all stacks (2) taken from a counter that the launch's
// last take sets back to zero; the checked launch finds it where the first left it. Paired,
// unpaired, 2 x 2 (three blocks handed each job), staggered, paired along N, and with the block
// timeline recorded (STAMPS).
TEST(GpuStreamK, QueuedStacksAreEachRunOnceAndLeaveTheCounterAtZero) {
    if (!rung18_runs_here()) GTEST_SKIP() << "rung 18 is sm_90a only";
    const std::vector<kl::ParamValues> variants = {
        {{"QUEUE", 1}},
        {{"QUEUE", 2}},
        {{"QUEUE", 2}, {"CLUSTER", 1}},
        {{"QUEUE", 1}, {"CLUSTER", 4}},
        {{"QUEUE", 2}, {"LAG", 2}, {"PAIR_N", 1}},
        {{"QUEUE", 1}, {"BK", 32}, {"STAGES", 8}, {"STAMPS", 3}},
    };
    EXPECT_EQ(check_after_one_launch(variants), int(variants.size()) * 9);
}

// NARROW: the stacks left after the whole rounds re-cut along N into at most one piece per cluster,
// each at most 232 columns wide and all of K, stored through whole sub-tiles and, for a width
// that is not a multiple of 32, 8-column slices from the registers. On an H100 (66 pairs, or 132
// unpaired blocks) the plan applies at 4096^3 (66 pieces of 224, 232 and 192 columns), 4096 x
// 4096 x 1000 (the same, K-tiles not a multiple of the ring), 1792^3 (49 stacks, all left over:
// 56 pieces of 224), 1000^3 (20 pieces of 200, the last rows past M), 640 x 1000 x 96 (the last
// stack's second tile past M), 2048 x 2312 x 200 (6 left-over stacks, one 8 columns wide: 12
// pieces of 136 and 128); it does not at 2048^3 (72 pieces for 66 pairs), 1793^3 (N % 8 != 0) or
// 4097^3 (the left-over stacks reach past the last group), which run whole. Paired and
// unpaired, staggered, and with 32-deep stages.
TEST(GpuStreamK, NarrowPiecesOfTheLastRoundCoverCOnceAtOddSizes) {
    if (!rung18_runs_here()) GTEST_SKIP() << "rung 18 is sm_90a only";
    const std::vector<kl::ParamValues> variants = {
        {{"NARROW", 1}, {"FULL_ROUNDS", 0}},
        {{"NARROW", 1}, {"FULL_ROUNDS", 0}, {"CLUSTER", 1}},
        {{"NARROW", 1}, {"FULL_ROUNDS", 0}, {"LAG", 2}},
        {{"NARROW", 1}, {"FULL_ROUNDS", 0}, {"BK", 32}, {"STAGES", 8}},
    };
    const Sizes sizes = {mnk(4096, 4096, 4096), mnk(4096, 4096, 1000), mnk(1792, 1792, 1792), mnk(1000, 1000, 1000),
                         mnk(640, 1000, 96),    mnk(2048, 2312, 200),  mnk(2048, 2048, 2048), mnk(1793, 1793, 1793),
                         mnk(4097, 4097, 4097), mnk(1, 1, 1),          mnk(127, 255, 63)};
    EXPECT_EQ(check_after_one_launch(variants, sizes), int(variants.size() * sizes.size()));
}

}  // namespace kl_test_gpu_streamk
