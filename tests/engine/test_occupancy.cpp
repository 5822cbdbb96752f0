// Device profiles, the occupancy calculator, the launch check and architecture gating, all on
// device profiles (assets/devices/*.json): no GPU needed. Expected numbers are worked out by
// hand from the CUDA occupancy calculator's arithmetic (cuda_occupancy.h), written in comments.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/errors.h"
#include "base/paths.h"
#include "model/device_profile.h"
#include "model/launch_geometry.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "model/occupancy.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_occupancy {

namespace {

kl::DeviceInfo profile(const std::string& file) {
    return kl::load_device_profile(kl::assets_dir() + "/devices/" + file);
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

// The block size and dynamic shared memory a rung's first launch asks for at these parameters,
// evaluated from the shipped manifest (so the test follows the manifest's geometry).
struct Geometry {
    int threads = 1;
    int64_t dynamic_smem = 0;
};
Geometry geometry(const std::string& ladder_id, const std::string& rung_id, const kl::ParamValues& params) {
    const kl::Ladder& L = ladder(ladder_id);
    const kl::Rung& r = *L.find_rung(rung_id);
    std::map<std::string, int64_t> sizes(L.default_sizes.begin(), L.default_sizes.end());
    kl::Scope s = kl::make_scope(sizes, kl::resolve_params(r, params), r.dtypes.front(), 132);
    Geometry g;
    for (const auto& b : r.launches.front().block) g.threads *= static_cast<int>(b.eval(s));
    g.dynamic_smem = r.launches.front().smem.eval(s);
    return g;
}

}  // namespace

// [SECTION] Profiles

TEST(DeviceProfile, EveryShippedProfileLoadsAndNamesASourceForEveryNumber) {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(kl::assets_dir() + "/devices")) {
        if (e.path().extension() != ".json") continue;
        ++n;
        kl::DeviceInfo d = kl::load_device_profile(e.path().string());
        EXPECT_TRUE(d.has_limits);
        EXPECT_GT(d.sm_count, 0);
        std::ifstream in(e.path());
        nlohmann::json j = nlohmann::json::parse(in);
        const auto& src = j.at("sources");
        for (const char* k : {"sm_count", "l2_bytes"}) EXPECT_TRUE(src.contains(k)) << e.path() << ": " << k;
        for (auto it = j.at("limits").begin(); it != j.at("limits").end(); ++it)
            EXPECT_TRUE(src.contains("limits." + it.key()) && src["limits." + it.key()].is_string())
                << e.path() << ": limits." << it.key() << " has no source";
    }
    EXPECT_GE(n, 4);  // sm_75, sm_86, sm_89, sm_90 at least
}

TEST(DeviceProfile, ReadsTheNumbersOfTheFile) {
    kl::DeviceInfo d = profile("sm_86_rtx3090.json");
    EXPECT_EQ(d.arch(), "sm_86");
    EXPECT_EQ(d.sm_count, 82);
    EXPECT_EQ(d.limits.max_threads_per_sm, 1536);
    EXPECT_EQ(d.limits.smem_per_block_optin, 101376);
    EXPECT_EQ(d.limits.reserved_smem_per_block, 1024);
    EXPECT_EQ(profile("sm_75_t4.json").limits.smem_alloc_unit, 256);
}

TEST(DeviceProfile, BadFilesAreRefusedNamingTheField) {
    const std::string good = R"({"schema": "kernel-ladder/device-profile", "name": "X", "arch": "sm_86", "sm_count": 10,
      "l2_bytes": 1, "limits": {"max_threads_per_block": 1024, "max_threads_per_sm": 1536, "max_blocks_per_sm": 16,
      "regs_per_sm": 65536, "regs_per_block": 65536, "max_regs_per_thread": 255, "smem_per_sm": 102400,
      "smem_per_block": 49152, "smem_per_block_optin": 101376}})";
    EXPECT_NO_THROW(kl::device_profile_from_json_text(good, "p.json"));
    auto refused = [&](const std::string& from, const std::string& to, const std::string& msg) {
        std::string text = good;
        text.replace(text.find(from), from.size(), to);
        try {
            kl::device_profile_from_json_text(text, "p.json");
            ADD_FAILURE() << "accepted: " << to;
        } catch (const kl::InputError& e) { EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << e.what(); }
    };
    refused("\"regs_per_sm\": 65536,", "", "p.json: limits.regs_per_sm: missing");
    refused("\"sm_count\": 10", "\"sm_count\": \"ten\"", "p.json: sm_count: expected a non-negative integer");
    refused("\"arch\": \"sm_86\"", "\"arch\": \"sm_90a\"", "p.json: arch:");
    refused("\"smem_per_block_optin\": 101376", "\"smem_per_block_optin\": 999999", "smem_per_block_optin");
    refused("\"max_threads_per_sm\": 1536", "\"max_threads_per_sm\": 1500", "multiple of 32");
    try {
        kl::device_profile_from_json_text("[1]", "p.json");
        ADD_FAILURE() << "accepted a list";
    } catch (const kl::InputError& e) {
        EXPECT_EQ(std::string(e.what()), "p.json: (top level): expected a JSON object");
    }
}

// [SECTION] Occupancy: three rungs on three profiles
// Formula (cuda_occupancy.h): warps = ceil(threads / 32);
//   by threads   = floor(max warps per SM / warps)
//   by blocks    = max blocks per SM
//   by registers = floor(floor((regs per SM / 4) / regs per warp) * 4 / warps),
//                  regs per warp = ceil(regs per thread * 32 / 256) * 256
//   by shared    = floor(smem per SM / ceil((static + dynamic + reserved) / unit) * unit)
// Registers per thread are inputs here (a GPU reports them; these are round numbers).

TEST(Occupancy, SmemTilesBS32IsLimitedByThreads) {
    // matmul/smem_tiles BS = 32: 32 x 32 = 1024 threads (32 warps), two 32 x 32 float tiles = 8192 B static, 30 regs.
    Geometry g = geometry("matmul", "smem_tiles", {{"BS", 32}});
    ASSERT_EQ(g.threads, 1024);
    // T4: threads 32/32 = 1; regs/warp 960 -> 1024, 16384/1024 = 16 per sub -> 64/32 = 2;
    //     smem 8192 (unit 256, no reserve) -> 65536/8192 = 8; blocks 16. -> 1 block, 32/32 warps.
    kl::Occupancy t4 = kl::compute_occupancy(profile("sm_75_t4.json").limits, 30, 8192, g.threads);
    EXPECT_EQ(t4.by_threads, 1);
    EXPECT_EQ(t4.by_registers, 2);
    EXPECT_EQ(t4.by_shared_memory, 8);
    EXPECT_EQ(t4.blocks_per_sm, 1);
    EXPECT_EQ(t4.active_warps, 32);
    EXPECT_EQ(t4.max_warps, 32);
    EXPECT_EQ(t4.limiter, "threads");
    // RTX 3090: threads 48/32 = 1; regs 2; smem 8192 + 1024 = 9216 -> 102400/9216 = 11 -> 1 block, 32/48 warps.
    kl::Occupancy a = kl::compute_occupancy(profile("sm_86_rtx3090.json").limits, 30, 8192, g.threads);
    EXPECT_EQ(a.by_shared_memory, 11);
    EXPECT_EQ(a.blocks_per_sm, 1);
    EXPECT_EQ(a.active_warps, 32);
    EXPECT_EQ(a.max_warps, 48);
    EXPECT_EQ(a.limiter, "threads");
    // L4: the same arithmetic as the 3090 (48 warps, 100 KB): 1 block, 32/48 warps.
    kl::Occupancy l4 = kl::compute_occupancy(profile("sm_89_l4.json").limits, 30, 8192, g.threads);
    EXPECT_EQ(l4.blocks_per_sm, 1);
    EXPECT_NEAR(l4.fraction(), 32.0 / 48.0, 1e-9);
}

TEST(Occupancy, Reg2dWith8x8PerThreadIsLimitedByRegisters) {
    // matmul/reg_2d BM = BN = 128, BK = 8, TM = TN = 8: (128/8) x (128/8) = 256 threads (8 warps),
    // A and B tiles 2 x 8 x 128 floats = 8192 B static, 128 registers per thread.
    Geometry g = geometry("matmul", "reg_2d", {{"TM", 8}, {"TN", 8}});
    ASSERT_EQ(g.threads, 256);
    // T4: threads 32/8 = 4; regs/warp 128 x 32 = 4096, 16384/4096 = 4 per sub -> 16/8 = 2; smem 65536/8192 = 8.
    //     -> 2 blocks (registers), 16/32 warps = 50%.
    kl::Occupancy t4 = kl::compute_occupancy(profile("sm_75_t4.json").limits, 128, 8192, g.threads);
    EXPECT_EQ(t4.by_threads, 4);
    EXPECT_EQ(t4.by_registers, 2);
    EXPECT_EQ(t4.blocks_per_sm, 2);
    EXPECT_EQ(t4.active_warps, 16);
    EXPECT_EQ(t4.limiter, "registers");
    // RTX 3090: threads 48/8 = 6; regs 2; smem 102400/9216 = 11 -> 2 blocks (registers), 16/48 warps.
    kl::Occupancy a = kl::compute_occupancy(profile("sm_86_rtx3090.json").limits, 128, 8192, g.threads);
    EXPECT_EQ(a.by_threads, 6);
    EXPECT_EQ(a.blocks_per_sm, 2);
    EXPECT_EQ(a.active_warps, 16);
    EXPECT_EQ(a.max_warps, 48);
    EXPECT_EQ(a.limiter, "registers");
    // H100: threads 64/8 = 8; regs 2; smem 233472/9216 = 25; blocks 32 -> 2 blocks (registers), 16/64 = 25%.
    kl::Occupancy h = kl::compute_occupancy(profile("sm_90_h100.json").limits, 128, 8192, g.threads);
    EXPECT_EQ(h.by_shared_memory, 25);
    EXPECT_EQ(h.blocks_per_sm, 2);
    EXPECT_DOUBLE_EQ(h.fraction(), 0.25);
    EXPECT_EQ(h.limiter, "registers");
}

TEST(Occupancy, MmaBf16IsLimitedBySharedMemory) {
    // matmul/mma_bf16 defaults: 32 x 128 x 128 / (64 x 64) = 128 threads (4 warps); dynamic
    // STAGES x (BM x BK + BK x BN) x 2 B = 4 x (4096 + 4096) x 2 = 65536 B; 96 registers per thread.
    Geometry g = geometry("matmul", "mma_bf16", {});
    ASSERT_EQ(g.threads, 128);
    ASSERT_EQ(g.dynamic_smem, 65536);
    // RTX 3090: threads 48/4 = 12; regs/warp 3072, 16384/3072 = 5 per sub -> 20/4 = 5;
    //           smem 65536 + 1024 = 66560 -> 102400/66560 = 1 -> 1 block (shared memory), 4/48 warps.
    kl::Occupancy a = kl::compute_occupancy(profile("sm_86_rtx3090.json").limits, 96, g.dynamic_smem, g.threads);
    EXPECT_EQ(a.by_threads, 12);
    EXPECT_EQ(a.by_registers, 5);
    EXPECT_EQ(a.smem_per_block, 66560);
    EXPECT_EQ(a.by_shared_memory, 1);
    EXPECT_EQ(a.active_warps, 4);
    EXPECT_EQ(a.limiter, "shared memory");
    // L4: the same 100 KB per SM -> 1 block, 4/48 warps.
    kl::Occupancy l4 = kl::compute_occupancy(profile("sm_89_l4.json").limits, 96, g.dynamic_smem, g.threads);
    EXPECT_EQ(l4.blocks_per_sm, 1);
    EXPECT_EQ(l4.limiter, "shared memory");
    // H100: threads 64/4 = 16; regs 5; smem 233472/66560 = 3 -> 3 blocks (shared memory), 12/64 warps.
    kl::Occupancy h = kl::compute_occupancy(profile("sm_90_h100.json").limits, 96, g.dynamic_smem, g.threads);
    EXPECT_EQ(h.by_registers, 5);
    EXPECT_EQ(h.by_shared_memory, 3);
    EXPECT_EQ(h.active_warps, 12);
    EXPECT_EQ(h.limiter, "shared memory");
}

// [SECTION] Launch limits

TEST(LaunchCheck, TooManyRegistersForTheBlockIsRefusedNamingRegisters) {
    // elementwise/gelu_fused_vec TPB = 1024, VPT = 8 at 72 registers per thread: 72 x 32 = 2304
    // per warp (a multiple of 256), x 32 warps = 73728 > 65536. The most that fits: 2304 x 28 =
    // 64512 -> 28 warps = 896 threads.
    Geometry g = geometry("elementwise", "gelu_fused_vec", {{"TPB", 1024}, {"VPT", 8}});
    ASSERT_EQ(g.threads, 1024);
    kl::DeviceInfo h100 = profile("sm_90_h100.json");
    kl::KernelResources k;
    k.regs_per_thread = 72;
    std::string why = kl::launch_refusal(h100, k, g.threads, 0, "lower TPB", "");
    EXPECT_EQ(why.rfind("registers: 1024 threads x 72 registers per thread need 73728", 0), 0u) << why;
    EXPECT_NE(why.find("65536"), std::string::npos) << why;
    EXPECT_NE(why.find("lower TPB to 896 threads or fewer"), std::string::npos) << why;
    EXPECT_EQ(kl::max_threads_for_registers(h100.limits, 72), 896);
    EXPECT_EQ(kl::compute_occupancy(h100.limits, 72, 0, 1024).blocks_per_sm, 0);
    // The same kernel at TPB = 512 fits.
    EXPECT_EQ(kl::launch_refusal(h100, k, 512, 0, "lower TPB", ""), "");
}

TEST(LaunchCheck, SharedMemoryBeyondTheOptInLimitIsRefused) {
    // mma_bf16 with STAGES = 6, BK = 64 (its lab rung: BK is a lab switch): 6 x (128 x 64 + 64 x 128)
    // x 2 = 196608 B: fits the H100's 232448 but not the RTX 3090's 101376.
    Geometry g = geometry("matmul", "mma_bf16_lab", {{"STAGES", 6}, {"BK", 64}});
    ASSERT_EQ(g.dynamic_smem, 196608);
    kl::KernelResources k;
    k.regs_per_thread = 96;
    EXPECT_EQ(kl::launch_refusal(profile("sm_90_h100.json"), k, g.threads, g.dynamic_smem, "", ""), "");
    std::string why = kl::launch_refusal(profile("sm_86_rtx3090.json"), k, g.threads, g.dynamic_smem,
                                         "lower BM, BN or raise WM, WN", "lower BM, BN, BK, STAGES");
    EXPECT_EQ(why.rfind("shared memory: a block needs 196608 bytes", 0), 0u) << why;
    EXPECT_NE(why.find("101376"), std::string::npos) << why;
    EXPECT_NE(why.find("lower BM, BN, BK, STAGES"), std::string::npos) << why;
}

TEST(LaunchCheck, BlocksOverTheThreadLimitAreRefused) {
    kl::KernelResources k;
    k.regs_per_thread = 16;
    std::string why = kl::launch_refusal(profile("sm_89_l4.json"), k, 2048, 0, "lower TPB", "");
    EXPECT_EQ(why.rfind("threads: a block of 2048 threads", 0), 0u) << why;
}

// Issue 38: the hint for too many threads named TM and TN as parameters to lower, but a block of
// (BM / TM) * (BN / TN) threads grows when they shrink. The advice follows each parameter's
// direction in the block's expression, at the run's values.
TEST(LaunchCheck, AdviceForTooManyThreadsPointsEachParameterTheWayThatShrinksTheBlock) {
    const kl::Ladder& L = ladder("matmul");
    const kl::Rung& r = *L.find_rung("reg_2d");
    std::map<std::string, int64_t> sizes(L.default_sizes.begin(), L.default_sizes.end());
    kl::Scope s = kl::make_scope(sizes, kl::resolve_params(r, {{"BM", 256}, {"BN", 256}, {"TM", 2}, {"TN", 2}}),
                                 r.dtypes.front(), 132);
    EXPECT_EQ(kl::shrink_advice(r, r.launches.front().block, s), "lower BM, BN or raise TM, TN");
    // elementwise's block is TPB alone: lower it.
    const kl::Ladder& E = ladder("elementwise");
    const kl::Rung& v = *E.find_rung("gelu_fused_vec");
    std::map<std::string, int64_t> esizes(E.default_sizes.begin(), E.default_sizes.end());
    kl::Scope es = kl::make_scope(esizes, kl::resolve_params(v, {}), v.dtypes.front(), 132);
    EXPECT_EQ(kl::shrink_advice(v, v.launches.front().block, es), "lower TPB");
    // The launch check says the same when the block is over the device's limit (256 x 256 threads
    // in one dimension: block x's limit, 1024, is met first).
    kl::Scope big = kl::make_scope(sizes, kl::resolve_params(r, {{"BM", 256}, {"BN", 256}, {"TM", 1}, {"TN", 1}}),
                                   r.dtypes.front(), 132);
    std::string why = kl::launch_geometry_refusal(r, big, profile("sm_90_h100.json").limits);
    EXPECT_NE(why.find("= 65536 > 1024, the device's limit"), std::string::npos) << why;
    EXPECT_NE(why.find("lower BM, BN or raise TM, TN"), std::string::npos) << why;
}

// [SECTION] Architecture gating

TEST(ArchGate, RunAllOnAnSm86ProfileSkipsExactlyTheHopperRungs) {
    kl::DeviceInfo d = profile("sm_86_rtx3090.json");
    std::vector<std::string> skipped;
    for (const auto& p : kl::plan_run_all(ladder("matmul"), d.cc()))
        if (!p.skip.empty()) {
            skipped.push_back(p.rung->id);
            // The Hopper rungs, and cuBLASLt's fp8 GEMM (Ada and Hopper).
            EXPECT_TRUE(p.skip.rfind("needs sm_90 (Hopper): ", 0) == 0 || p.skip.rfind("needs sm_89 (Ada): ", 0) == 0)
                << p.skip;
            EXPECT_NE(p.skip.find(p.rung->min_arch_why), std::string::npos) << p.skip;
        }
    EXPECT_EQ(skipped,
              (std::vector<std::string>{"wgmma_bf16", "wgmma_tma_bf16", "wgmma_streamk_bf16", "wgmma_cluster_bf16",
                                        "wgmma_pingpong_bf16", "wgmma_tma_store_bf16", "cublaslt_fp8", "wgmma_fp8"}));
    for (const char* id : {"elementwise", "transpose", "softmax"})
        for (const auto& p : kl::plan_run_all(ladder(id), d.cc())) EXPECT_EQ(p.skip, "") << id << "/" << p.rung->id;
    std::vector<std::string> attention_skipped;  // issue 19's wgmma/TMA rungs
    for (const auto& p : kl::plan_run_all(ladder("attention"), d.cc()))
        if (!p.skip.empty()) attention_skipped.push_back(p.rung->id);
    EXPECT_EQ(attention_skipped, (std::vector<std::string>{"flash_wgmma", "flash_pingpong", "flash_fa3"}));
}

TEST(ArchGate, OnTuringTheAmpereRungsAreSkippedToo) {
    std::vector<std::string> skipped;
    for (const auto& p : kl::plan_run_all(ladder("matmul"), 75))
        if (!p.skip.empty()) skipped.push_back(p.rung->id + ": " + p.skip.substr(0, p.skip.find(':')));
    EXPECT_EQ(skipped, (std::vector<std::string>{
                           "double_buffer: needs sm_80 (Ampere)", "mma_bf16: needs sm_80 (Ampere)",
                           "wgmma_bf16: needs sm_90 (Hopper)", "wgmma_tma_bf16: needs sm_90 (Hopper)",
                           "wgmma_streamk_bf16: needs sm_90 (Hopper)", "double_buffer_streamk: needs sm_80 (Ampere)",
                           "wgmma_cluster_bf16: needs sm_90 (Hopper)", "double_buffer_at: needs sm_80 (Ampere)",
                           "wgmma_pingpong_bf16: needs sm_90 (Hopper)", "wgmma_tma_store_bf16: needs sm_90 (Hopper)",
                           "double_buffer_at_streamk: needs sm_80 (Ampere)", "cublaslt_fp8: needs sm_89 (Ada)",
                           "wgmma_fp8: needs sm_90 (Hopper)", "double_buffer_a_kmajor: needs sm_80 (Ampere)",
                           "triton_matmul: needs sm_80 (Ampere)"}));
    // The L2 cache-policy rungs of the layernorm ladder: their PTX does not assemble for sm_75.
    std::vector<std::string> layernorm_skipped;
    for (const auto& p : kl::plan_run_all(ladder("layernorm"), 75))
        if (!p.skip.empty()) layernorm_skipped.push_back(p.rung->id + ": " + p.skip.substr(0, p.skip.find(':')));
    EXPECT_EQ(layernorm_skipped,
              (std::vector<std::string>{"row_regs_l2: needs sm_80 (Ampere)", "rms_row_regs_l2: needs sm_80 (Ampere)"}));
}

TEST(ArchGate, HopperSpecificTargetsDoNotRunOnNewerArchitectures) {
    const kl::Rung& r = *ladder("matmul").find_rung("wgmma_bf16");
    EXPECT_EQ(kl::rung_arch_refusal(r, 90), "");
    EXPECT_NE(kl::rung_arch_refusal(r, 120).find("built for sm_90a, which runs on Hopper only"), std::string::npos);
    EXPECT_EQ(kl::parse_arch("sm_120").cc, 120);
    EXPECT_TRUE(kl::parse_arch("sm_90a").specific);
    EXPECT_EQ(kl::parse_arch("sm_9").cc, -1);
    EXPECT_EQ(kl::parse_arch("gfx90").cc, -1);
}

}  // namespace kl_test_occupancy
