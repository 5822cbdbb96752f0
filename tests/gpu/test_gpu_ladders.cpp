// GPU tests (CTest label `gpu`): every rung of every ladder correct at aligned and odd sizes,
// timings sane, the L2 flush visible, and a temporary rung running without a rebuild.
#include <gtest/gtest.h>

#include <map>

#include "../engine/temp_tree.h"
#include "base/errors.h"
#include "base/paths.h"
#include "gpu/calibration.h"
#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "lab_twin.h"
#include "model/device_profile.h"
#include "model/manifest_load.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_gpu_ladders {

namespace {

kl::GpuContext& gpu() {
    static kl::GpuContext ctx;
    return ctx;
}

std::vector<kl::Ladder>& ladders() {
    static std::vector<kl::Ladder> l = [] {
        std::vector<std::string> errors;
        auto v = kl::load_all_ladders(kl::kernels_dir(), &errors);
        for (const auto& e : errors) ADD_FAILURE() << e;
        return v;
    }();
    return l;
}

const kl::Ladder* ladder_named(const std::string& id) {
    for (const auto& l : ladders())
        if (l.id == id) return &l;
    return nullptr;
}

// Problem sizes each ladder is checked at: aligned and deliberately odd ones.
std::vector<std::map<std::string, int64_t>> sizes_for(const kl::Ladder& L) {
    if (L.id == "elementwise") return {{{"n", 1}}, {{"n", 1000}}, {{"n", (1 << 20) + 3}}, {{"n", int64_t(1) << 28}}};
    if (L.id == "transpose" || L.id == "softmax")
        return {{{"rows", 1}, {"cols", 1}},
                {{"rows", 3}, {"cols", 5}},
                {{"rows", 1000}, {"cols", 1001}},
                {{"rows", 1024}, {"cols", 4096}}};
    if (L.id ==
        "matmul")  // the sizes issue 4 names: 1^3, odd, 1000^3, 4097^3 (past every tile), and M, N, K all different
        return {{{"M", 1}, {"N", 1}, {"K", 1}},
                {{"M", 127}, {"N", 255}, {"K", 63}},
                {{"M", 1000}, {"N", 1000}, {"K", 1000}},
                {{"M", 4097}, {"N", 4097}, {"K", 4097}},
                {{"M", 1024}, {"N", 2048}, {"K", 512}},
                {{"M", 2047}, {"N", 2049}, {"K", 1023}}};  // issue 20's odd size: rows not 16-byte aligned
    if (L.id == "layernorm_backward")  // odd sizes, a vector-path size, more rows than the persistent grid
        return {{{"rows", 1}, {"cols", 1}},
                {{"rows", 7}, {"cols", 3}},
                {{"rows", 65}, {"cols", 4096}},
                {{"rows", 2001}, {"cols", 1001}}};
    if (L.id == "attention_backward")  // one token, odd and aligned N, both head dimensions and masks
        return {{{"B", 1}, {"H", 2}, {"N", 1}, {"d", 64}, {"causal", 0}},
                {{"B", 1}, {"H", 2}, {"N", 77}, {"d", 64}, {"causal", 1}},
                {{"B", 1}, {"H", 2}, {"N", 128}, {"d", 128}, {"causal", 0}}};
    if (L.id == "divergence")  // one lane; odd n with one term and many; an aligned n
        return {{{"n", 1}, {"terms", 1}}, {{"n", 1000003}, {"terms", 3}}, {{"n", int64_t(1) << 22}, {"terms", 64}}};
    if (L.id == "attention")
        return {{{"B", 1}, {"H", 2}, {"N", 1}, {"d", 64}, {"causal", 0}},
                {{"B", 1}, {"H", 2}, {"N", 17}, {"d", 64}, {"causal", 1}},
                {{"B", 1}, {"H", 2}, {"N", 1000}, {"d", 128}, {"causal", 0}}};
    return {{}};
}

std::string describe(const std::map<std::string, int64_t>& s) {
    std::string out;
    for (const auto& [k, v] : s) out += k + "=" + std::to_string(v) + " ";
    return out;
}

}  // namespace

TEST(GpuLadders, EveryRungCorrectAtAlignedAndOddSizes) {
    kl::Runner runner(gpu(), std::nullopt);
    int checked = 0;
    for (const auto& L : ladders()) {
        for (const auto& sizes : sizes_for(L)) {
            for (const kl::Rung* rp : L.every_rung()) {  // lab rungs too (issue 37)
                const kl::Rung& r = *rp;
                for (kl::DType dt : r.dtypes) {
                    kl::RunOptions o;
                    o.sizes = sizes;
                    o.dtype = dt;
                    o.time = false;
                    SCOPED_TRACE(L.id + "/" + r.id + " " + describe(sizes) + kl::to_string(dt));
                    try {
                        kl::RunRecord rec = runner.run(L, r, o);
                        ASSERT_TRUE(rec.correctness.has_value());
                        EXPECT_TRUE(rec.correctness->passed) << rec.correctness->summary();
                        ++checked;
                    } catch (const kl::InputError& e) {
                        // A rung may refuse a size it cannot handle, but only with a clear reason.
                        std::string what = e.what();
                        EXPECT_FALSE(what.empty());
                        std::printf("refused: %s/%s %s: %s\n", L.id.c_str(), r.id.c_str(), describe(sizes).c_str(),
                                    e.what());
                    }
                    ASSERT_FALSE(runner.context_lost()) << "a rung faulted";
                }
            }
        }
    }
    EXPECT_GT(checked, 10);
}

TEST(GpuLadders, TimingsAreSane) {
    kl::Runner runner(gpu(), kl::load_or_measure_calibration(gpu()));
    const kl::Ladder* L = ladder_named("elementwise");
    ASSERT_NE(L, nullptr);
    kl::RunOptions o;
    o.sizes = {{"n", int64_t(1) << 26}};
    kl::RunRecord rec = runner.run(*L, *L->find_rung("gelu_fused"), o);
    ASSERT_TRUE(rec.timing);
    EXPECT_GT(rec.timing->min_ms, 0);
    EXPECT_LE(rec.timing->min_ms, rec.timing->median_ms);
    EXPECT_LE(rec.timing->median_ms, rec.timing->max_ms);
    EXPECT_GE(rec.timing->reps, 10);
    ASSERT_TRUE(rec.values.get(kl::tag::pct_copy));
    // Physically possible: a fused GeLU cannot beat the copy roof by more than noise.
    EXPECT_LT(*rec.values.get(kl::tag::pct_copy), 110.0);
    EXPECT_GT(*rec.values.get(kl::tag::pct_copy), 20.0);
}

TEST(GpuLadders, TemporaryRungRunsWithoutRebuild) {
    TempTree t;
    t.write("tiny/01_add_one.cu",
            "extern \"C\" __global__ void add_one(float* c, const float* a, const float* b, long long n) {\n"
            "  long long i = (long long)blockIdx.x * TPB + threadIdx.x;\n  if (i < n) c[i] = a[i] + b[i];\n}\n");
    t.write("tiny/ladder.toml",
            "[ladder]\nid = \"tiny\"\ntitle = \"Tiny\"\noperation = \"vector_add\"\nsizes = { n = 4099 }\n\n"
            "[[rung]]\nid = \"add\"\ntitle = \"Add\"\nfile = \"01_add_one.cu\"\n"
            "  [rung.params.TPB]\n  default = 128\n  values = [128]\n"
            "  [[rung.launch]]\n  entry = \"add_one\"\n  grid = [\"cdiv(n, TPB)\"]\n  block = [\"TPB\"]\n  args = "
            "[\"c\", \"a\", \"b\", \"n:i64\"]\n");
    kl::Ladder L = kl::load_ladder(t.path("tiny/ladder.toml"));
    kl::Runner runner(gpu(), std::nullopt);
    kl::RunRecord rec = runner.run(L, L.rungs[0], {});
    ASSERT_TRUE(rec.correctness);
    EXPECT_TRUE(rec.correctness->passed) << rec.correctness->summary();
}

TEST(GpuLadders, WrongRungIsCaught) {
    // A rung that skips the last element must fail: the poisoned output is seen as unwritten.
    TempTree t;
    t.write(
        "tiny/01_short.cu",
        "extern \"C\" __global__ void short_add(float* c, const float* a, const float* b, long long n) {\n"
        "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n - 1) c[i] = a[i] + b[i];\n}\n");
    t.write("tiny/ladder.toml",
            "[ladder]\nid = \"tiny\"\ntitle = \"Tiny\"\noperation = \"vector_add\"\nsizes = { n = 1000 }\n\n"
            "[[rung]]\nid = \"short\"\ntitle = \"Short\"\nfile = \"01_short.cu\"\n"
            "  [[rung.launch]]\n  entry = \"short_add\"\n  grid = [\"cdiv(n, 256)\"]\n  block = [\"256\"]\n  args = "
            "[\"c\", \"a\", \"b\", \"n:i64\"]\n");
    kl::Ladder L = kl::load_ladder(t.path("tiny/ladder.toml"));
    kl::Runner runner(gpu(), std::nullopt);
    kl::RunOptions o;
    o.time = false;
    kl::RunRecord rec = runner.run(L, L.rungs[0], o);
    ASSERT_TRUE(rec.correctness);
    EXPECT_FALSE(rec.correctness->passed);
    EXPECT_EQ(rec.correctness->unwritten, 1);
}

// A rung whose scratch cannot fit is refused before anything is allocated, in one message
// that names the whole need: naive attention's S and P at 64 heads of 32,768 x 32,768 are
// 384 GiB, more than any single GPU holds.
TEST(GpuLadders, ScratchThatCannotFitIsRefusedWithTheWholeNeed) {
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder* L = ladder_named("attention");
    ASSERT_NE(L, nullptr);
    kl::RunOptions o;
    o.sizes = {{"B", 1}, {"H", 64}, {"N", 32768}, {"d", 64}, {"causal", 0}};
    o.dtype = kl::DType::BF16;
    try {
        runner.run(*L, *L->find_rung("naive"), o);
        FAIL() << "expected a refusal";
    } catch (const kl::InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("problem too large for GPU memory"), std::string::npos) << what;
        EXPECT_NE(what.find("scratch 384.00 GiB"), std::string::npos) << what;
        EXPECT_NE(what.find("S 256.00 GiB"), std::string::npos) << what;
        EXPECT_NE(what.find("P 128.00 GiB"), std::string::npos) << what;
    }
    EXPECT_FALSE(runner.context_lost());
}

TEST(GpuLadders, TooLargeProblemIsRefusedCleanly) {
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder* L = ladder_named("elementwise");
    ASSERT_NE(L, nullptr);
    kl::RunOptions o;
    o.sizes = {{"n", int64_t(1) << 35}};  // GeLU in and out: 256 GiB, more than any GPU here holds
    try {
        runner.run(*L, *L->find_rung("gelu_fused"), o);
        FAIL() << "expected a refusal";
    } catch (const kl::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("problem too large for GPU memory"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(runner.context_lost());
    // And the runner still works afterwards.
    o.sizes = {{"n", 1000}};
    EXPECT_TRUE(runner.run(*L, *L->find_rung("gelu_fused"), o).correctness->passed);
}

// The two rungs split from the old rung 8, at every STAGES of the ring and at the ends of the
// tile ranges, at aligned and odd sizes (the every-rung test above covers their defaults).
TEST(GpuLadders, DoubleBufferRungsCorrectAcrossStagesAndTiles) {
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder* L = ladder_named("matmul");
    ASSERT_NE(L, nullptr);
    const std::vector<std::pair<std::string, kl::ParamValues>> variants = {
        {"double_buffer_regs", {}},
        {"double_buffer_regs", {{"GROUP", 1}, {"BK", 16}}},
        {"double_buffer_regs", {{"BM", 64}, {"BN", 64}, {"WM", 32}, {"WN", 32}, {"TM", 4}, {"TN", 4}}},
        {"double_buffer", {{"STAGES", 2}}},
        {"double_buffer", {{"STAGES", 3}}},
        {"double_buffer", {{"STAGES", 4}}},
        {"double_buffer", {{"STAGES", 4}, {"BK", 4}, {"GROUP", 16}}},
        {"double_buffer", {{"BM", 256}, {"WM", 128}, {"WN", 32}, {"TN", 4}}},
    };
    int checked = 0;
    for (const auto& sizes : sizes_for(*L)) {
        for (const auto& [rung, params] : variants) {
            kl::RunOptions o;
            o.sizes = sizes;
            o.params = params;
            o.time = false;
            std::string p;
            for (const auto& [k, v] : params) p += " " + k + "=" + std::to_string(v);
            SCOPED_TRACE("matmul/" + rung + p + " " + describe(sizes));
            kl::RunRecord rec = runner.run(*L, *kl_test::with_switches(*L, rung), o);
            ASSERT_TRUE(rec.correctness.has_value());
            EXPECT_TRUE(rec.correctness->passed) << rec.correctness->summary();
            ASSERT_FALSE(runner.context_lost()) << "a rung faulted";
            ++checked;
        }
    }
    EXPECT_EQ(checked, 48);
}

// Stream-K cuts tiles between blocks and sums the pieces in C in a fixed order; unaligned rows
// (or, for fp32, sizes that are not whole tiles) go through padded copies. Both stream-K rungs,
// every schedule and some tile shapes, at sizes where the tile count is below, at, and above a
// multiple of the SM count (one piece, two pieces, many pieces per tile), aligned and not.
TEST(GpuLadders, StreamKRungsCorrectAcrossSchedulesTilesAndOddSizes) {
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder* L = ladder_named("matmul");
    ASSERT_NE(L, nullptr);
    const std::vector<std::pair<std::string, kl::ParamValues>> variants = {
        {"wgmma_streamk_bf16", {}},
        {"wgmma_streamk_bf16", {{"STREAMK", 0}}},
        {"wgmma_streamk_bf16", {{"STREAMK", 2}}},
        {"wgmma_streamk_bf16", {{"BM", 256}, {"BN", 128}, {"STREAMK", 2}}},
        {"wgmma_streamk_bf16", {{"BN", 128}, {"STAGES", 2}}},
        {"wgmma_streamk_bf16", {{"BN", 64}, {"STAGES", 6}, {"STREAMK", 2}}},
        {"double_buffer_streamk", {}},
        {"double_buffer_streamk", {{"STREAMK", 0}}},
        {"double_buffer_streamk", {{"STREAMK", 2}}},
        {"double_buffer_streamk",
         {{"BM", 64}, {"BN", 64}, {"WM", 32}, {"WN", 32}, {"TM", 4}, {"TN", 4}, {"STREAMK", 2}}},
        {"double_buffer_streamk", {{"BK", 16}, {"STAGES", 2}, {"STREAMK", 2}}},
    };
    auto cube = [](int64_t n) { return std::map<std::string, int64_t>{{"M", n}, {"N", n}, {"K", n}}; };
    std::vector<std::map<std::string, int64_t>> sizes = sizes_for(*L);
    for (int64_t n : {1792, 1793, 2048, 2049}) sizes.push_back(cube(n));
    sizes.push_back({{"M", 257}, {"N", 513}, {"K", 1023}});  // few tiles, many K-tiles: every tile cut
    sizes.push_back({{"M", 64}, {"N", 64}, {"K", 8192}});    // one tile cut into ~130 pieces
    int checked = 0, skipped = 0;
    for (const auto& [rung, params] : variants) {
        const kl::Rung* r = kl_test::with_switches(*L, rung);  // lab switches set: the lab twin
        ASSERT_NE(r, nullptr) << rung;
        if (!kl::rung_arch_refusal(*r, gpu().device().cc()).empty()) {
            ++skipped;  // wgmma_streamk_bf16 is sm_90a only
            continue;
        }
        for (const auto& s : sizes) {
            kl::RunOptions o;
            o.sizes = s;
            o.params = params;
            o.time = false;
            std::string p;
            for (const auto& [k, v] : params) p += " " + k + "=" + std::to_string(v);
            SCOPED_TRACE("matmul/" + rung + p + " " + describe(s));
            kl::RunRecord rec = runner.run(*L, *r, o);
            ASSERT_TRUE(rec.correctness.has_value());
            EXPECT_TRUE(rec.correctness->passed) << rec.correctness->summary();
            ASSERT_FALSE(runner.context_lost()) << "a rung faulted";
            ++checked;
        }
    }
    EXPECT_EQ(checked + skipped * int(sizes.size()), int(variants.size() * sizes.size()));
    EXPECT_GT(checked, 0);
}

// Rungs 15, 17 and 18 pair blocks into clusters that share B by multicast: both tiles of a pair, a
// pair whose second tile lies past M (odd tile-row counts), tile shapes, shallow and deep rings,
// unpaired, and the padded path for rows that are not 16-byte aligned. Rung 17's consumers take
// the block's tiles in turn: sizes with one tile and with odd and even counts per block. Rung
// 18's TMA stores clip edge tiles; N % 4 != 0 (1, 255, 1793, 4097) takes its direct stores.
TEST(GpuLadders, ClusterRungCorrectAcrossPairsTilesAndOddSizes) {
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder* L = ladder_named("matmul");
    ASSERT_NE(L, nullptr);
    const kl::Rung* r = L->find_rung("wgmma_cluster_bf16");
    const kl::Rung* pp = L->find_rung("wgmma_pingpong_bf16");  // rung 17: the same pairs, tiles in turn
    const kl::Rung* ts =
        kl_test::with_switches(*L, "wgmma_tma_store_bf16");  // rung 18 (its lab twin): rung 15, C by TMA
    ASSERT_NE(r, nullptr);
    ASSERT_NE(pp, nullptr);
    ASSERT_NE(ts, nullptr);
    if (!kl::rung_arch_refusal(*r, gpu().device().cc()).empty()) GTEST_SKIP() << "wgmma_cluster_bf16 is sm_90a only";
    const std::vector<std::pair<const kl::Rung*, kl::ParamValues>> variants = {
        {r, {}},
        {r, {{"CLUSTER", 1}}},
        {r, {{"BM", 256}, {"BN", 128}}},
        {r, {{"BN", 128}, {"STAGES", 2}}},
        {r, {{"STAGES", 6}, {"BN", 128}}},
        {pp, {}},
        {pp, {{"CLUSTER", 1}}},
        {pp, {{"STAGES", 2}}},
        {pp, {{"STAGES", 7}, {"CLUSTER", 1}}},
        {pp, {{"BM", 64}, {"BN", 256}, {"STAGES", 5}}},
        {pp, {{"BM", 64}, {"BN", 256}, {"STAGES", 2}, {"CLUSTER", 1}, {"GROUP_M", 4}}},
        {ts, {}},
        {ts, {{"GROUP_M", 8}}},  // the order before the eighth session's (16 tile rows per group)
        {ts, {{"BM", 256}, {"BN", 128}, {"CROWS", 128}}},  // two m64 wgmmas per consumer per step
        {ts, {{"BM", 256}, {"BN", 128}, {"CROWS", 128}, {"CLUSTER", 1}, {"STAGES", 2}}},
        {ts, {{"CLUSTER", 1}}},
        {ts, {{"BM", 256}, {"BN", 128}, {"STAGES", 3}}},
        {ts, {{"BN", 128}, {"STAGES", 2}}},
        {ts, {{"BK", 32}, {"STAGES", 8}}},
        {ts, {{"BK", 32}, {"STAGES", 5}, {"CLUSTER", 1}, {"GROUP_M", 16}}},
        {ts, {{"LAG", 1}}},  // consumer 1 a K-tile behind consumer 0
        {ts, {{"LAG", 3}, {"CLUSTER", 1}, {"BN", 128}}},
        {ts, {{"LAG", 4}, {"BK", 32}, {"STAGES", 8}}},
        {ts, {{"PAIR_N", 1}}},                                            // the pair side by side along N, sharing A
        {ts, {{"PAIR_N", 1}, {"BM", 256}, {"BN", 128}, {"CROWS", 128}}},  // cuBLAS's 4096^3 arrangement
        {ts, {{"PAIR_N", 1}, {"BK", 32}, {"STAGES", 8}, {"GROUP_M", 2}}},
        {ts, {{"CLUSTER", 4}}},  // a 2 x 2 square of tiles sharing A along N and B along M
        {ts, {{"CLUSTER", 4}, {"BM", 256}, {"BN", 128}, {"CROWS", 128}, {"GROUP_M", 4}}},
        {ts, {{"CLUSTER", 4}, {"BK", 32}, {"STAGES", 8}, {"LAG", 2}}},
        {ts, {{"FULL_ROUNDS", 1}}},  // the fewest pairs that keep the rounds: 4097^3's 289 stacks on 58
        {ts, {{"FULL_ROUNDS", 1}, {"STREAMK", 1}, {"CLUSTER", 1}}},
    };
    auto cube = [](int64_t n) { return std::map<std::string, int64_t>{{"M", n}, {"N", n}, {"K", n}}; };
    std::vector<std::map<std::string, int64_t>> sizes = sizes_for(*L);
    for (int64_t n : {1792, 1793, 2049}) sizes.push_back(cube(n));
    sizes.push_back({{"M", 384}, {"N", 512}, {"K", 64}});     // three tile rows: the last pair is half empty
    sizes.push_back({{"M", 64}, {"N", 64}, {"K", 8192}});     // one tile, 128 K-tiles through the ring
    sizes.push_back({{"M", 8192}, {"N", 256}, {"K", 1024}});  // more pairs than clusters: each walks several
    sizes.push_back({{"M", 515}, {"N", 1004}, {"K", 200}});   // padded A and B (N % 8 = 4), C still by TMA stores
    sizes.push_back({{"M", 256}, {"N", 768}, {"K", 72}});     // three tile columns: paired along N, the last half empty
    int checked = 0;
    for (const auto& [rung, params] : variants) {
        for (const auto& s : sizes) {
            kl::RunOptions o;
            o.sizes = s;
            o.params = params;
            o.time = false;
            std::string p;
            for (const auto& [k, v] : params) p += " " + k + "=" + std::to_string(v);
            SCOPED_TRACE("matmul/" + rung->id + p + " " + describe(s));
            kl::RunRecord rec = runner.run(*L, *rung, o);
            ASSERT_TRUE(rec.correctness.has_value());
            EXPECT_TRUE(rec.correctness->passed) << rec.correctness->summary();
            ASSERT_FALSE(runner.context_lost()) << "a rung faulted";
            ++checked;
        }
    }
    EXPECT_EQ(checked, int(variants.size() * sizes.size()));
}

// flash_bf16 has one launch per head dimension: each runs (its own kernel in the record) and is
// correct at odd N, causal or not; a head dimension with no launch is refused naming the rung.
TEST(GpuLadders, FlashBf16RunsTheLaunchOfItsHeadDimension) {
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder* L = ladder_named("attention");
    ASSERT_NE(L, nullptr);
    const kl::Rung& r = *L->find_rung("flash_bf16");
    for (int64_t d : {64, 128})
        for (int64_t causal : {0, 1})
            for (int64_t n : {1, 77, 1000}) {
                kl::RunOptions o;
                o.sizes = {{"B", 2}, {"H", 3}, {"N", n}, {"d", d}, {"causal", causal}};
                o.dtype = kl::DType::BF16;
                o.time = false;
                SCOPED_TRACE(describe(o.sizes));
                kl::RunRecord rec = runner.run(*L, r, o);
                ASSERT_TRUE(rec.correctness.has_value());
                EXPECT_TRUE(rec.correctness->passed) << rec.correctness->summary();
                ASSERT_EQ(rec.resources.size(), 1u);
                EXPECT_EQ(rec.resources[0].entry, "attention_flash_bf16_d" + std::to_string(d));
            }
    kl::RunOptions o;
    o.sizes = {{"B", 1}, {"H", 1}, {"N", 64}, {"d", 96}, {"causal", 0}};
    o.dtype = kl::DType::BF16;
    try {
        runner.run(*L, r, o);
        FAIL() << "expected a refusal";
    } catch (const kl::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("rung flash_bf16: no launch applies"), std::string::npos) << e.what();
    }
}

// The grid limit is the device's, read from the GPU, and checked before compiling or allocating.
TEST(GpuLadders, GridBeyondTheDevicesLimitIsRefusedBeforeCompiling) {
    EXPECT_EQ(gpu().device().limits.max_grid[1], 65535);
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder* L = ladder_named("attention");
    ASSERT_NE(L, nullptr);
    kl::RunOptions o;
    o.sizes = {{"B", 300}, {"H", 300}, {"N", 1}, {"d", 64}, {"causal", 0}};
    o.dtype = kl::DType::BF16;
    try {
        runner.run(*L, *L->find_rung("flash_bf16"), o);
        FAIL() << "expected a refusal";
    } catch (const kl::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("attention/flash_bf16 (B=300, H=300): launch attention_flash_bf16_d64: "
                                             "grid y = B * H = 90000 > 65535, the device's limit"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_FALSE(runner.context_lost());
}

// The Hopper attention rungs (issue 19), with the variants they may be tuned to: correct at
// odd N (one key, a ragged tile, tiles that end inside the next head, one past a tile), with
// B x H = 3 x 5, causal or not, at both head dimensions; each runs the launch of its d. For
// rung 8 these N also give last blocks whose second or third warpgroup has no row below N (it
// only passes its turns) and ragged warpgroups that store O from registers, not by TMA.
TEST(GpuLadders, HopperFlashRungsCorrectAtOddSizesInEveryMode) {
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder* L = ladder_named("attention");
    ASSERT_NE(L, nullptr);
    const std::vector<std::pair<std::string, kl::ParamValues>> variants = {
        {"flash_wgmma", {}},
        {"flash_wgmma", {{"BN", 64}, {"STAGES", 3}}},
        {"flash_pingpong", {}},
        {"flash_pingpong", {{"PINGPONG", 0}}},
        {"flash_pingpong", {{"BN", 64}}},
        {"flash_pingpong", {{"PERSISTENT", 0}, {"STAGES", 2}}},
        {"flash_fa3", {}},
        {"flash_fa3", {{"WG64", 2}}},
        {"flash_fa3", {{"TMA_STORE", 0}}},
        {"flash_fa3", {{"BN", 64}, {"PINGPONG", 0}}},
        {"flash_fa3", {{"PERSISTENT", 0}, {"STAGES", 3}, {"TMA_STORE", 0}}},
    };
    int checked = 0;
    for (const auto& [rung, params] : variants) {
        const kl::Rung* r = kl_test::with_switches(*L, rung);  // lab switches set: the lab twin
        ASSERT_NE(r, nullptr) << rung;
        if (!kl::rung_arch_refusal(*r, gpu().device().cc()).empty()) GTEST_SKIP() << rung << " needs sm_90a";
        for (int64_t d : {64, 128})
            for (int64_t causal : {0, 1})
                for (int64_t n : {1, 17, 1000, 4095, 4097}) {
                    kl::RunOptions o;
                    o.sizes = {{"B", 3}, {"H", 5}, {"N", n}, {"d", d}, {"causal", causal}};
                    o.params = params;
                    o.dtype = kl::DType::BF16;
                    o.time = false;
                    std::string p;
                    for (const auto& [k, v] : params) p += " " + k + "=" + std::to_string(v);
                    SCOPED_TRACE("attention/" + rung + p + " " + describe(o.sizes));
                    kl::RunRecord rec = runner.run(*L, *r, o);
                    ASSERT_TRUE(rec.correctness.has_value());
                    EXPECT_TRUE(rec.correctness->passed) << rec.correctness->summary();
                    ASSERT_FALSE(runner.context_lost()) << "a rung faulted";
                    ASSERT_EQ(rec.resources.size(), 1u);
                    EXPECT_EQ(rec.resources[0].entry, "attention_" + rung + "_d" + std::to_string(d));
                    ++checked;
                }
    }
    EXPECT_EQ(checked, 11 * 2 * 2 * 5);
}

}  // namespace kl_test_gpu_ladders
