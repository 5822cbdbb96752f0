// Results schema v2: per-launch resources and the device's limits survive a round trip; the
// version 1 files committed under assets/recorded/ still read (with no resources).
#include <gtest/gtest.h>

#include <filesystem>

#include "base/errors.h"
#include "base/paths.h"
#include "model/device_profile.h"
#include "model/results.h"
#include "model/results_json.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_results_v2 {

namespace {
kl::ResultsFile with_resources() {
    kl::ResultsFile f;
    f.created = "2026-11-23T00:00:00Z";
    f.device = kl::load_device_profile(kl::assets_dir() + "/devices/sm_86_rtx3090.json");
    kl::RunRecord r;
    r.ladder = "matmul";
    r.rung = "mma_bf16";
    r.dtype = kl::DType::BF16;
    kl::LaunchResources l;
    l.entry = "matmul_mma_bf16";
    l.grid[0] = 32, l.grid[1] = 32;
    l.block[0] = 128;
    l.dynamic_smem_bytes = 65536;
    l.kernel.regs_per_thread = 96;
    l.kernel.local_bytes = 16;
    l.kernel.max_threads_per_block = 640;
    l.occupancy = kl::compute_occupancy(f.device->limits, 96, 65536, 128);
    l.runtime_blocks_per_sm = 1;
    r.resources.push_back(l);
    f.runs.push_back(r);
    return f;
}
}  // namespace

TEST(ResultsV2, ResourcesAndLimitsRoundTrip) {
    nlohmann::json j = kl::to_json(with_resources());
    EXPECT_EQ(j["version"], kl::kResultsVersion);
    EXPECT_EQ(j["device"]["limits"]["max_threads_per_sm"], 1536);
    const auto& res = j["runs"][0]["resources"][0];
    EXPECT_EQ(res["regs_per_thread"], 96);
    EXPECT_EQ(res["occupancy"]["limiter"], "shared memory");
    EXPECT_TRUE(res["occupancy"]["blocks_by"]["shared_memory"] == 1);
    kl::ResultsFile b = kl::results_from_json(j, "test");
    ASSERT_TRUE(b.device && b.device->has_limits);
    EXPECT_EQ(b.device->limits.smem_per_block_optin, 101376);
    EXPECT_EQ(b.device->arch(), "sm_86");
    ASSERT_EQ(b.runs[0].resources.size(), 1u);
    const kl::LaunchResources& l = b.runs[0].resources[0];
    EXPECT_EQ(l.kernel.local_bytes, 16);
    EXPECT_EQ(l.occupancy.active_warps, 4);
    EXPECT_EQ(l.runtime_blocks_per_sm, 1);
    EXPECT_EQ(b.runs[0].main_launch(), &l);
    EXPECT_EQ(kl::to_json(b), j);
}

// The occupancy view asks for the launch of one kernel (the entry whose `when` holds at the
// shown sizes): a run that launched another entry must not answer for it.
TEST(ResultsV2, LaunchNamedFindsOnlyThatEntry) {
    kl::RunRecord r = with_resources().runs[0];
    kl::LaunchResources other = r.resources[0];
    other.entry = "attention_flash_bf16_d128";
    other.kernel.regs_per_thread = 255;
    r.resources.push_back(other);
    ASSERT_NE(r.launch_named("attention_flash_bf16_d128"), nullptr);
    EXPECT_EQ(r.launch_named("attention_flash_bf16_d128")->kernel.regs_per_thread, 255);
    EXPECT_EQ(r.launch_named("matmul_mma_bf16")->kernel.regs_per_thread, 96);
    EXPECT_EQ(r.launch_named("attention_flash_bf16_d64"), nullptr);
    EXPECT_EQ(kl::RunRecord().launch_named("matmul_mma_bf16"), nullptr);
}

TEST(ResultsV2, BadResourcesNameTheField) {
    nlohmann::json j = kl::to_json(with_resources());
    j["runs"][0]["resources"][0]["occupancy"]["limiter"] = "luck";
    try {
        kl::results_from_json(j, "r.json");
        FAIL() << "accepted a bad limiter";
    } catch (const kl::InputError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("r.json: runs[0].resources[0].occupancy.limiter: 'luck'", 0), 0u)
            << e.what();
    }
    j = kl::to_json(with_resources());
    j["runs"][0]["resources"][0]["regs_per_thread"] = "many";
    EXPECT_THROW(kl::results_from_json(j, "r.json"), kl::InputError);
    j = kl::to_json(with_resources());
    j["device"]["limits"]["regs_per_sm"] = -1;
    EXPECT_THROW(kl::results_from_json(j, "r.json"), kl::InputError);
}

TEST(ResultsV2, CommittedVersion1RecordingsStillRead) {
    int v1 = 0;
    for (const auto& e : std::filesystem::directory_iterator(kl::assets_dir() + "/recorded")) {
        if (e.path().extension() != ".json") continue;
        kl::ResultsFile f = kl::load_results(e.path().string());
        if (f.version != 1) continue;
        ++v1;
        EXPECT_FALSE(f.device && f.device->has_limits) << e.path();
        for (const auto& r : f.runs) EXPECT_TRUE(r.resources.empty()) << e.path();
    }
    EXPECT_GE(v1, 5);  // the H100 recordings of 2026-11-22
}

}  // namespace kl_test_results_v2
