// GPU tests of matmul rung 20's tile and lab forms (CTest label `gpu`, in test_gpu; issue 42):
// three consumer warpgroups (BM = 192, a 192-row tile whose last tile row is partly past M),
// clusters of two sharing Bt by multicast (CLUSTER = 2: an odd count of tile rows leaves a pair's
// second tile past M), and two sets of tensor-core sums (OVERLAP = 1: the last K-tile's set picked
// by the K-tile count's parity). Sizes: one element and K % 16 != 0 (the byte-wise copies), odd
// sizes through TMA, K = 4097 (the promotion must keep the error inside the tolerance), one and
// three tile rows, and more tiles than SMs. Persistent and one-block-per-tile grids alike.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "gpu_matmul_support.h"
#include "lab_twin.h"
#include "model/device_profile.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_gpu_fp8 {

namespace {

using kl_test::gpu;
using kl_test::matmul;

std::map<std::string, int64_t> mnk(int64_t m, int64_t n, int64_t k) { return {{"M", m}, {"N", n}, {"K", k}}; }

TEST(GpuFp8, TileAndLabFormsCorrectAtOddSizes) {
    const kl::Ladder& L = matmul();
    const kl::Rung* fp8 = kl_test::with_switches(L, "wgmma_fp8");
    ASSERT_NE(fp8, nullptr);
    if (!kl::rung_arch_refusal(*fp8, gpu().device().cc()).empty()) GTEST_SKIP() << "wgmma_fp8 is sm_90a only";
    const std::vector<kl::ParamValues> variants = {
        {{"BM", 192}},    {{"BM", 192}, {"PERSISTENT", 0}},    {{"BM", 192}, {"STAGES", 2}},
        {{"CLUSTER", 2}}, {{"CLUSTER", 2}, {"PERSISTENT", 0}}, {{"CLUSTER", 2}, {"BM", 192}, {"GROUP_M", 4}},
        {{"OVERLAP", 1}}, {{"OVERLAP", 1}, {"CLUSTER", 2}},
    };
    const std::vector<std::map<std::string, int64_t>> sizes = {
        mnk(1, 1, 1),       mnk(127, 129, 77),     mnk(200, 144, 160),   mnk(385, 256, 1024),
        mnk(64, 128, 4097), mnk(1000, 1000, 4097), mnk(4096, 1024, 512),
    };
    kl::Runner runner(gpu(), std::nullopt);
    int passed = 0;
    for (const auto& params : variants) {
        for (const auto& s : sizes) {
            kl::RunOptions o;
            o.sizes = s;
            o.params = params;
            o.dtype = kl::DType::E4M3;
            o.time = false;
            std::string p;
            for (const auto& [k, v] : params) p += " " + k + "=" + std::to_string(v);
            SCOPED_TRACE("matmul/" + fp8->id + p + " M=" + std::to_string(s.at("M")) +
                         " N=" + std::to_string(s.at("N")) + " K=" + std::to_string(s.at("K")));
            kl::RunRecord rec = runner.run(L, *fp8, o);
            if (!rec.correctness) ADD_FAILURE() << rec.error;
            EXPECT_TRUE(rec.correctness && rec.correctness->passed)
                << (rec.correctness ? rec.correctness->summary() : "no check");
            if (rec.correctness && rec.correctness->passed) ++passed;
            ASSERT_FALSE(runner.context_lost()) << "a form faulted";
        }
    }
    EXPECT_EQ(passed, int(variants.size() * sizes.size()));
}

}  // namespace

}  // namespace kl_test_gpu_fp8
