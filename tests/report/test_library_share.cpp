// A rung's rate beside the library (report::library_share, figures.h), one rule for the strip card,
// the run tooltip and the handout's key table: a share of the library at these sizes, and for a
// rung at another precision than the library (cuBLAS TF32 beside cuBLAS fp32) a multiple that names
// what it is compared with, never "748% cuBLAS". The library is the ladder's own reference: cuBLAS
// for matmul (the recorded H100 file), cuDNN through SDPA for attention (the recorded H200 file).
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "base/paths.h"
#include "model/manifest_load.h"
#include "model/measures.h"
#include "report/figure_request.h"
#include "report/figures.h"
#include "report/key_numbers.h"

namespace fs = std::filesystem;

namespace {

struct MatmulAt4096 {
    std::vector<kl::Ladder> ladders;
    kl::report::LoadedResults results;
    kl::report::PlotContext ctx;
    MatmulAt4096() {
        std::vector<std::string> errors;
        ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
        results = kl::report::load_results_for_export(
            (fs::path(kl::kernels_dir()).parent_path() / "assets/recorded/h100_matmul.json").string());
        for (const auto& l : ladders)
            if (l.id == "matmul") ctx.ladder = &l;
        ctx.sizes = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
        ctx.dtype = "fp32";
    }
    const kl::report::StoredRun* run(const std::string& rung) const {
        return results.store.latest("matmul", rung, ctx.sizes, ctx.dtype, nullptr);
    }
};

// The Markdown row of `rung` in the key table.
std::string key_row(const std::string& markdown, const std::string& rung) {
    std::istringstream lines(markdown);
    for (std::string line; std::getline(lines, line);)
        if (line.find("(`" + rung + "`)") != std::string::npos) return line;
    return "";
}

// The H200's recorded attention runs at B8 H16 N4096 d64, bf16, and a context on them (the ladder
// found in `ladders`, which the context points into).
struct RecordedAttention {
    std::vector<kl::Ladder> ladders;
    kl::report::LoadedResults results;
    kl::report::PlotContext ctx;
};
RecordedAttention recorded_attention_d64() {
    RecordedAttention a;
    std::vector<std::string> errors;
    a.ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
    a.results = kl::report::load_results_for_export(
        (fs::path(kl::kernels_dir()).parent_path() / "assets/recorded/h200_attention.json").string());
    for (const auto& l : a.ladders)
        if (l.id == "attention") a.ctx.ladder = &l;
    a.ctx.sizes = {{"B", 8}, {"H", 16}, {"N", 4096}, {"d", 64}, {"causal", 0}};
    a.ctx.dtype = "bf16";
    return a;
}

TEST(LibraryShare, TheHandoutTableReadsTf32AsAMultipleOfCublasFp32) {
    MatmulAt4096 m;
    ASSERT_NE(m.ctx.ladder, nullptr);
    const std::string md = kl::report::key_table_markdown(kl::report::key_numbers(m.results, m.ctx));
    // 386.0 / 51.60 TFLOP/s, both recorded at 4096^3.
    const std::string tf32 = key_row(md, "cublas_tf32");
    EXPECT_NE(tf32.find("| 7.48x cuBLAS fp32 |"), std::string::npos) << tf32;
    EXPECT_EQ(tf32.find('%'), std::string::npos) << tf32;
    // The other rungs: their share of cuBLAS fp32 at these sizes, as the strip card reads it
    // (0.4983 / 51.60 TFLOP/s), not the calibration's 0.982 %.
    const std::string naive = key_row(md, "naive");
    EXPECT_NE(naive.find("| 0.966 % |"), std::string::npos) << naive;
    EXPECT_NE(md.find("| % of cuBLAS |"), std::string::npos) << md;
}

TEST(LibraryShare, OneRuleForEveryPlace) {
    MatmulAt4096 m;
    ASSERT_NE(m.ctx.ladder, nullptr);
    const kl::report::StoredRun* library = kl::report::library_reference_run(m.results.store, m.ctx);
    ASSERT_NE(library, nullptr);
    ASSERT_NE(m.run("cublas_tf32"), nullptr);
    ASSERT_NE(m.run("naive"), nullptr);
    const kl::RunRecord& tf32 = m.run("cublas_tf32")->record;
    const kl::RunRecord& naive = m.run("naive")->record;
    const std::string tf32_compute = m.ctx.ladder->find_rung("cublas_tf32")->compute;
    EXPECT_EQ(tf32_compute, "tf32");

    auto share = kl::report::library_share(tf32, tf32_compute, library, *m.ctx.ladder);
    ASSERT_TRUE(share);
    EXPECT_EQ(share->other_precision, "tf32");
    EXPECT_FALSE(share->calibrated);
    EXPECT_NEAR(share->ratio, 7.48, 0.01);
    EXPECT_EQ(kl::report::library_share_text(*share, "fp32", 2), "7.5x cuBLAS fp32");

    share = kl::report::library_share(naive, "", library, *m.ctx.ladder);
    ASSERT_TRUE(share);
    EXPECT_EQ(kl::report::library_share_text(*share, "fp32", 2), "0.97% cuBLAS");
    // No library run at these sizes: the calibration (pct_gemm), and the rule still holds.
    share = kl::report::library_share(tf32, tf32_compute, nullptr, *m.ctx.ladder);
    ASSERT_TRUE(share);
    EXPECT_TRUE(share->calibrated);
    EXPECT_EQ(kl::report::library_share_text(*share, "fp32", 3), "7.61x cuBLAS fp32");
    // Nothing to compare: no share at all.
    kl::RunRecord bare = naive;
    bare.values = {};
    EXPECT_FALSE(kl::report::library_share(bare, "", nullptr, *m.ctx.ladder));
    EXPECT_FALSE(kl::report::library_share(bare, "", library, *m.ctx.ladder));
}

// Attention's library is cuDNN's fused attention through PyTorch (torch_sdpa_cudnn, the first bf16
// reference of the ladder), and every place says so: a card reading "103% cuBLAS" for a flash
// kernel would credit it with beating a GEMM library it is not compared with.
TEST(LibraryShare, AttentionIsAShareOfCudnn) {
    const RecordedAttention a = recorded_attention_d64();
    ASSERT_NE(a.ctx.ladder, nullptr);
    const kl::report::LoadedResults& results = a.results;
    const kl::report::PlotContext& ctx = a.ctx;
    const kl::report::StoredRun* library = kl::report::library_reference_run(results.store, ctx);
    ASSERT_NE(library, nullptr);
    EXPECT_EQ(library->record.rung, "torch_sdpa_cudnn");
    EXPECT_EQ(kl::report::library_name_of(library, *ctx.ladder), "cuDNN");
    const kl::report::StoredRun* fa3 = results.store.latest("attention", "flash_fa3", ctx.sizes, ctx.dtype, nullptr);
    ASSERT_NE(fa3, nullptr);
    auto share = kl::report::library_share(fa3->record, "", library, *ctx.ladder);
    ASSERT_TRUE(share);
    EXPECT_FALSE(share->calibrated);
    EXPECT_EQ(share->library, "cuDNN");
    // 492.9 / 478.3 TFLOP/s, both recorded at these sizes.
    EXPECT_EQ(kl::report::library_share_text(*share, "bf16", 3), "103% cuDNN");
    // Without SDPA's run, the calibration: that one is cuBLAS bf16, and says so.
    share = kl::report::library_share(fa3->record, "", nullptr, *ctx.ladder);
    ASSERT_TRUE(share);
    EXPECT_EQ(kl::report::library_share_text(*share, "bf16", 3), "64.6% cuBLAS");

    const std::string md = kl::report::key_table_markdown(kl::report::key_numbers(results, ctx));
    EXPECT_NE(md.find("| % of cuDNN |"), std::string::npos) << md;
    EXPECT_EQ(md.find("cuBLAS"), std::string::npos) << md;
    EXPECT_NE(key_row(md, "flash_fa3").find("| 103 % | pass |"), std::string::npos) << key_row(md, "flash_fa3");
}

// The recorded attention runs' "% of reference" is cuDNN's time over theirs: the same numbers as
// "% of cuDNN", so the table shows one column (the library's), not two that repeat each other.
TEST(LibraryShare, AReferenceThatIsTheLibraryIsOneColumn) {
    const RecordedAttention a = recorded_attention_d64();
    ASSERT_NE(a.ctx.ladder, nullptr);
    const kl::report::LoadedResults& results = a.results;
    const kl::report::PlotContext& ctx = a.ctx;
    const kl::report::KeyTable same = kl::report::key_numbers(results, ctx);
    EXPECT_TRUE(same.reference_is_library);
    std::string md = kl::report::key_table_markdown(same);
    EXPECT_EQ(md.find("% of reference"), std::string::npos) << md;
    EXPECT_NE(md.find("| TFLOP/s | % of cuDNN | check |\n|---|---:|---:|---:|---|\n"), std::string::npos) << md;
    // 1.150 / 1.115 ms: 103 % once, then the check.
    EXPECT_NE(key_row(md, "flash_fa3").find("| 493 | 103 % | pass |"), std::string::npos) << key_row(md, "flash_fa3");
    EXPECT_NE(key_row(md, "flash_fp32").find("| – | – | – | not measured |"), std::string::npos)
        << key_row(md, "flash_fp32");

    // The same runs read against SDPA's flash backend instead: the columns differ, both stay.
    kl::ResultsFile file = results.file;
    double flash_ms = 0;
    for (const auto& r : file.runs)
        if (r.rung == "torch_sdpa_flash" && r.sizes == ctx.sizes && kl::to_string(r.dtype) == ctx.dtype && r.timing)
            flash_ms = r.timing->median_ms;
    ASSERT_GT(flash_ms, 0);
    for (auto& r : file.runs)
        if (!r.reference && r.timing && r.sizes == ctx.sizes && r.values.has(kl::tag::pct_reference))
            r.values.set(kl::tag::pct_reference, 100.0 * flash_ms / r.timing->median_ms);
    kl::report::LoadedResults against_flash;
    against_flash.file = file;
    against_flash.store.add_file(file, "against_flash.json");
    const kl::report::KeyTable differ = kl::report::key_numbers(against_flash, ctx);
    EXPECT_FALSE(differ.reference_is_library);
    md = kl::report::key_table_markdown(differ);
    EXPECT_NE(md.find("| % of cuDNN | % of reference | check |"), std::string::npos) << md;
    // 1.801 / 1.115 ms against SDPA flash; 103 % of cuDNN as before.
    EXPECT_NE(key_row(md, "flash_fa3").find("| 103 % | 161 % | pass |"), std::string::npos) << key_row(md, "flash_fa3");
    EXPECT_NE(key_row(md, "flash_fp32").find("| – | – | – | – | not measured |"), std::string::npos)
        << key_row(md, "flash_fp32");
}

// Matmul's fp32 reference is cuBLAS SGEMM, its library too: one "% of cuBLAS" column.
TEST(LibraryShare, MatmulFp32ReadsAgainstCublasOnce) {
    MatmulAt4096 m;
    ASSERT_NE(m.ctx.ladder, nullptr);
    const std::string md = kl::report::key_table_markdown(kl::report::key_numbers(m.results, m.ctx));
    EXPECT_EQ(md.find("% of reference"), std::string::npos) << md;
    EXPECT_NE(key_row(md, "naive").find("| 0.966 % | pass |"), std::string::npos) << key_row(md, "naive");
}

// The name comes from the reference's own launch, else its label.
TEST(LibraryShare, TheLibraryIsNamedByItsReferenceRung) {
    std::vector<std::string> errors;
    std::vector<kl::Ladder> ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
    auto name = [&](const std::string& ladder, const std::string& rung) -> std::string {
        for (const auto& l : ladders)
            if (l.id == ladder && l.find_rung(rung)) return kl::report::library_name(*l.find_rung(rung));
        return "(no rung " + ladder + "/" + rung + ")";
    };
    EXPECT_EQ(name("matmul", "cublas_fp32"), "cuBLAS");
    EXPECT_EQ(name("matmul", "cublas_bf16"), "cuBLAS");
    EXPECT_EQ(name("matmul", "cublaslt_fp8"), "cuBLASLt");
    EXPECT_EQ(name("matmul", "torch_mm_bf16"), "torch.mm");
    EXPECT_EQ(name("attention", "torch_sdpa_cudnn"), "cuDNN");
    EXPECT_EQ(name("attention", "torch_sdpa_flash"), "SDPA flash");
    EXPECT_EQ(name("attention_backward", "torch_sdpa_backward_cudnn"), "cuDNN");
}

}  // namespace
