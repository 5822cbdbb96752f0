// GPU tests of issue 15 (CTest label `gpu`): every kernel launch records its resources and our
// occupancy arithmetic agrees with cudaOccupancyMaxActiveBlocksPerMultiprocessor; a launch with
// too many registers per block is refused before it runs, naming registers; the committed
// profile of this GPU's architecture holds the limits the runtime reports.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/errors.h"
#include "base/paths.h"
#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "model/device_profile.h"
#include "model/manifest_load.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_gpu_occupancy {

namespace {

kl::GpuContext& gpu() {
    static kl::GpuContext ctx;
    return ctx;
}

std::map<std::string, int64_t> small_sizes(const std::string& ladder) {
    if (ladder == "elementwise") return {{"n", 1 << 20}};
    if (ladder == "transpose" || ladder == "softmax") return {{"rows", 1024}, {"cols", 1024}};
    if (ladder == "matmul") return {{"M", 512}, {"N", 512}, {"K", 512}};
    if (ladder == "attention") return {{"B", 1}, {"H", 2}, {"N", 256}, {"d", 64}, {"causal", 0}};
    return {};
}

}  // namespace

TEST(GpuOccupancy, EveryLaunchRecordsResourcesAndAgreesWithTheRuntime) {
    std::vector<std::string> errors;
    auto ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
    kl::Runner runner(gpu(), std::nullopt);
    int launches = 0;
    for (const auto& L : ladders)
        for (const auto& r : L.rungs) {
            if (!kl::rung_arch_refusal(r, gpu().device().cc()).empty()) continue;
            for (kl::DType dt : r.dtypes) {
                kl::RunOptions o;
                o.sizes = small_sizes(L.id);
                o.dtype = dt;
                o.time = false;
                kl::RunRecord rec = runner.run(L, r, o);
                // Kernel launches that apply to this problem (flash_bf16 has one per head dimension).
                const kl::Scope scope = kl::make_scope(rec.sizes, rec.params, dt, gpu().device().sm_count);
                size_t kernels = 0;
                for (const kl::LaunchSpec* l : kl::applicable_launches(r, scope)) kernels += !l->entry.empty();
                ASSERT_EQ(rec.resources.size(), kernels) << L.id << "/" << r.id;
                for (const auto& res : rec.resources) {
                    ++launches;
                    EXPECT_GT(res.kernel.regs_per_thread, 0) << res.entry;
                    ASSERT_TRUE(res.runtime_blocks_per_sm) << res.entry;
                    EXPECT_EQ(res.occupancy.blocks_per_sm, *res.runtime_blocks_per_sm)
                        << L.id << "/" << r.id << " " << res.entry << ": ours " << res.occupancy.blocks_per_sm
                        << " (limited by " << res.occupancy.limiter << "), the runtime's "
                        << *res.runtime_blocks_per_sm;
                }
            }
        }
    EXPECT_GT(launches, 30);
}

TEST(GpuOccupancy, TooManyRegistersPerBlockIsRefusedBeforeTheLaunch) {
    std::vector<std::string> errors;
    auto ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
    const kl::Ladder* L = nullptr;
    for (const auto& l : ladders)
        if (l.id == "elementwise") L = &l;
    ASSERT_NE(L, nullptr);
    kl::Runner runner(gpu(), std::nullopt);
    kl::RunOptions o;
    o.sizes = {{"n", 1 << 20}};
    o.params = {{"TPB", 1024}, {"VPT", 8}};
    try {
        runner.run(*L, *L->find_rung("gelu_fused_vec"), o);
        // Possible only on a compiler that fits the kernel in 64 registers; then it must have run.
        SUCCEED() << "TPB = 1024, VPT = 8 fits this GPU";
    } catch (const kl::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot launch: registers: 1024 threads x "), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("lower TPB to"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(runner.context_lost());
}

TEST(GpuOccupancy, TheShippedProfileOfThisArchitectureHoldsTheRuntimesLimits) {
    const kl::DeviceInfo& d = gpu().device();
    std::string found;
    for (const auto& e : std::filesystem::directory_iterator(kl::assets_dir() + "/devices"))
        if (e.path().filename().string().rfind(d.arch() + "_", 0) == 0) found = e.path().string();
    if (found.empty()) GTEST_SKIP() << "no profile for " << d.arch();
    kl::DeviceLimits p = kl::load_device_profile(found).limits, g = d.limits;
    EXPECT_EQ(p.max_threads_per_block, g.max_threads_per_block);
    EXPECT_EQ(p.max_threads_per_sm, g.max_threads_per_sm);
    EXPECT_EQ(p.max_blocks_per_sm, g.max_blocks_per_sm);
    EXPECT_EQ(p.regs_per_sm, g.regs_per_sm);
    EXPECT_EQ(p.regs_per_block, g.regs_per_block);
    EXPECT_EQ(p.smem_per_sm, g.smem_per_sm);
    EXPECT_EQ(p.smem_per_block, g.smem_per_block);
    EXPECT_EQ(p.smem_per_block_optin, g.smem_per_block_optin);
    EXPECT_EQ(p.reserved_smem_per_block, g.reserved_smem_per_block);
}

}  // namespace kl_test_gpu_occupancy
