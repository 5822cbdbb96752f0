// The PyTorch peers on a GPU (CTest label `gpu`; the GPU machine's python3 has torch): every peer
// rung correct against the ladder's reference at aligned and odd sizes, timed by the runner's own
// protocol (repetitions with a clock sample each, the cold-L2 flush), and the peer's outputs
// written only by the checking call. Without torch every test is skipped with the bridge's reason.
#include <gtest/gtest.h>

#include <cstdlib>

#include <map>
#include <stdexcept>

#include "base/paths.h"
#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "gpu/shared_hold.h"
#include "gpu/torch_bridge.h"
#include "model/manifest_load.h"

namespace {

kl::GpuContext& gpu() {
    static kl::GpuContext ctx;
    return ctx;
}

const std::vector<kl::Ladder>& ladders() {
    static std::vector<kl::Ladder> l = [] {
        std::vector<std::string> errors;
        auto v = kl::load_all_ladders(kl::kernels_dir(), &errors);
        for (const auto& e : errors) ADD_FAILURE() << e;
        return v;
    }();
    return l;
}

std::vector<std::map<std::string, int64_t>> sizes_for(const std::string& ladder) {
    if (ladder == "elementwise") return {{{"n", 1}}, {{"n", (1 << 20) + 3}}, {{"n", 1 << 24}}};
    if (ladder == "softmax" || ladder == "layernorm" || ladder == "transpose" || ladder == "layernorm_backward")
        return {{{"rows", 1}, {"cols", 1}}, {{"rows", 33}, {"cols", 1001}}, {{"rows", 1024}, {"cols", 4096}}};
    if (ladder == "attention")
        return {{{"B", 1}, {"H", 2}, {"N", 17}, {"d", 64}, {"causal", 1}},
                {{"B", 1}, {"H", 2}, {"N", 1000}, {"d", 128}, {"causal", 0}},
                {{"B", 2}, {"H", 3}, {"N", 1001}, {"d", 128}, {"causal", 1}},
                {{"B", 2}, {"H", 4}, {"N", 4096}, {"d", 64}, {"causal", 0}}};
    return {};
}

// The elementwise ladder's torch_gelu peer at n elements, timed by `runner`.
kl::RunRecord run_torch_gelu(kl::Runner& runner, int64_t n) {
    const kl::Ladder* elementwise = nullptr;
    for (const auto& l : ladders())
        if (l.id == "elementwise") elementwise = &l;
    if (!elementwise) throw std::runtime_error("no elementwise ladder");
    kl::RunOptions opt;
    opt.sizes = {{"n", n}};
    return runner.run(*elementwise, *elementwise->find_rung("torch_gelu"), opt);
}

bool is_peer(const kl::Rung& r) {
    for (const auto& l : r.launches)
        if (kl::is_torch_peer_name(l.builtin)) return true;
    return false;
}

#define SKIP_WITHOUT_TORCH() \
    if (!kl::torch_peer_availability().available) GTEST_SKIP() << kl::torch_peer_availability().reason;

TEST(GpuTorchPeers, EveryPeerIsCorrectAtAlignedAndOddSizes) {
    SKIP_WITHOUT_TORCH();
    kl::Runner runner(gpu(), std::nullopt);
    int runs = 0;
    for (const auto& ladder : ladders())
        for (const auto& rung : ladder.rungs) {
            if (!is_peer(rung)) continue;
            for (const auto& sizes : sizes_for(ladder.id))
                for (kl::DType dtype : rung.dtypes) {
                    kl::RunOptions opt;
                    opt.sizes = sizes;
                    opt.dtype = dtype;
                    opt.min_reps = 3;
                    opt.max_reps = 3;
                    const kl::RunRecord rec = runner.run(ladder, rung, opt);
                    std::string what = ladder.id + "/" + rung.id + " " + kl::to_string(dtype);
                    for (const auto& [axis, v] : sizes) what += " " + axis + "=" + std::to_string(v);
                    ASSERT_TRUE(rec.error.empty()) << what << ": " << rec.error;
                    ASSERT_TRUE(rec.correctness && rec.correctness->passed) << what;
                    ++runs;
                }
        }
    EXPECT_GE(runs, 52);
}

TEST(GpuTorchPeers, APeerIsTimedByTheRunnersOwnProtocol) {
    SKIP_WITHOUT_TORCH();
    kl::Runner runner(gpu(), std::nullopt);
    const kl::RunRecord rec = run_torch_gelu(runner, 1 << 26);
    ASSERT_TRUE(rec.error.empty()) << rec.error;
    ASSERT_TRUE(rec.timing.has_value());
    EXPECT_GE(rec.timing->reps, 10);  // the runner's repetitions, not torch's
    ASSERT_TRUE(rec.clock.has_value());
    EXPECT_EQ(rec.clock->sampled_reps, rec.timing->reps);  // a hold, with its clock sample, before each
    // 2^26 floats read and written in well under a second on any GPU the workbook supports, and
    // more than the 1 us an event pair alone shows: the kernel ran inside the events.
    EXPECT_GT(rec.timing->median_ms, 0.01);
    EXPECT_LT(rec.timing->median_ms, 1000.0);
}

// [stopwatch] A peer runs in the runner's process, so the span stopwatch records its kernels as it
// does a rung's: the same stopwatch on both sides (KL_STOPWATCH=span).
TEST(GpuTorchPeers, APeerIsTimedByTheSpanStopwatchToo) {
    SKIP_WITHOUT_TORCH();
    setenv("KL_STOPWATCH", "span", 1);
    struct Unset {
        ~Unset() { unsetenv("KL_STOPWATCH"); }
    } unset;
    kl::Runner runner(gpu(), std::nullopt);
    const kl::RunRecord rec = run_torch_gelu(runner, 1 << 24);
    ASSERT_TRUE(rec.error.empty()) << rec.error;
    ASSERT_EQ(rec.stopwatch, "span") << rec.stopwatch_note;
    ASSERT_TRUE(rec.timing.has_value());
    EXPECT_GT(rec.timing->median_ms, 0.0);
    EXPECT_LE(rec.timing->median_ms, rec.event_median_ms);
}

// [hold] A run with a peer beside a kernel holds both as long as the peer needs: the peer's own
// rule gives it more than the kernel's (Python's dispatch against a launch), and with the shared
// hold both record the same wait, at least what the peer's rule gave it.
TEST(GpuTorchPeers, ARunWithAPeerGivesEveryRungOneHold) {
    SKIP_WITHOUT_TORCH();
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder* elementwise = nullptr;
    for (const auto& l : ladders())
        if (l.id == "elementwise") elementwise = &l;
    ASSERT_NE(elementwise, nullptr);
    kl::RunOptions opt;
    opt.sizes = {{"n", 1 << 24}};
    const kl::ResolvedRun kernel = kl::resolve_run(*elementwise, *elementwise->find_rung("vector_add"), opt, 0);
    const kl::ResolvedRun peer = kl::resolve_run(*elementwise, *elementwise->find_rung("torch_add"), opt, 0);
    const kl::RunRecord kernel_alone = runner.run(kernel), peer_alone = runner.run(peer);
    ASSERT_TRUE(kernel_alone.clock && peer_alone.clock) << kernel_alone.error << peer_alone.error;
    EXPECT_GT(peer_alone.clock->hold_us, kernel_alone.clock->hold_us);

    const kl::SharedHold hold = kl::shared_hold(runner, {&kernel, &peer});
    EXPECT_EQ(hold.set_by, "torch_add");
    EXPECT_GE(hold.us, 100.0);
    EXPECT_EQ(kl::shared_hold(runner, {&kernel}).us, 0.0);  // one rung: its own rule
    kl::ResolvedRun kernel_shared = kernel, peer_shared = peer;
    kernel_shared.options.hold_floor_us = peer_shared.options.hold_floor_us = hold.us;
    const kl::RunRecord a = runner.run(kernel_shared), b = runner.run(peer_shared);
    ASSERT_TRUE(a.clock && b.clock) << a.error << b.error;
    // Both wait the shared hold (whole nanoseconds of it): the margin keeps the peer's own rule under it.
    EXPECT_NEAR(a.clock->hold_us, hold.us, 1e-3);
    EXPECT_DOUBLE_EQ(b.clock->hold_us, a.clock->hold_us);
}

}  // namespace
