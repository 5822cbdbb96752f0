// Launch geometry before compiling (model/launch_geometry.h): grid, block and dynamic shared
// memory of the shipped manifests and of small test manifests, checked against device profiles
// (assets/devices/*.json). No GPU, no compiler.
#include <gtest/gtest.h>

#include "base/paths.h"
#include "model/device_profile.h"
#include "model/launch_geometry.h"
#include "model/manifest_load.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_launch_geometry {

namespace {

kl::DeviceLimits limits_of(const std::string& file) {
    return kl::load_device_profile(kl::assets_dir() + "/devices/" + file).limits;
}

const kl::Ladder& ladder(const std::string& id) {
    static std::vector<kl::Ladder> all = [] {
        std::vector<std::string> errors;
        return kl::load_all_ladders(kl::kernels_dir(), &errors);
    }();
    for (const auto& L : all)
        if (L.id == id) return L;
    throw std::runtime_error("no ladder " + id);
}

// The scope of a shipped rung: the ladder's sizes with `sizes` over them, the rung's defaults
// with `params` over them, its first dtype.
kl::Scope scope_of(const kl::Ladder& L, const kl::Rung& r, const std::map<std::string, int64_t>& sizes,
                   const kl::ParamValues& params = {}) {
    std::map<std::string, int64_t> s(L.default_sizes.begin(), L.default_sizes.end());
    for (const auto& [k, v] : sizes) s[k] = v;
    return kl::make_scope(s, kl::resolve_params(r, params), r.dtypes.front(), 132);
}

// The one line the engine refuses a shipped rung with on `profile` ("" when it launches).
std::string refusal(const std::string& ladder_id, const std::string& rung_id,
                    const std::map<std::string, int64_t>& sizes, const kl::ParamValues& params = {},
                    const std::string& profile = "sm_90_h100.json") {
    const kl::Ladder& L = ladder(ladder_id);
    const kl::Rung& r = *L.find_rung(rung_id);
    return input_error_of(
        [&] { kl::check_launch_geometry(L.id + "/" + r.id, r, scope_of(L, r, sizes, params), limits_of(profile)); });
}

// A one-rung manifest whose launch has this block (and grid) and 0 dynamic shared memory.
kl::Ladder tiny_with_launch(const TempTree& t, const std::string& grid, const std::string& block) {
    t.write("tiny/01_one.cu", "extern \"C\" __global__ void one() {}\n");
    t.write("tiny/ladder.toml", kTinyLadderHead + "  [[rung.launch]]\n  entry = \"one\"\n  grid = " + grid +
                                    "\n  block = " + block + "\n  args = []\n");
    return kl::load_ladder(t.path("tiny/ladder.toml"));
}

}  // namespace

TEST(LaunchGeometry, EveryShippedRungLaunchesAtItsDefaultsOnTheH100) {
    const kl::DeviceLimits h100 = limits_of("sm_90_h100.json");
    int launches = 0;
    for (const char* id : {"elementwise", "transpose", "softmax", "matmul", "attention"}) {
        const kl::Ladder& L = ladder(id);
        for (const auto& r : L.rungs) {
            for (int64_t d : {64, 128}) {
                std::map<std::string, int64_t> sizes;
                if (L.id == "attention") sizes["d"] = d;
                const kl::Scope s = scope_of(L, r, sizes);
                EXPECT_EQ(kl::launch_geometry_refusal(r, s, h100), "") << L.id << "/" << r.id;
                launches += static_cast<int>(kl::evaluate_launch_geometry(r, s).size());
            }
        }
    }
    EXPECT_GT(launches, 40);
}

// The grid-y limit the manifests used to restate as constraints ("B * H <= 65535"): the engine
// computes it from the launch and names the rung, the values and the limit.
TEST(LaunchGeometry, TooManyHeadsForTheGridIsRefusedNamingRungValuesAndLimit) {
    EXPECT_EQ(refusal("attention", "flash_bf16", {{"B", 300}, {"H", 300}}),
              "attention/flash_bf16 (B=300, H=300): launch attention_flash_bf16_d64: grid y = B * H = 90000 > 65535, "
              "the device's limit");
    EXPECT_EQ(refusal("attention", "flash_fp32", {{"B", 256}, {"H", 256}}),
              "attention/flash_fp32 (B=256, H=256): grid y = B * H = 65536 > 65535, the device's limit");
    EXPECT_EQ(refusal("attention", "flash_fp32", {{"B", 255}, {"H", 257}}), "");  // 65535: the largest that fits
}

TEST(LaunchGeometry, TallMatricesAreRefusedNamingTheTileParameter) {
    // cdiv(M, BS) = 65536 blocks along y at BS = 16, M = 2^20; BS = 32 halves it.
    EXPECT_EQ(refusal("matmul", "smem_tiles", {{"M", 1 << 20}}, {{"BS", 16}}),
              "matmul/smem_tiles (BS=16, M=1048576): grid y = cdiv(M, BS) = 65536 > 65535, the device's limit");
    EXPECT_EQ(refusal("matmul", "smem_tiles", {{"M", 1 << 20}}, {{"BS", 32}}), "");
    EXPECT_NE(refusal("matmul", "double_buffer", {{"M", 1 << 24}}).find("grid y = cdiv(M, BM) = 131072 > 65535"),
              std::string::npos);
    EXPECT_NE(refusal("transpose", "transpose_vec", {{"rows", 1 << 22}}).find("grid y = cdiv(rows, 32) = 131072"),
              std::string::npos);
}

TEST(LaunchGeometry, GridStrideLaunchesClampTheirGridAndAreNeverRefused) {
    // softmax and the copy rungs cap grid y at 65535 and loop: any number of rows launches.
    EXPECT_EQ(refusal("softmax", "naive_multi", {{"rows", 1 << 24}, {"cols", 4}}), "");
    EXPECT_EQ(refusal("transpose", "copy_row_walk", {{"rows", 1 << 24}, {"cols", 4}}), "");
}

TEST(LaunchGeometry, DynamicSharedMemoryIsCheckedAgainstTheProfilesOptInLimit) {
    // mma_bf16 at STAGES = 6, BK = 64: 6 x (128 x 64 + 64 x 128) x 2 = 196608 bytes. The H100 lets a
    // block opt in to 232448; the RTX 3090 to 101376.
    const kl::ParamValues deep = {{"STAGES", 6}, {"BK", 64}};
    EXPECT_EQ(refusal("matmul", "mma_bf16_lab", {}, deep, "sm_90_h100.json"), "");
    EXPECT_EQ(
        refusal("matmul", "mma_bf16_lab", {}, deep, "sm_86_rtx3090.json"),
        "matmul/mma_bf16_lab (BK=64, BM=128, BN=128, STAGES=6): dynamic shared memory = STAGES * (BM * BK + BK * BN) "
        "* 2 = 196608 bytes > 101376 bytes, the most a block may opt in to on the device");
}

TEST(LaunchGeometry, UnknownSharedMemoryLimitIsNotChecked) {
    // A default DeviceLimits (no GPU, no profile) knows the grid and block limits of
    // every CUDA GPU but not the shared memory: that is left to the runner.
    const kl::Ladder& L = ladder("matmul");
    const kl::Rung& r = *L.find_rung("mma_bf16_lab");  // BK is its lab switch
    EXPECT_EQ(kl::launch_geometry_refusal(r, scope_of(L, r, {}, {{"STAGES", 6}, {"BK", 64}}), kl::DeviceLimits{}), "");
}

TEST(LaunchGeometry, BlockDimensionsAndThreadsAreChecked) {
    TempTree t;
    auto why = [&](const std::string& grid, const std::string& block) {
        kl::Ladder L = tiny_with_launch(t, grid, block);
        const kl::Rung& r = L.rungs.at(0);
        return kl::launch_geometry_refusal(r, kl::make_scope({{"n", 1000}}, {}, kl::DType::F32, 132),
                                           limits_of("sm_75_t4.json"));
    };
    EXPECT_EQ(why("[\"1\"]", "[\"32\", \"32\"]"), "");
    EXPECT_EQ(why("[\"1\"]", "[\"1\", \"1\", \"65\"]"), "block z = 65 > 64, the device's limit");
    EXPECT_EQ(why("[\"1\"]", "[\"2048\"]"), "block x = 2048 > 1024, the device's limit");
    EXPECT_EQ(why("[\"1\"]", "[\"64\", \"32\"]"),
              "block = 64 x 32 = 2048 threads > 1024, the device's limit per block");
    EXPECT_EQ(why("[\"n - 1000\"]", "[\"32\"]"), "grid x = n - 1000 = 0: a launch needs at least 1");
    EXPECT_EQ(why("[\"1\", \"1\", \"n * 66\"]", "[\"32\"]"), "grid z = n * 66 = 66000 > 65535, the device's limit");
}

TEST(LaunchGeometry, OnlyTheLaunchThatAppliesIsEvaluated) {
    const kl::Ladder& L = ladder("attention");
    const kl::Rung& r = *L.find_rung("flash_bf16");
    for (int64_t d : {64, 128}) {
        auto g = kl::evaluate_launch_geometry(r, scope_of(L, r, {{"d", d}, {"N", 4096}, {"B", 4}, {"H", 16}}));
        ASSERT_EQ(g.size(), 1u);
        EXPECT_EQ(g[0].spec->entry, "attention_flash_bf16_d" + std::to_string(d));
        EXPECT_EQ(g[0].grid[0], 32);  // cdiv(4096, 128) query blocks
        EXPECT_EQ(g[0].grid[1], 64);  // B * H heads
        EXPECT_EQ(g[0].threads(), 128);
        EXPECT_EQ(g[0].dynamic_smem, (128 + 4 * 64) * (d + 8) * 2);
    }
}

}  // namespace kl_test_launch_geometry
