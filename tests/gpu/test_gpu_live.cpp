// GPU tests (CTest label `gpu`, test gpu.live) of the ladders issue 17 adds: recompute,
// layernorm and the sin^2 + cos^2 rungs of the elementwise ladder. Every rung and dtype at odd
// sizes (one element, lengths that are not a multiple of any vector width, rows with a single
// column, rows too long for the register rung); the traffic the counters measure against the
// rungs' models (9 vs 5 accesses per element for the sigmoids, 4 passes for the fused norm).
// Issue 17 item 6 (precision live): the error report of one rung in fp32, bf16 and fp16 shows
// each storage format's rounding, on the elementwise, softmax and layernorm ladders.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "base/errors.h"
#include "base/paths.h"
#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "model/manifest_load.h"

namespace {

kl::GpuContext& gpu() {
    static kl::GpuContext ctx;
    return ctx;
}

const kl::Ladder& ladder(const std::string& id) {
    static std::vector<kl::Ladder> all = [] {
        std::vector<std::string> errors;
        auto v = kl::load_all_ladders(kl::kernels_dir(), &errors);
        for (const auto& e : errors) ADD_FAILURE() << e;
        return v;
    }();
    for (const auto& l : all)
        if (l.id == id) return l;
    throw std::runtime_error("no ladder " + id);
}

const kl::Rung& rung(const kl::Ladder& L, const std::string& id) {
    for (const auto& r : L.rungs)
        if (r.id == id) return r;
    throw std::runtime_error("no rung " + L.id + "/" + id);
}

std::string describe(const std::map<std::string, int64_t>& s) {
    std::string out;
    for (const auto& [k, v] : s) out += k + "=" + std::to_string(v) + " ";
    return out;
}

// Runs every listed rung of the ladder in every dtype at every size, checked, untimed. Returns
// how many runs passed; a refusal (InputError) is allowed only where `may_refuse` says so.
int check_rungs(const std::string& ladder_id, const std::vector<std::string>& rung_ids,
                const std::vector<std::map<std::string, int64_t>>& sizes,
                bool (*may_refuse)(const std::string& rung, const std::map<std::string, int64_t>& sizes)) {
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder& L = ladder(ladder_id);
    int passed = 0;
    for (const auto& s : sizes)
        for (const auto& id : rung_ids) {
            const kl::Rung& r = rung(L, id);
            for (kl::DType dt : r.dtypes) {
                kl::RunOptions o;
                o.sizes = s;
                o.dtype = dt;
                o.time = false;
                SCOPED_TRACE(ladder_id + "/" + id + " " + describe(s) + kl::to_string(dt));
                try {
                    kl::RunRecord rec = runner.run(L, r, o);
                    EXPECT_TRUE(rec.correctness && rec.correctness->passed)
                        << (rec.correctness ? rec.correctness->summary() : "no check");
                    if (rec.correctness && rec.correctness->passed) ++passed;
                } catch (const kl::InputError& e) {
                    EXPECT_TRUE(may_refuse && may_refuse(id, s)) << "refused: " << e.what();
                }
                EXPECT_FALSE(runner.context_lost()) << "a rung faulted";
                if (runner.context_lost()) return passed;
            }
        }
    return passed;
}

bool never(const std::string&, const std::map<std::string, int64_t>&) { return false; }

// The register rungs hold at most TPB * MAXV * 16 / esize columns (1024 x 16 fp32 elements at
// the defaults' largest); only rows longer than the default capacity may be refused.
bool long_rows_only(const std::string& rung, const std::map<std::string, int64_t>& s) {
    // The register rungs and the Triton rung hold a whole row: 4096 elements at their defaults.
    return (rung.find("row_regs") != std::string::npos || rung.find("row_persistent") != std::string::npos ||
            rung == "triton_layernorm") &&
           s.at("cols") > 4096;
}

// DRAM bytes the counters measured for one rung at n elements, or nullopt (and why) when the
// device does not allow counters.
std::optional<double> measured_dram_bytes(const std::string& ladder_id, const std::string& rung_id,
                                          const std::map<std::string, int64_t>& sizes, kl::DType dt, std::string* why) {
    kl::Runner runner(gpu(), std::nullopt);
    kl::RunOptions o;
    o.sizes = sizes;
    o.dtype = dt;
    o.min_reps = o.max_reps = 3;
    o.counters = true;
    const kl::Ladder& L = ladder(ladder_id);
    kl::RunRecord rec = runner.run(L, rung(L, rung_id), o);
    if (rec.counters.is_null() || !rec.counters.contains("dram_bytes") || !rec.counters["dram_bytes"].is_number()) {
        *why = rec.counters_note;
        return std::nullopt;
    }
    return rec.counters["dram_bytes"].get<double>();
}

}  // namespace

TEST(GpuLive, RecomputeRungsCorrectAtOddSizes) {
    const int passed = check_rungs("recompute", {"unfused", "fused_store", "fused_recompute"},
                                   {{{"n", 1}}, {{"n", 33}}, {{"n", 1000003}}, {{"n", 1 << 22}}}, never);
    EXPECT_EQ(passed, 12);
}

TEST(GpuLive, SinCosRungsCorrectAtOddSizes) {
    const int passed = check_rungs("elementwise", {"sincos_unfused", "sincos_fused"},
                                   {{{"n", 1}}, {{"n", 255}}, {{"n", 1000003}}}, never);
    EXPECT_EQ(passed, 12);  // sincos_unfused in fp32, sincos_fused in fp32, bf16 and fp16
}

TEST(GpuLive, LayerNormRungsCorrectAtOddSizesInEveryDtype) {
    std::vector<std::string> ids;
    for (const auto& r : ladder("layernorm").rungs) ids.push_back(r.id);
    // One row of one column; rows with a special-value row each and lengths off every vector
    // width; a row of 4095 (scalar path of the register rung); aligned 4096 (vector path); 6000
    // (past the register rung's default capacity in fp32: refused, in 16-bit storage: runs);
    // 1000 and 2001 rows: more than the persistent grid (BPS x SMs), so its blocks walk several
    // rows and carry the next one's loads (scalar path at 999 columns, vector path at 1024).
    const std::vector<std::map<std::string, int64_t>> sizes = {
        {{"rows", 1}, {"cols", 1}},      {{"rows", 7}, {"cols", 3}},      {{"rows", 5}, {"cols", 1001}},
        {{"rows", 33}, {"cols", 4095}},  {{"rows", 65}, {"cols", 4096}},  {{"rows", 9}, {"cols", 6000}},
        {{"rows", 1000}, {"cols", 999}}, {{"rows", 2001}, {"cols", 1024}}};
    const int passed = check_rungs("layernorm", ids, sizes, long_rows_only);
    EXPECT_GE(passed, int(ids.size() * 3 * (sizes.size() - 1)));
}

// The layernorm_backward ladder (issue 40): every rung and dtype at odd sizes. One row of one
// column (xhat = 0); rows with the special rows and lengths off every vector width; 4095 (the
// element path of the row-block rungs) and 4096 (their pack path); 6000 (past their capacity,
// TPB * MAXP * 4 = 4096 in every dtype, and the Triton rung's BLOCK: refused); 1000 and 2001
// rows, more than the persistent grid (BPS x SMs), so that blocks carry dgamma and dbeta across
// several rows.
bool backward_long_rows_only(const std::string& rung, const std::map<std::string, int64_t>& s) {
    return (rung.find("rowblock") != std::string::npos || rung == "triton_backward") && s.at("cols") > 4096;
}

TEST(GpuLive, LayerNormBackwardRungsCorrectAtOddSizesInEveryDtype) {
    std::vector<std::string> ids;
    for (const auto& r : ladder("layernorm_backward").rungs) ids.push_back(r.id);
    const std::vector<std::map<std::string, int64_t>> sizes = {
        {{"rows", 1}, {"cols", 1}},      {{"rows", 7}, {"cols", 3}},      {{"rows", 5}, {"cols", 1001}},
        {{"rows", 33}, {"cols", 4095}},  {{"rows", 65}, {"cols", 4096}},  {{"rows", 9}, {"cols", 6000}},
        {{"rows", 1000}, {"cols", 999}}, {{"rows", 2001}, {"cols", 1024}}};
    const int passed = check_rungs("layernorm_backward", ids, sizes, backward_long_rows_only);
    // Every run passes but the refused ones: each rung in each of its dtypes (the PyTorch peers
    // have two) at every size it does not refuse.
    int expected = 0;
    for (const auto& r : ladder("layernorm_backward").rungs)
        for (const auto& s : sizes)
            if (!backward_long_rows_only(r.id, s)) expected += int(r.dtypes.size());
    EXPECT_EQ(passed, expected);
}

// Rungs 7 and 8 (rowblock_pipelined, rowblock_wide_packs, and their RMSNorm variants) away from
// their defaults, which the test above runs: every STAGES (1: no row ahead; 4: three) with both
// ends, one block of 1,024 threads per SM, and rung 8's few threads with many elements. END = 1
// keeps state in scratch (fp32 totals and a ticket, which the last block must leave at zero): the
// mode NoWarmup launches the rung once before the checked launch, so the check sees the second
// run. Element path (3, 4095 columns), pack path (1000, 1024; 16 bytes a pack in rung 8), and 2001
// rows: many rows per block, the stage ring wrapped many times.
TEST(GpuLive, LayerNormBackwardPipelinedCorrectAtEveryStageAndEnd) {
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder& L = ladder("layernorm_backward");
    std::vector<kl::ParamValues> every_stage_and_end;
    for (int64_t stages : {1, 2, 3, 4})
        for (int64_t end : {0, 1}) every_stage_and_end.push_back({{"STAGES", stages}, {"END", end}});
    std::vector<kl::ParamValues> rung7 = every_stage_and_end, rung8 = every_stage_and_end;
    rung7.push_back({{"TPB", 1024}, {"MAXP", 1}, {"BPS", 1}, {"STAGES", 4}, {"END", 1}});
    rung8.push_back({{"TPB", 1024}, {"EPT", 8}, {"BPS", 1}, {"STAGES", 3}, {"END", 1}});  // 192 KiB in fp32
    rung8.push_back({{"TPB", 256}, {"EPT", 16}, {"BPS", 2}, {"STAGES", 2}, {"END", 0}});
    const std::vector<std::pair<const char*, const std::vector<kl::ParamValues>*>> cases = {
        {"rowblock_pipelined", &rung7},
        {"rms_rowblock_pipelined", &rung7},
        {"rowblock_wide_packs", &rung8},
        {"rms_rowblock_wide_packs", &rung8}};
    const std::vector<std::map<std::string, int64_t>> sizes = {{{"rows", 7}, {"cols", 3}},
                                                               {{"rows", 37}, {"cols", 1000}},
                                                               {{"rows", 33}, {"cols", 4095}},
                                                               {{"rows", 2001}, {"cols", 1024}}};
    int passed = 0, runs = 0;
    for (const auto& [id, settings] : cases)
        for (const auto& params : *settings)
            for (kl::DType dt : {kl::DType::F32, kl::DType::BF16, kl::DType::F16})
                for (const auto& s : sizes) {
                    kl::RunOptions o;
                    o.sizes = s;
                    o.dtype = dt;
                    o.time = false;
                    o.mode = kl::RunMode::NoWarmup;
                    o.params = params;
                    std::string what = std::string(id) + " " + describe(s) + kl::to_string(dt);
                    for (const auto& [k, v] : params) what += " " + k + "=" + std::to_string(v);
                    SCOPED_TRACE(what);
                    kl::RunRecord rec = runner.run(L, rung(L, id), o);
                    EXPECT_TRUE(rec.correctness && rec.correctness->passed)
                        << (rec.correctness ? rec.correctness->summary() : "no check");
                    if (rec.correctness && rec.correctness->passed) ++passed;
                    ++runs;
                    ASSERT_FALSE(runner.context_lost()) << "a rung faulted";
                }
    EXPECT_EQ(passed, runs);
    EXPECT_EQ(runs, (2 * 9 + 2 * 10) * 3 * 4);
}

// The attention_backward ladder (issue 40): every CUDA rung at aligned and odd N (tiles of 64
// keys and 32 or 64 queries: 77 leaves ragged tiles on both sides), d = 64 and 128, causal and
// not, and rungs 2-3 at both query tile heights (the Triton rung: test_gpu_triton.cpp). The reference is the CPU's up
// to B H N^2 d = 2^26; B2 H2 N1000 d64 is past it, so the GPU reference and its CPU spot check run too.
TEST(GpuLive, AttentionBackwardRungsCorrectAtOddSizes) {
    std::vector<std::map<std::string, int64_t>> sizes;
    for (int64_t d : {64, 128})
        for (int64_t causal : {0, 1})
            for (int64_t n : {128, 77}) sizes.push_back({{"B", 1}, {"H", 2}, {"N", n}, {"d", d}, {"causal", causal}});
    sizes.push_back({{"B", 2}, {"H", 2}, {"N", 1000}, {"d", 64}, {"causal", 1}});
    // The odd sizes: one tile short and one past (63, 65), and 4097 (past the reference's
    // CPU limit: the GPU reference at one tile more than the benchmark's N).
    sizes.push_back({{"B", 1}, {"H", 2}, {"N", 63}, {"d", 64}, {"causal", 0}});
    sizes.push_back({{"B", 1}, {"H", 2}, {"N", 65}, {"d", 128}, {"causal", 1}});
    sizes.push_back({{"B", 1}, {"H", 1}, {"N", 4097}, {"d", 128}, {"causal", 1}});
    const std::vector<std::string> ids = {"naive", "flash_atomic", "flash_dq_pass", "flash_mma", "flash_ldmatrix"};
    const int passed = check_rungs("attention_backward", ids, sizes, never);
    EXPECT_EQ(passed, int(ids.size() * sizes.size()));
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder& L = ladder("attention_backward");
    for (const char* id : {"flash_atomic", "flash_dq_pass"})
        for (const auto& s : {sizes[3], sizes[5]}) {  // d = 64 causal N = 77, d = 128 not causal N = 77
            kl::RunOptions o;
            o.sizes = s;
            o.dtype = kl::DType::BF16;
            o.params = {{"BM", 32}};
            o.time = false;
            SCOPED_TRACE(std::string("attention_backward/") + id + " BM=32 " + describe(s));
            const kl::RunRecord rec = runner.run(L, rung(L, id), o);
            EXPECT_TRUE(rec.correctness && rec.correctness->passed)
                << (rec.correctness ? rec.correctness->summary() : "no check");
        }
}

// Rung 7's cache policies are hints: they change which lines L2 evicts first, never a value. Every
// value of each policy parameter (the others at their defaults) must give a correct result on the
// vector path (65 x 4096: the policies apply only there), in every dtype. RMSNorm runs the same
// loads and stores; the odd-size test above covers its scalar path and defaults.
TEST(GpuLive, LayerNormL2PolicyRungCorrectWithEveryPolicy) {
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder& L = ladder("layernorm");
    const std::vector<std::pair<std::string, std::vector<int64_t>>> axes = {
        {"LOAD", {0, 1, 2}}, {"SSTORE", {0, 1, 2, 3}}, {"YSTORE", {0, 1, 2, 3}}};
    const std::vector<std::map<std::string, int64_t>> sizes = {{{"rows", 65}, {"cols", 4096}}};
    int passed = 0;
    for (const char* id : {"row_regs_l2"})
        for (const auto& [param, values] : axes)
            for (int64_t v : values)
                for (kl::DType dt : {kl::DType::F32, kl::DType::BF16, kl::DType::F16})
                    for (const auto& s : sizes) {
                        kl::RunOptions o;
                        o.sizes = s;
                        o.dtype = dt;
                        o.time = false;
                        o.params = {{param, v}};
                        SCOPED_TRACE(std::string(id) + " " + param + "=" + std::to_string(v) + " " + describe(s) +
                                     kl::to_string(dt));
                        kl::RunRecord rec = runner.run(L, rung(L, id), o);
                        EXPECT_TRUE(rec.correctness && rec.correctness->passed)
                            << (rec.correctness ? rec.correctness->summary() : "no check");
                        if (rec.correctness && rec.correctness->passed) ++passed;
                        ASSERT_FALSE(runner.context_lost()) << "a rung faulted";
                    }
    EXPECT_EQ(passed, 11 * 3);
}

// Issue 17 item 6: every elementwise and softmax rung that runs in 16-bit storage, in each of its
// dtypes, at the sizes of the GPU ladder loop (tests/gpu/test_gpu_ladders.cpp) and a few more off
// the 4- and 8-element vector widths. The fp32-only rungs (chains, Triton) keep their coverage
// there.
TEST(GpuLive, PrecisionRungsCorrectAtOddSizesInEveryDtype) {
    int expected = 0, passed = 0;
    for (const std::string id : {"elementwise", "softmax"}) {
        std::vector<std::string> ids;
        for (const auto& r : ladder(id).rungs)
            if (r.dtypes.size() == 3) ids.push_back(r.id);
        const std::vector<std::map<std::string, int64_t>> sizes =
            id == "elementwise" ? std::vector<std::map<std::string, int64_t>>{{{"n", 1}},
                                                                              {{"n", 7}},
                                                                              {{"n", 1000}},
                                                                              {{"n", 1000003}},
                                                                              {{"n", (1 << 20) + 3}}}
                                : std::vector<std::map<std::string, int64_t>>{
                                      {{"rows", 1}, {"cols", 1}},      {{"rows", 3}, {"cols", 5}},
                                      {{"rows", 7}, {"cols", 6}},      {{"rows", 1000}, {"cols", 1001}},
                                      {{"rows", 301}, {"cols", 1022}}, {{"rows", 1024}, {"cols", 4096}},
                                      {{"rows", 3}, {"cols", 70001}}};
        expected += int(ids.size() * 3 * sizes.size());
        passed += check_rungs(id, ids, sizes, never);
    }
    EXPECT_EQ(passed, expected);
    EXPECT_GE(expected, 3 * (4 * 5 + 5 * 7));
}

TEST(GpuLive, RecomputeCountersShowNineAndFiveAccessesPerElement) {
    // 512 MiB per array: the few tens of MB a kernel leaves dirty in L2 at its end (written back
    // after the counters stop) are under 0.2 accesses per element.
    const int64_t n = int64_t(1) << 27;
    std::string why;
    auto store = measured_dram_bytes("recompute", "fused_store", {{"n", n}}, kl::DType::F32, &why);
    if (!store) GTEST_SKIP() << "counters unavailable here: " << why;
    auto recompute = measured_dram_bytes("recompute", "fused_recompute", {{"n", n}}, kl::DType::F32, &why);
    ASSERT_TRUE(recompute) << why;
    const double per_elem = 4.0 * double(n);
    std::printf("recompute counters: fused_store %.2f, fused_recompute %.2f accesses per element\n", *store / per_elem,
                *recompute / per_elem);
    EXPECT_NEAR(*store / per_elem, 9.0, 0.5);
    EXPECT_NEAR(*recompute / per_elem, 5.0, 0.5);
}

TEST(GpuLive, FusedNormMovesFourPassesAndUnfusedSix) {
    const std::map<std::string, int64_t> sizes = {{"rows", 16384}, {"cols", 4096}};  // 256 MiB per array
    std::string why;
    auto top = measured_dram_bytes("layernorm", "row_regs_vec", sizes, kl::DType::F32, &why);
    if (!top) GTEST_SKIP() << "counters unavailable here: " << why;
    auto unfused = measured_dram_bytes("layernorm", "unfused", sizes, kl::DType::F32, &why);
    ASSERT_TRUE(unfused) << why;
    const double pass = 4.0 * 16384 * 4096;
    std::printf("layernorm counters: unfused %.2f, row_regs_vec %.2f passes\n", *unfused / pass, *top / pass);
    EXPECT_NEAR(*top / pass, 4.0, 0.3);
    EXPECT_NEAR(*unfused / pass, 6.0, 0.5);
}

// The same rung in fp32, bf16 and fp16 storage (math in float, reference from the same stored
// inputs): the error report must show each format's output rounding, bf16 (7 mantissa bits)
// about 8x fp16 (10), fp16 far above fp32. A rung that computed in 16 bits, or a reference that
// read other inputs, would break the order or the ratios.
TEST(GpuLive, ErrorReportShowsEachStorageFormat) {
    struct Case {
        std::string ladder, rung;
        std::map<std::string, int64_t> sizes;
    };
    const std::vector<Case> cases = {{"elementwise", "gelu_fused_vec", {{"n", (1 << 20) + 3}}},
                                     {"softmax", "online_vec", {{"rows", 1000}, {"cols", 1001}}},
                                     {"softmax", "warp_rows", {{"rows", 1000}, {"cols", 1000}}},
                                     {"layernorm", "row_persistent", {{"rows", 1000}, {"cols", 1024}}}};
    kl::Runner runner(gpu(), std::nullopt);
    for (const auto& c : cases) {
        std::map<kl::DType, double> rel;
        for (kl::DType dt : {kl::DType::F32, kl::DType::BF16, kl::DType::F16}) {
            kl::RunOptions o;
            o.sizes = c.sizes;
            o.dtype = dt;
            o.time = false;
            const kl::Ladder& L = ladder(c.ladder);
            kl::RunRecord rec = runner.run(L, rung(L, c.rung), o);
            ASSERT_TRUE(rec.correctness && rec.correctness->passed) << c.rung << " " << kl::to_string(dt);
            rel[dt] = rec.correctness->rel_l2;
        }
        std::printf("%s/%s rel_l2: fp32 %.2e, bf16 %.2e, fp16 %.2e\n", c.ladder.c_str(), c.rung.c_str(),
                    rel[kl::DType::F32], rel[kl::DType::BF16], rel[kl::DType::F16]);
        EXPECT_GT(rel[kl::DType::F16], 20 * rel[kl::DType::F32]) << c.rung;
        EXPECT_GT(rel[kl::DType::BF16], 4 * rel[kl::DType::F16]) << c.rung;
        EXPECT_LT(rel[kl::DType::BF16], 16 * rel[kl::DType::F16]) << c.rung;
    }
}

// Transpose rungs 7 and 8 (the wide tile, and the same tile taken down the columns): both tile
// edges, the fewest and most rows per pass, both block orders, at sizes with partial tiles on
// either edge, rows or cols not a multiple of 4 (the scalar path), one element and one row.
TEST(GpuLive, WideTransposeRungsCorrectAcrossTilesOrdersAndOddSizes) {
    kl::Runner runner(gpu(), std::nullopt);
    const kl::Ladder& L = ladder("transpose");
    const std::vector<std::map<std::string, int64_t>> sizes = {
        {{"rows", 1}, {"cols", 1}},      {{"rows", 1}, {"cols", 4096}},  {{"rows", 63}, {"cols", 65}},
        {{"rows", 100}, {"cols", 4097}}, {{"rows", 4100}, {"cols", 96}}, {{"rows", 1024}, {"cols", 2048}}};
    int passed = 0, runs = 0;
    for (const char* id : {"transpose_wide", "transpose_columns"})
        for (int64_t tile : {32, 64})
            for (int64_t rows_per_pass : {4, 32})
                for (int64_t order : {0, 1}) {
                    if (std::string(id) == "transpose_wide" && order == 1) continue;  // rung 7 has one order
                    for (const auto& s : sizes) {
                        kl::RunOptions o;
                        o.sizes = s;
                        o.time = false;
                        o.params = {{"TILE", tile}, {"ROWS_PER_PASS", rows_per_pass}};
                        if (std::string(id) == "transpose_columns") o.params["COLUMN_ORDER"] = order;
                        SCOPED_TRACE(std::string(id) + " TILE=" + std::to_string(tile) +
                                     " ROWS_PER_PASS=" + std::to_string(rows_per_pass) +
                                     " COLUMN_ORDER=" + std::to_string(order) + " " + describe(s));
                        kl::RunRecord rec = runner.run(L, rung(L, id), o);
                        ++runs;
                        EXPECT_TRUE(rec.correctness && rec.correctness->passed)
                            << (rec.correctness ? rec.correctness->summary() : "no check");
                        if (rec.correctness && rec.correctness->passed) ++passed;
                        ASSERT_FALSE(runner.context_lost()) << "a rung faulted";
                    }
                }
    EXPECT_EQ(runs, 12 * int(sizes.size()));
    EXPECT_EQ(passed, runs);
}
