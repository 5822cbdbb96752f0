// GPU tests of the fp32 top rungs (CTest label `gpu`, in test_gpu): rung 16 (a transposed copy
// of A), rung 19 (A^T and B padded, stream-K) and rung 21 (A read along K), each with the
// parameter combinations its code branches on, at issue 20's sizes plus sizes that reach each
// rung's edge paths.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "gpu_matmul_support.h"
#include "lab_twin.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_gpu_fp32 {

namespace {

using Sizes = std::map<std::string, int64_t>;

using kl_test::gpu;
using kl_test::matmul;

Sizes mnk(int64_t m, int64_t n, int64_t k) { return {{"M", m}, {"N", n}, {"K", k}}; }

// Issue 20's sizes: 1^3, odd, 1000^3, 4097^3 (past every tile), M, N, K all different, and
// 2047 x 2049 x 1023 (rows not 16-byte aligned); then each test's own.
std::vector<Sizes> sizes_with(const std::vector<Sizes>& more) {
    std::vector<Sizes> s = {mnk(1, 1, 1),          mnk(127, 255, 63),    mnk(1000, 1000, 1000),
                            mnk(4097, 4097, 4097), mnk(1024, 2048, 512), mnk(2047, 2049, 1023)};
    s.insert(s.end(), more.begin(), more.end());
    return s;
}

// Runs `rung` with each of `variants` at each of `sizes` (checked, not timed); every run must
// pass and none may fault.
void expect_correct(const std::string& rung, const std::vector<kl::ParamValues>& variants,
                    const std::vector<Sizes>& sizes) {
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Rung* r = kl_test::with_switches(matmul(), rung);  // lab switches set: the lab twin
    ASSERT_NE(r, nullptr) << rung;
    int checked = 0;
    for (const auto& params : variants) {
        for (const auto& s : sizes) {
            kl::RunOptions o;
            o.sizes = s;
            o.params = params;
            o.time = false;
            std::string p, d;
            for (const auto& [k, v] : params) p += " " + k + "=" + std::to_string(v);
            for (const auto& [k, v] : s) d += " " + k + "=" + std::to_string(v);
            SCOPED_TRACE("matmul/" + rung + p + d);
            kl::RunRecord rec = runner.run(matmul(), *r, o);
            ASSERT_TRUE(rec.correctness.has_value());
            EXPECT_TRUE(rec.correctness->passed) << rec.correctness->summary();
            ASSERT_FALSE(runner.context_lost()) << "a rung faulted";
            ++checked;
        }
    }
    EXPECT_EQ(checked, int(variants.size() * sizes.size()));
}

kl::ParamValues with(kl::ParamValues p, const kl::ParamValues& more) {
    for (const auto& [k, v] : more) p[k] = v;
    return p;
}

}  // namespace

// Rung 16 copies tiles of a transposed copy of A: every STAGES, other tile shapes, and sizes whose
// M is not a multiple of 4 (At's rows unaligned: the guarded one-float copies) or of the tile.
TEST(GpuLadders, TransposedARungCorrectAcrossStagesTilesAndOddSizes) {
    expect_correct("double_buffer_at",
                   {
                       {},
                       {{"STAGES", 2}},
                       {{"STAGES", 4}, {"GROUP", 1}},
                       {{"BK", 16}, {"STAGES", 2}},
                       {{"BM", 256}, {"WM", 128}, {"WN", 32}, {"TN", 4}},
                       {{"BM", 64}, {"BN", 64}, {"WM", 32}, {"WN", 32}, {"TM", 4}, {"TN", 4}},
                   },
                   sizes_with({mnk(130, 260, 70)}));  // M, N multiples of 4 but not of the tile
}

// Rung 19 pads At and B to whole tiles in its first launch and cuts tiles by stream-K: every
// schedule, both K depths, the FMA orders, small and tall tiles, at sizes with one piece, two
// pieces and many pieces per tile, aligned and not.
TEST(GpuLadders, TransposedStreamKRungCorrectAcrossSchedulesDepthsAndOddSizes) {
    const kl::ParamValues wide = {{"BN", 128}, {"WM", 64}, {"WN", 64}};  // 128 x 128 tiles, two blocks per SM
    expect_correct("double_buffer_at_streamk",
                   {
                       {},  // 128 x 64 tiles, four blocks per SM, one block per tile
                       with(wide, {{"STREAMK", 2}}),
                       with(wide, {{"STREAMK", 0}}),
                       with(wide, {{"STREAMK", 1}}),
                       with(wide, {{"BK", 16}, {"STREAMK", 2}}),
                       with(wide, {{"BK", 16}, {"STAGES", 4}, {"STREAMK", 0}}),
                       with(wide, {{"FMA_ORDER", 0}, {"STREAMK", 2}}),
                       {{"BM", 64}, {"BN", 64}, {"WM", 32}, {"WN", 32}, {"TM", 4}, {"TN", 4}, {"STREAMK", 2}},
                       {{"BM", 256}, {"BN", 128}, {"WM", 128}, {"WN", 32}, {"STREAMK", 2}},
                   },
                   sizes_with({
                       mnk(2049, 2049, 2049), mnk(257, 513, 1023),  // few tiles, many K-tiles: every tile cut
                       mnk(64, 64, 8192),                           // one tile cut into many pieces
                       mnk(130, 260, 70),                           // multiples of 4, not of the tile
                   }));
}

// Rung 21 copies A's tiles as they lie (16 bytes = four k of a row) and reads them along K: its
// defaults, fragments loaded ahead or in place, deeper K-tiles, two and four stages, tall, wide and small tiles, at
// sizes where K is not a multiple of 4 (the one-float copies), not of BK (the zero-filled tail), or where M and N are
// not whole tiles.
TEST(GpuLadders, KMajorARungCorrectAcrossDepthsTilesAndOddSizes) {
    expect_correct("double_buffer_a_kmajor",
                   {
                       {},
                       {{"PREFETCH", 1}},
                       {{"BK", 16}, {"STAGES", 2}},
                       {{"BK", 16}, {"STAGES", 2}, {"PREFETCH", 1}},
                       {{"BK", 32}, {"STAGES", 2}, {"BM", 64}, {"BN", 64}, {"WM", 32}, {"WN", 32}},
                       {{"STAGES", 4}, {"GROUP", 1}},
                       {{"BM", 256}, {"WM", 128}, {"WN", 32}},
                       {{"BN", 256}, {"WM", 32}, {"WN", 128}},
                       {{"BM", 64}, {"BN", 64}, {"WM", 32}, {"WN", 32}},
                   },
                   sizes_with({
                       mnk(130, 260, 70),  // K a multiple of 2, not of 4: A's one-float copies
                       mnk(136, 144, 12),  // K a multiple of 4, not of BK: the zero-filled tail
                   }));
}

}  // namespace kl_test_gpu_fp32
