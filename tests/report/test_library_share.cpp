// A rung's rate beside cuBLAS (report::library_share, figures.h), one rule for the strip card, the
// run tooltip and the handout's key table: a share of the library at these sizes, and for a rung
// at another precision than the library (cuBLAS TF32 beside cuBLAS fp32) a multiple that names
// what it is compared with, never "748% cuBLAS". Read on the recorded H100 matmul file.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "base/paths.h"
#include "model/manifest_load.h"
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

    auto share = kl::report::library_share(tf32, tf32_compute, library);
    ASSERT_TRUE(share);
    EXPECT_EQ(share->other_precision, "tf32");
    EXPECT_FALSE(share->calibrated);
    EXPECT_NEAR(share->ratio, 7.48, 0.01);
    EXPECT_EQ(kl::report::library_share_text(*share, "fp32", 2), "7.5x cuBLAS fp32");

    share = kl::report::library_share(naive, "", library);
    ASSERT_TRUE(share);
    EXPECT_EQ(kl::report::library_share_text(*share, "fp32", 2), "0.97% cuBLAS");
    // No library run at these sizes: the calibration (pct_gemm), and the rule still holds.
    share = kl::report::library_share(tf32, tf32_compute, nullptr);
    ASSERT_TRUE(share);
    EXPECT_TRUE(share->calibrated);
    EXPECT_EQ(kl::report::library_share_text(*share, "fp32", 3), "7.61x cuBLAS fp32");
    // Nothing to compare: no share at all.
    kl::RunRecord bare = naive;
    bare.values = {};
    EXPECT_FALSE(kl::report::library_share(bare, "", nullptr));
    EXPECT_FALSE(kl::report::library_share(bare, "", library));
}

}  // namespace
