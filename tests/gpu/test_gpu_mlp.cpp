// GPU tests (CTest label `gpu`, test gpu.mlp) of the mlp ladder (kernels/mlp/): every rung at
// aligned and odd sizes (one token; widths that are not multiples of 8, so the epilogue rung's
// producer copies element-wise instead of by TMA; more tiles than SMs), the fused-QKV pair, and
// the counters: the unfused rung moves the intermediate's round trip (4 T F bytes) more than the
// epilogue rung.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <optional>

#include "base/errors.h"
#include "base/paths.h"
#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "lab_twin.h"
#include "model/manifest_load.h"

namespace {

using Sizes = std::map<std::string, int64_t>;

kl::GpuContext& gpu() {
    static kl::GpuContext ctx;
    return ctx;
}

const kl::Ladder& mlp_ladder() {
    static kl::Ladder L = kl::load_ladder(kl::kernels_dir() + "/mlp/ladder.toml");
    return L;
}

// The rung with every switch free (its lab twin when it has one): the variants set lab switches.
const kl::Rung& rung(const std::string& id) {
    if (const kl::Rung* r = kl_test::with_switches(mlp_ladder(), id)) return *r;
    throw std::runtime_error("no rung mlp/" + id);
}

std::string describe(const Sizes& s) {
    std::string out;
    for (const auto& [k, v] : s) out += k + "=" + std::to_string(v) + " ";
    return out;
}

bool is_hopper() { return gpu().device().cc_major == 9; }

// Runs each rung at each size, checked, untimed; returns how many runs passed. Only the wgmma
// rung may be refused, and only on a GPU other than Hopper.
int check_rungs(const std::vector<std::string>& ids, const std::vector<Sizes>& sizes,
                const kl::ParamValues& params = {}, kl::RunMode mode = kl::RunMode::Normal) {
    kl::Runner runner(gpu(), std::nullopt);
    int passed = 0;
    for (const auto& s : sizes)
        for (const auto& id : ids) {
            kl::RunOptions o;
            o.sizes = s;
            o.params = params;
            o.dtype = kl::DType::BF16;
            o.time = false;
            o.mode = mode;
            SCOPED_TRACE("mlp/" + id + " " + describe(s));
            try {
                kl::RunRecord rec = runner.run(mlp_ladder(), rung(id), o);
                EXPECT_TRUE(rec.correctness && rec.correctness->passed)
                    << (rec.correctness ? rec.correctness->summary() : "no check");
                if (rec.correctness && rec.correctness->passed) ++passed;
            } catch (const kl::InputError& e) {
                EXPECT_TRUE((id == "gemm_gelu_epilogue" || id == "gelu_pingpong" || id == "gelu_tma_store" ||
                             id == "gelu_cluster") &&
                            !is_hopper())
                    << "refused: " << e.what();
            }
            EXPECT_FALSE(runner.context_lost()) << "a rung faulted";
            if (runner.context_lost()) return passed;
        }
    return passed;
}

std::optional<double> measured_dram_bytes(const std::string& id, const Sizes& sizes, std::string* why) {
    kl::Runner runner(gpu(), std::nullopt);
    kl::RunOptions o;
    o.sizes = sizes;
    o.dtype = kl::DType::BF16;
    o.min_reps = o.max_reps = 3;
    o.counters = true;
    kl::RunRecord rec = runner.run(mlp_ladder(), rung(id), o);
    if (rec.counters.is_null() || !rec.counters.contains("dram_bytes") || !rec.counters["dram_bytes"].is_number()) {
        *why = rec.counters_note;
        return std::nullopt;
    }
    return rec.counters["dram_bytes"].get<double>();
}

}  // namespace

TEST(GpuMlp, EveryMlpRungCorrectAtAlignedAndOddSizes) {
    const std::vector<std::string> ids = {"cublaslt_gelu", "unfused",        "gemm_gelu_epilogue",
                                          "gelu_pingpong", "gelu_tma_store", "gelu_cluster"};
    // One token of width 8; odd widths (TMA refused: element-wise copies; GeLU's scalar tail);
    // aligned, more tiles than SMs (persistent blocks walk several tiles); a partial last tile.
    const std::vector<Sizes> sizes = {{{"T", 1}, {"D", 8}, {"F", 8}},
                                      {{"T", 127}, {"D", 65}, {"F", 259}},
                                      {{"T", 33}, {"D", 1}, {"F", 3}},
                                      {{"T", 2048}, {"D", 512}, {"F", 4096}},
                                      {{"T", 1000}, {"D", 264}, {"F", 1032}}};
    const int passed = check_rungs(ids, sizes);
    EXPECT_GE(passed, is_hopper() ? 30 : 10);
}

// Rung 5's variants: unpaired blocks (CLUSTER = 1), 256-row tiles (four consumers), 128-column
// tiles (each block of a pair fetches one 64-column box of W1), and GROUP_M = 2 (one stack per
// group: the walk's edge case), GeLU's tanh packed in fp16 pairs (TANH = 16), and the left-over
// stacks cut into 64-column pieces (TAIL = 1; pieces past F's edge skipped, paired and not). The sizes: odd widths
// (padded copies in, direct stores out, an odd tile-row count so the last stack's second tile lies past T), 1000 x 264
// x 1032 (TMA both ways, partial tiles), and more stacks than pairs with F % 256 != 0.
TEST(GpuMlp, ClusterRungVariantsCorrect) {
    if (!is_hopper()) GTEST_SKIP() << "rung gelu_cluster needs sm_90a; this GPU is " << gpu().device().name;
    const std::vector<Sizes> sizes = {{{"T", 127}, {"D", 65}, {"F", 259}},
                                      {{"T", 1000}, {"D", 264}, {"F", 1032}},
                                      {{"T", 2304}, {"D", 136}, {"F", 4224}}};
    const std::vector<kl::ParamValues> variants = {{{"CLUSTER", 1}},
                                                   {{"BM", 256}, {"BN", 128}, {"STAGES", 3}},
                                                   {{"BN", 128}, {"STAGES", 6}},
                                                   {{"GROUP_M", 2}, {"STAGES", 2}},
                                                   {{"TANH", 16}},
                                                   {{"TAIL", 1}},
                                                   {{"TAIL", 1}, {"CLUSTER", 1}, {"BN", 128}, {"STAGES", 6}},
                                                   {{"TAIL", 2}},  // pieces with two K-tiles per stage
                                                   {{"TAIL", 2}, {"CLUSTER", 1}, {"STAGES", 2}},
                                                   {{"LAG", 2}},  // consumer 1 two K-tiles behind
                                                   {{"LAG", 3}, {"TAIL", 0}, {"CLUSTER", 1}}};
    for (const auto& v : variants) {
        std::string label;
        for (const auto& [k, x] : v) label += k + "=" + std::to_string(x) + " ";
        SCOPED_TRACE(label);
        EXPECT_EQ(check_rungs({"gelu_cluster"}, sizes, v), 3);
    }
}

// QUEUE: the last round's work (TAIL's pieces, or the left-over stacks with TAIL = 0) or all of
// it taken from a counter in scratch, which the launch's last take sets back to zero. Each check
// runs after one unchecked launch (the no-warm-up measurement), so it finds the counter the first
// launch left. Pieces past F's edge are skipped by the taker (1000 x 264 x 1032).
TEST(GpuMlp, QueuedJobsAreEachRunOnceAndLeaveTheCounterAtZero) {
    if (!is_hopper()) GTEST_SKIP() << "rung gelu_cluster needs sm_90a; this GPU is " << gpu().device().name;
    const std::vector<Sizes> sizes = {{{"T", 127}, {"D", 65}, {"F", 259}},
                                      {{"T", 1000}, {"D", 264}, {"F", 1032}},
                                      {{"T", 2304}, {"D", 136}, {"F", 4224}}};
    const std::vector<kl::ParamValues> variants = {{{"QUEUE", 1}},
                                                   {{"QUEUE", 2}},
                                                   {{"QUEUE", 1}, {"TAIL", 2}},
                                                   {{"QUEUE", 1}, {"TAIL", 0}},
                                                   {{"QUEUE", 2}, {"CLUSTER", 1}, {"BN", 128}, {"STAGES", 6}},
                                                   {{"QUEUE", 1}, {"LAG", 2}, {"STAMPS", 3}}};
    for (const auto& v : variants) {
        std::string label;
        for (const auto& [k, x] : v) label += k + "=" + std::to_string(x) + " ";
        SCOPED_TRACE(label);
        EXPECT_EQ(check_rungs({"gelu_cluster"}, sizes, v, kl::RunMode::NoWarmup), 3);
    }
}

// Rung 4's variants each take their own path: the next tile started one or two K-tiles early
// (two accumulator sets), register stores instead of the staged epilogue, three consumer
// warpgroups (192-row tiles), 128- and 256-column tiles. The
// sizes: odd widths (element-wise copies in and copy_patch out), 1000 x 264 x 1032 (TMA both
// ways, partial last tiles in rows and columns), and more tiles than SMs with blocks walking an
// odd number of tiles (the two accumulator sets end on either one).
TEST(GpuMlp, TmaStoreRungVariantsCorrect) {
    if (!is_hopper()) GTEST_SKIP() << "rung gelu_tma_store needs sm_90a; this GPU is " << gpu().device().name;
    const std::vector<Sizes> sizes = {{{"T", 127}, {"D", 65}, {"F", 259}},
                                      {{"T", 1000}, {"D", 264}, {"F", 1032}},
                                      {{"T", 2048}, {"D", 136}, {"F", 4224}}};
    const std::vector<kl::ParamValues> variants = {{{"OVERLAP", 1}},
                                                   {{"OVERLAP", 2}},
                                                   {{"EPILOGUE", 0}},
                                                   {{"EPILOGUE", 0}, {"OVERLAP", 1}},
                                                   {{"BM", 192}, {"STAGES", 3}},
                                                   {{"BN", 128}, {"STAGES", 6}, {"OVERLAP", 1}},
                                                   {{"BN", 256}, {"STAGES", 3}}};
    for (const auto& v : variants) {
        std::string label;
        for (const auto& [k, x] : v) label += k + "=" + std::to_string(x) + " ";
        SCOPED_TRACE(label);
        EXPECT_EQ(check_rungs({"gelu_tma_store"}, sizes, v), 3);
    }
}

TEST(GpuMlp, QkvPairCorrectAtAlignedAndOddSizes) {
    const std::vector<Sizes> sizes = {
        {{"T", 1}, {"D", 1}, {"F", 1}}, {{"T", 129}, {"D", 67}, {"F", 1}}, {{"T", 1024}, {"D", 512}, {"F", 1}}};
    EXPECT_EQ(check_rungs({"qkv_three", "qkv_fused"}, sizes), 6);
}

// The counters see U's round trip: the unfused rung against cuBLASLt's GELU epilogue, whose
// GEMMs are the same library's (on an H100 at 8192 x 4096 x 16384 they differ by 0.54 GB, U's
// 0.537 GB round trip). The epilogue rung's own GEMM re-reads its operands from DRAM in its own
// pattern, so its total is printed, not compared. U here is 8192 x 8192 bf16 = 128 MiB, so the
// part of it still in L2 (50 MB) when the GeLU kernel reads it back is a small share.
TEST(GpuMlp, UnfusedRungMovesTheIntermediatesRoundTripMore) {
    const Sizes sizes = {{"T", 8192}, {"D", 1024}, {"F", 8192}};
    std::string why;
    auto lt = measured_dram_bytes("cublaslt_gelu", sizes, &why);
    if (!lt) GTEST_SKIP() << "counters unavailable here: " << why;
    auto unfused = measured_dram_bytes("unfused", sizes, &why);
    ASSERT_TRUE(unfused) << why;
    const double round_trip = 4.0 * 8192 * 8192;
    std::string epilogue = "not run (needs sm_90a)", pingpong = epilogue, staged = epilogue, paired = epilogue;
    std::optional<double> pp, ts, cl;
    if (is_hopper()) {
        if (auto e = measured_dram_bytes("gemm_gelu_epilogue", sizes, &why))
            epilogue = std::to_string(*e / (1 << 20)) + " MiB";
        pp = measured_dram_bytes("gelu_pingpong", sizes, &why);
        if (pp) pingpong = std::to_string(*pp / (1 << 20)) + " MiB";
        ts = measured_dram_bytes("gelu_tma_store", sizes, &why);
        if (ts) staged = std::to_string(*ts / (1 << 20)) + " MiB";
        cl = measured_dram_bytes("gelu_cluster", sizes, &why);
        if (cl) paired = std::to_string(*cl / (1 << 20)) + " MiB";
    }
    std::printf(
        "mlp counters: unfused %.1f MiB, cublaslt_gelu %.1f MiB, difference %.2f x U's round trip; epilogue rung %s; "
        "ping-pong rung %s; tma-store rung %s; cluster rung %s\n",
        *unfused / (1 << 20), *lt / (1 << 20), (*unfused - *lt) / round_trip, epilogue.c_str(), pingpong.c_str(),
        staged.c_str(), paired.c_str());
    EXPECT_NEAR((*unfused - *lt) / round_trip, 1.0, 0.25);
    // The fused rungs of their own must show at least half of the round trip saved in their DRAM
    // bytes (their tiles re-read X and W1 panels in their own order, so not all of it).
    if (is_hopper()) {  // the rungs need sm_90a; where they run, their counters must be read
        ASSERT_TRUE(pp && ts && cl) << why;
        EXPECT_LT(*pp, *unfused - 0.5 * round_trip);
        EXPECT_LT(*ts, *unfused - 0.5 * round_trip);
        EXPECT_LT(*cl, *unfused - 0.5 * round_trip);
    }
}

// [SECTION] The matmul ladder's fp8 rungs (lesson 13, the Hopper matmul appendix): cuBLASLt's fp8 GEMM and the wgmma
// e4m3 rung.
namespace {

const kl::Ladder& matmul_ladder() {
    static kl::Ladder L = kl::load_ladder(kl::kernels_dir() + "/matmul/ladder.toml");
    return L;
}

const kl::Rung& matmul_rung(const std::string& id) {
    if (const kl::Rung* r = kl_test::with_switches(matmul_ladder(), id)) return *r;
    throw std::runtime_error("no rung matmul/" + id);
}

}  // namespace

TEST(GpuFp8, Fp8RungsCorrectAtAlignedAndOddSizes) {
    if (gpu().device().cc_major < 9) GTEST_SKIP() << "fp8 rungs need sm_90 here; this GPU is " << gpu().device().name;
    kl::Runner runner(gpu(), std::nullopt);
    // One element (byte-wise copies, cuBLASLt refused: K % 16); odd sizes (byte-wise copies);
    // aligned with partial tiles (TMA); more tiles than SMs, deep K.
    const std::vector<Sizes> sizes = {{{"M", 1}, {"N", 1}, {"K", 1}},
                                      {{"M", 127}, {"N", 129}, {"K", 77}},
                                      {{"M", 1000}, {"N", 528}, {"K", 1040}},
                                      {{"M", 2048}, {"N", 2048}, {"K", 4096}}};
    int passed = 0, refused = 0;
    for (const auto& s : sizes)
        for (const char* id : {"cublaslt_fp8", "wgmma_fp8"}) {
            kl::RunOptions o;
            o.sizes = s;
            o.dtype = kl::DType::E4M3;
            o.time = false;
            SCOPED_TRACE(std::string("matmul/") + id + " " + describe(s));
            try {
                kl::RunRecord rec = runner.run(matmul_ladder(), matmul_rung(id), o);
                EXPECT_TRUE(rec.correctness && rec.correctness->passed)
                    << (rec.correctness ? rec.correctness->summary() : "no check");
                if (rec.correctness && rec.correctness->passed) {
                    ++passed;
                    std::printf("fp8 %s %s: max_abs %.3g rel_l2 %.3g\n", id, describe(s).c_str(),
                                rec.correctness->max_abs, rec.correctness->rel_l2);
                }
            } catch (const kl::InputError& e) {
                // Only cuBLASLt, only where K or N is not a multiple of 16 (its manifest constraint).
                EXPECT_TRUE(std::string(id) == "cublaslt_fp8" && (s.at("K") % 16 || s.at("N") % 16)) << e.what();
                ++refused;
            }
            ASSERT_FALSE(runner.context_lost()) << "a rung faulted";
        }
    EXPECT_EQ(passed, 6);
    EXPECT_EQ(refused, 2);
}
