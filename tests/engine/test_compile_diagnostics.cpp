// NVRTC logs read into file:line:column messages. The logs under logs/ were captured from NVRTC
// 13.0 compiling the .cu files beside them (and two small others) with the workbook's options.
#include <gtest/gtest.h>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/paths.h"
#include "model/compile_diagnostics.h"
#include "model/results_json.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_compile_diagnostics {

using namespace kl;

namespace {
std::string log_file(const std::string& name) { return read_file(data_root() + "/tests/engine/logs/" + name); }
}  // namespace

TEST(CompileDiagnostics, ErrorsAndWarningsOfARealLogAtTheirLineAndCaretColumn) {
    auto ds = parse_nvrtc_log(log_file("nvrtc13_broken.log"), "broken.cu", "/home/me/mine.cu");
    ASSERT_EQ(ds.size(), 4u);
    EXPECT_EQ(ds[0].file, "/home/me/mine.cu");
    EXPECT_EQ(ds[0].line, 4);
    // "    if (i < n) y[i] = a[i] + b[i] + undefined_thing;": the name starts at column 37.
    EXPECT_EQ(ds[0].column, 37);
    EXPECT_EQ(ds[0].severity, Severity::Error);
    EXPECT_EQ(ds[0].message, "identifier \"undefined_thing\" is undefined");
    EXPECT_EQ(ds[1].line, 5);
    EXPECT_EQ(ds[1].column, 15);
    EXPECT_EQ(ds[2].severity, Severity::Warning);
    EXPECT_EQ(ds[2].line, 3);
    EXPECT_EQ(ds[2].column, 9);
    EXPECT_EQ(ds[2].message, "variable \"unused\" was declared but never referenced");
    EXPECT_EQ(ds[3].line, 7);
    EXPECT_EQ(format_diagnostic(ds[0]), "/home/me/mine.cu:4:37: error: identifier \"undefined_thing\" is undefined");
    EXPECT_EQ(count_diagnostics(ds), "2 errors, 2 warnings");
}

// ptxas's note on a kernel that compiled but whose wgmmas it serialized (captured from NVRTC 13.0
// compiling mlp rung 5 with a printf added at its end): a warning about the whole file.
TEST(CompileDiagnostics, PtxasPerformanceLossIsAWarningAboutTheFile) {
    auto ds = parse_nvrtc_log(log_file("ptxas13_serialized.log"), "05_gelu_cluster.cu", "/home/me/mine.cu");
    ASSERT_EQ(ds.size(), 1u);
    EXPECT_EQ(ds[0].file, "/home/me/mine.cu");
    EXPECT_EQ(ds[0].line, 0);
    EXPECT_EQ(ds[0].severity, Severity::Warning);
    EXPECT_EQ(ds[0].message.rfind(
                  "ptxas: (C7510) Potential Performance Loss: wgmma.mma_async instructions are serialized", 0),
              0u)
        << ds[0].message;
    EXPECT_EQ(count_diagnostics(ds), "0 errors, 1 warning");
    EXPECT_FALSE(is_ptxas_performance_note("ptxas info    : Used 168 registers, used 16 barriers"));
}

TEST(CompileDiagnostics, ColumnsCountATabAsOneCharacter) {
    auto ds = parse_nvrtc_log(log_file("nvrtc13_tab.log"), "tab.cu", "tab.cu");
    ASSERT_EQ(ds.size(), 1u);
    EXPECT_EQ(ds[0].line, 2);
    // "\tint x = \t1 + zz;": zz is the 15th character.
    EXPECT_EQ(ds[0].column, 15);
}

TEST(CompileDiagnostics, InstantiationContextBecomesANoteAtItsLine) {
    auto ds = parse_nvrtc_log(log_file("nvrtc13_instantiation.log"), "t.cu", "t.cu");
    ASSERT_EQ(ds.size(), 3u);
    EXPECT_EQ(ds[0].column, 44);
    EXPECT_EQ(ds[1].message, "static assertion failed with \"bad N\"");
    EXPECT_EQ(ds[2].severity, Severity::Note);
    EXPECT_EQ(ds[2].line, 3);
    EXPECT_EQ(ds[2].file, "t.cu");
    EXPECT_NE(ds[2].message.find("detected during instantiation"), std::string::npos);
}

TEST(CompileDiagnostics, CatastrophicErrorIsAnError) {
    auto ds = parse_nvrtc_log(log_file("nvrtc13_missing_include.log"), "inc.cu", "mine.cu");
    ASSERT_EQ(ds.size(), 1u);
    EXPECT_EQ(ds[0].severity, Severity::Error);
    EXPECT_EQ(format_diagnostic(ds[0]), "mine.cu:1:23: error: cannot open source file \"nothere.cuh\"");
}

TEST(CompileDiagnostics, AMessageAboutTheWholeCompileHasNoPlace) {
    auto ds = parse_nvrtc_log(log_file("nvrtc13_no_builtins.log"), "broken.cu", "broken.cu");
    ASSERT_EQ(ds.size(), 1u);
    EXPECT_EQ(ds[0].line, 0);
    EXPECT_EQ(format_diagnostic(ds[0]), "nvrtc: error: failed to open libnvrtc-builtins.so.13.0.");
}

TEST(CompileDiagnostics, HeadersKeepTheirNamesAndNoCaretMeansColumnZero) {
    auto ds = parse_nvrtc_log("/k/common/kl_common.cuh(12): error: oops\n", "mine.cu", "x/mine.cu");
    ASSERT_EQ(ds.size(), 1u);
    EXPECT_EQ(ds[0].file, "/k/common/kl_common.cuh");
    EXPECT_EQ(ds[0].line, 12);
    EXPECT_EQ(ds[0].column, 0);
}

TEST(CompileDiagnostics, GarbageAndLookalikesAreNotDiagnostics) {
    EXPECT_TRUE(parse_nvrtc_log("", "a.cu", "a.cu").empty());
    EXPECT_TRUE(parse_nvrtc_log("a.cu(x): error: no\na.cu(): error: no\n(3): error: no\n", "a.cu", "a.cu").empty());
    EXPECT_TRUE(parse_nvrtc_log("a.cu(99999999999): error: too big\n", "a.cu", "a.cu").empty());
    EXPECT_TRUE(parse_nvrtc_log("a.cu(3): fatal: unknown kind\n", "a.cu", "a.cu").empty());
    std::string flood;
    for (int i = 0; i < 1000; ++i) flood += "a.cu(1): error: again\n";
    EXPECT_EQ(parse_nvrtc_log(flood, "a.cu", "a.cu").size(), kMaxDiagnostics);
}

TEST(CompileDiagnostics, JsonRoundTripAndRefusals) {
    CompileDiagnostic d{"mine.cu", 4, 37, Severity::Warning, "hm"};
    EXPECT_EQ(diagnostic_from_json(to_json(d), "d"), d);
    auto j = to_json(d);
    j["severity"] = "fatal";
    EXPECT_THROW(diagnostic_from_json(j, "d"), InputError);
    j = to_json(d);
    j["line"] = -1;
    EXPECT_THROW(diagnostic_from_json(j, "d"), InputError);
    EXPECT_THROW(diagnostic_from_json(nlohmann::json::array(), "d"), InputError);
}

}  // namespace kl_test_compile_diagnostics
