// compute-sanitizer's report read into findings (app/model/sanitizer_report.*): the samples are
// written from the tool's documented output (memcheck, racecheck, split and one-line forms, the
// older cuda-memcheck form), kept in tests/fuzz/corpus/sanitizer_report/ where the fuzzer starts
// from them too.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "base/errors.h"
#include "model/sanitizer_report.h"

namespace kl {
namespace {

std::string sanitizer_sample(const std::string& name) {
    std::ifstream in(std::string(KL_SOURCE_DIR_FOR_TESTS) + "/tests/fuzz/corpus/sanitizer_report/" + name);
    EXPECT_TRUE(in.good()) << name;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

TEST(SanitizerReport, MemcheckOutOfBoundsGroupsByLineAndNamesTheBuffer) {
    SanitizerReport r = parse_sanitizer_report(sanitizer_sample("memcheck_oob.txt"), "memcheck");
    EXPECT_EQ(r.records, 4);
    ASSERT_TRUE(r.error_summary.has_value());
    EXPECT_EQ(*r.error_summary, 4);
    ASSERT_EQ(r.findings.size(), 3u);
    const SanitizerFinding& read = r.findings[0];
    EXPECT_EQ(read.file, "mine.cu");
    EXPECT_EQ(read.line, 16);
    EXPECT_EQ(read.what, "invalid global read of 4 bytes");
    EXPECT_EQ(read.count, 2);  // threads 3 and 4: one finding
    EXPECT_EQ(read.thread, "(3,0,0)");
    EXPECT_EQ(read.block, "(976,0,0)");
    EXPECT_EQ(read.kernel, "vector_add(float *, const float *, const float *, long long)");
    EXPECT_EQ(read.detail, "just past the end of a 4000012-byte buffer");
    EXPECT_EQ(format_finding(read),
              "mine.cu:16:  memcheck: invalid global read of 4 bytes, thread (3,0,0) block (976,0,0), just past the "
              "end of a 4000012-byte buffer (2 times)");
    // The place and the allocation split over continuation lines (newer releases).
    const SanitizerFinding& write = r.findings[1];
    EXPECT_EQ(write.what, "invalid global write of 4 bytes");
    EXPECT_EQ(write.line, 16);
    EXPECT_EQ(write.detail, "4096 bytes past the end of a 4000012-byte buffer");
    // The asynchronous error: the fault reported at a later synchronizing call, on the host.
    const SanitizerFinding& host = r.findings[2];
    EXPECT_EQ(host.file, "");
    EXPECT_EQ(host.what, "cudaStreamSynchronize returned cudaErrorLaunchFailure (unspecified launch failure)");
    EXPECT_EQ(format_finding(host).substr(0, 18), "host:  memcheck: c");
}

TEST(SanitizerReport, RacecheckSplitFormNamesBothLines) {
    SanitizerReport r = parse_sanitizer_report(sanitizer_sample("racecheck_split.txt"), "racecheck");
    ASSERT_EQ(r.findings.size(), 1u);
    const SanitizerFinding& f = r.findings[0];
    EXPECT_EQ(f.file, "race.cu");
    EXPECT_EQ(f.line, 28);
    ASSERT_EQ(f.others.size(), 1u);
    EXPECT_EQ(f.others[0].access, "read");
    EXPECT_EQ(f.others[0].line, 30);
    EXPECT_EQ(f.hazards, 1024);
    EXPECT_EQ(f.severity, "error");
    EXPECT_EQ(format_finding(f),
              "race.cu:28:  racecheck: race between a write here and a read at line 30 (1024 hazards)");
    ASSERT_TRUE(r.error_summary.has_value());
    EXPECT_EQ(*r.error_summary, 1);  // from RACECHECK SUMMARY's "(1 error, ...)"
}

TEST(SanitizerReport, RacecheckOneLineFormWithSeveralSitesAndAWarning) {
    SanitizerReport r = parse_sanitizer_report(sanitizer_sample("racecheck_one_line.txt"), "racecheck");
    ASSERT_EQ(r.findings.size(), 2u);
    EXPECT_EQ(r.findings[0].line, 12);
    ASSERT_EQ(r.findings[0].others.size(), 2u);
    EXPECT_EQ(r.findings[0].others[1].access, "write");
    EXPECT_EQ(r.findings[0].hazards, 36);
    EXPECT_EQ(r.findings[0].what, "race between a write here and a read at line 14 and a write at this line");
    EXPECT_EQ(r.findings[0].kernel, "blockReduceArray(int *, int *)");
    EXPECT_EQ(r.findings[1].severity, "warning");
    EXPECT_EQ(r.findings[1].file, "raceGroupBasic.cu");
    EXPECT_EQ(r.findings[1].line, 40);
    EXPECT_EQ(r.findings[1].others.at(0).line, 46);
}

TEST(SanitizerReport, OlderCudaMemcheckForm) {
    SanitizerReport r = parse_sanitizer_report(sanitizer_sample("cuda_memcheck_old.txt"), "memcheck");
    ASSERT_EQ(r.findings.size(), 2u);
    EXPECT_EQ(r.findings[0].file, "/home/u/src/my_helper.cuh");
    EXPECT_EQ(r.findings[0].line, 75);
    EXPECT_EQ(r.findings[0].what, "invalid global read of 8");
    EXPECT_EQ(r.findings[0].kernel, "void vector_projection<double>(double*, int)");
    EXPECT_EQ(r.findings[0].detail, "an address outside every buffer");
    EXPECT_EQ(r.findings[1].severity, "warning");
    EXPECT_EQ(r.findings[1].file, "./race.cu");
    EXPECT_EQ(r.findings[1].line, 4);
    EXPECT_EQ(r.findings[1].others.at(0).line, 3);
}

TEST(SanitizerReport, CleanRunHasNoFindingsAndItsSummary) {
    SanitizerReport r = parse_sanitizer_report(sanitizer_sample("memcheck_clean.txt"), "memcheck");
    EXPECT_TRUE(r.findings.empty());
    ASSERT_TRUE(r.error_summary.has_value());
    EXPECT_EQ(*r.error_summary, 0);
    EXPECT_TRUE(r.tool_messages.empty());
}

TEST(SanitizerReport, NoLineInfoIsNamedByKernelAndToolErrorsAreKeptApart) {
    SanitizerReport r = parse_sanitizer_report(sanitizer_sample("memcheck_shared_nolines.txt"), "memcheck");
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].file, "");
    EXPECT_EQ(r.findings[0].what, "invalid shared write of 4 bytes");
    EXPECT_EQ(format_finding(r.findings[0]).substr(0, 39), "kernel transpose_tiled:  memcheck: inva");
    ASSERT_EQ(r.tool_messages.size(), 3u);
    EXPECT_EQ(r.tool_messages[2], "Target application returned an error");
}

TEST(SanitizerReport, RenameMapsTheCompiledNameToTheLearnersFile) {
    SanitizerReport r = parse_sanitizer_report(sanitizer_sample("racecheck_split.txt"), "racecheck");
    rename_sanitizer_files(r, "race.cu", "../work/My race.cu");
    EXPECT_EQ(r.findings[0].file, "../work/My race.cu");
    EXPECT_EQ(r.findings[0].others[0].file, "../work/My race.cu");
}

TEST(SanitizerReport, JsonRoundTripAndRefusals) {
    SanitizerReport r = parse_sanitizer_report(sanitizer_sample("racecheck_one_line.txt"), "racecheck");
    for (const auto& f : r.findings) {
        SanitizerFinding back = finding_from_json(to_json(f), "f");
        EXPECT_EQ(format_finding(back), format_finding(f));
        EXPECT_EQ(back.others.size(), f.others.size());
    }
    nlohmann::json j = to_json(r.findings[0]);
    j["line"] = -1;
    EXPECT_THROW(finding_from_json(j, "findings[0]"), InputError);
    j = to_json(r.findings[0]);
    j.erase("what");
    try {
        finding_from_json(j, "findings[0]");
        FAIL() << "no error";
    } catch (const InputError& e) { EXPECT_STREQ(e.what(), "findings[0].what: expected a string"); }
}

TEST(SanitizerReport, LimitsHold) {
    // Many distinct findings: at most kMaxSanitizerFindings kept, every record counted.
    std::string text;
    for (int i = 1; i <= 300; ++i)
        text +=
            "========= Invalid __global__ write of size 4 bytes\n=========     at k+0x10 in m.cu:" + std::to_string(i) +
            "\n=========\n";
    SanitizerReport r = parse_sanitizer_report(text, "memcheck");
    EXPECT_EQ(r.findings.size(), kMaxSanitizerFindings);
    EXPECT_EQ(r.records, 300);
    // A report past the size limit is cut, and says so.
    std::string big(kMaxSanitizerReportBytes + 10, 'x');
    SanitizerReport b = parse_sanitizer_report(big, "memcheck");
    EXPECT_TRUE(b.truncated);
    EXPECT_LE(b.tool_messages.size(), 20u);
    // Numbers too long to hold, a line number of zero, absurd triples: no crash, nothing invented.
    SanitizerReport n = parse_sanitizer_report(
        "Invalid __global__ read of size 99999999999999999999999 bytes\n     at k+0x1 in a.cu:0\n"
        "     by thread (1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20) in block (\n"
        "     and is 99999999999999999999 bytes after the nearest allocation at 0x1 of size 4 bytes\n"
        "ERROR SUMMARY: 99999999999999999999 errors\n",
        "memcheck");
    ASSERT_EQ(n.findings.size(), 1u);
    EXPECT_EQ(n.findings[0].line, 0);
    EXPECT_EQ(n.findings[0].thread, "");
    EXPECT_EQ(n.findings[0].block, "");
    EXPECT_FALSE(n.error_summary.has_value());
}

// Garbage and mutated reports never crash the parser, and what it finds survives JSON.
TEST(SanitizerReport, RandomTextNeverCrashes) {
    std::mt19937 rng(20261130);
    const std::vector<std::string> seeds = {sanitizer_sample("memcheck_oob.txt"),
                                            sanitizer_sample("racecheck_split.txt"),
                                            sanitizer_sample("cuda_memcheck_old.txt")};
    const std::vector<std::string> tokens = {"=========",
                                             "     ",
                                             "\n",
                                             " in ",
                                             ":",
                                             "+0x",
                                             "Race reported between ",
                                             " access at",
                                             "[",
                                             "Program hit ",
                                             "and is ",
                                             " bytes after",
                                             "of size ",
                                             "by thread (",
                                             "Invalid __global__ ",
                                             "ERROR SUMMARY: "};
    for (int round = 0; round < 3000; ++round) {
        std::string t = seeds[rng() % seeds.size()];
        const int edits = 1 + int(rng() % 12);
        for (int e = 0; e < edits && !t.empty(); ++e) {
            const size_t at = rng() % t.size();
            switch (rng() % 4) {
                case 0: t.insert(at, tokens[rng() % tokens.size()]); break;
                case 1: t.erase(at, rng() % 40); break;
                case 2: t[at] = static_cast<char>(rng() % 256); break;
                default: t.insert(at, std::string(rng() % 200, static_cast<char>(rng() % 256)));
            }
        }
        SanitizerReport r;
        ASSERT_NO_THROW(r = parse_sanitizer_report(t, "memcheck")) << t;
        for (const auto& f : r.findings) {
            EXPECT_GE(f.line, 0);
            EXPECT_GE(f.count, 1);
            ASSERT_NO_THROW(finding_from_json(to_json(f), "f"));
        }
    }
}

// Racecheck repeats one pair of lines for every warp and instruction that met it (on the H200,
// 2026-11-30, a tile write at line 33 against its read at line 38): the finding names each partner
// line once and sums the hazards.
TEST(SanitizerReport, RacecheckNamesARepeatedPartnerOnce) {
    SanitizerReport r = parse_sanitizer_report(sanitizer_sample("racecheck_repeated.txt"), "racecheck");
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].hazards, 1536);
    EXPECT_EQ(format_finding(r.findings[0]),
              "race.cu:33:  racecheck: race between a write here and a read at line 38 (1536 hazards) (2 times)");
}

}  // namespace
}  // namespace kl
