// Hardware counters without a GPU: raw metric values map onto the results schema (missing
// ones become null with a reason), CUPTI refusals read as sentences, the CLI line shows the
// traffic, and CUPTI's host library (no GPU needed) knows every metric for the H100's chip.
#include <gtest/gtest.h>

#include <cmath>
#include <cupti_result.h>
#include <limits>
#include <set>

#include "model/counters.h"
#include "model/results.h"
#include "model/results_json.h"

namespace {

// A full set of plausible values: a coalesced fp32 copy of 64 MiB in, 64 MiB out.
kl::RawCounters copy_like() {
    kl::RawCounters raw;
    raw.chip = "GH100";
    raw.passes = 8;
    for (const auto& m : kl::counter_metric_names()) raw.values[m] = 0;
    raw.values["dram__bytes_read.sum"] = 67108864;
    raw.values["dram__bytes_write.sum"] = 67239936;
    raw.values["lts__t_bytes.sum"] = 134217728;
    raw.values["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] = 2097152;
    raw.values["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] = 524288;
    raw.values["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] = 2097152;
    raw.values["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] = 262144;
    raw.values["sm__warps_active.avg.pct_of_peak_sustained_active"] = 81.5;
    raw.values["smsp__inst_executed.sum"] = 3145728;  // no branch: every lane active in every instruction
    raw.values["smsp__thread_inst_executed.sum"] = 32.0 * 3145728;
    return raw;
}

TEST(Counters, MetricNamesAreNsightComputeNamesWithoutDuplicates) {
    const auto& names = kl::counter_metric_names();
    std::set<std::string> seen(names.begin(), names.end());
    EXPECT_EQ(seen.size(), names.size());
    for (const char* required :
         {"dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
          "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
          "sm__warps_active.avg.pct_of_peak_sustained_active", "sm__throughput.avg.pct_of_peak_sustained_elapsed"})
        EXPECT_TRUE(seen.count(required)) << required;
    for (const auto& d : kl::derived_counter_names()) EXPECT_FALSE(seen.count(d)) << d << " must not shadow a metric";
}

TEST(Counters, EveryMetricAndDerivedValueBecomesAKey) {
    kl::CountersReport r = kl::counters_to_json(copy_like());
    ASSERT_TRUE(r.counters.is_object());
    EXPECT_EQ(r.counters.size(), kl::counter_metric_names().size() + kl::derived_counter_names().size());
    EXPECT_DOUBLE_EQ(r.counters["dram__bytes_read.sum"].get<double>(), 67108864);
    EXPECT_DOUBLE_EQ(r.counters["dram_bytes"].get<double>(), 67108864.0 + 67239936.0);
    EXPECT_DOUBLE_EQ(r.counters["sectors_per_request_ld"].get<double>(), 4.0);
    EXPECT_DOUBLE_EQ(r.counters["sectors_per_request_st"].get<double>(), 8.0);
    EXPECT_DOUBLE_EQ(r.counters["threads_per_inst"].get<double>(), 32.0);
    EXPECT_NE(r.note.find("GH100"), std::string::npos) << r.note;
    EXPECT_NE(r.note.find("8 replay passes"), std::string::npos) << r.note;
    EXPECT_EQ(r.note.find("no value"), std::string::npos) << "nothing is missing: " << r.note;
}

TEST(Counters, MissingMetricIsNullAndTheNoteSaysWhy) {
    kl::RawCounters raw = copy_like();
    raw.values.erase("dram__bytes_write.sum");
    raw.missing["dram__bytes_write.sum"] = "not a metric of GH100 in this CUPTI";
    raw.values.erase("lts__t_bytes.sum");  // absent without a reason
    kl::CountersReport r = kl::counters_to_json(raw);
    ASSERT_TRUE(r.counters.is_object());
    EXPECT_TRUE(r.counters["dram__bytes_write.sum"].is_null());
    EXPECT_TRUE(r.counters["lts__t_bytes.sum"].is_null());
    EXPECT_TRUE(r.counters["dram_bytes"].is_null()) << "a sum with a missing term is unknown, not the other term";
    EXPECT_TRUE(r.counters["dram__bytes_read.sum"].is_number());
    EXPECT_NE(r.note.find("dram__bytes_write.sum (not a metric of GH100 in this CUPTI)"), std::string::npos) << r.note;
    EXPECT_NE(r.note.find("lts__t_bytes.sum (not collected)"), std::string::npos) << r.note;
}

TEST(Counters, NotFiniteValuesBecomeNullNeverNaNInJson) {
    kl::RawCounters raw = copy_like();
    raw.values["sm__throughput.avg.pct_of_peak_sustained_elapsed"] = std::numeric_limits<double>::quiet_NaN();
    raw.values["gpu__time_duration.sum"] = std::numeric_limits<double>::infinity();
    kl::CountersReport r = kl::counters_to_json(raw);
    EXPECT_TRUE(r.counters["sm__throughput.avg.pct_of_peak_sustained_elapsed"].is_null());
    EXPECT_TRUE(r.counters["gpu__time_duration.sum"].is_null());
    EXPECT_NE(r.note.find("NaN"), std::string::npos) << r.note;
    EXPECT_NE(r.note.find("infinity"), std::string::npos) << r.note;
}

TEST(Counters, RatioWithoutRequestsIsNull) {
    kl::RawCounters raw = copy_like();
    raw.values["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] = 0;  // a rung with no global stores
    kl::CountersReport r = kl::counters_to_json(raw);
    EXPECT_TRUE(r.counters["sectors_per_request_st"].is_null());
    EXPECT_TRUE(r.counters["sectors_per_request_ld"].is_number());
}

// The divergence counter: thread instructions over warp instructions. A warp whose even and odd
// lanes take different sides of a branch runs each side with half its lanes: 16 per instruction
// there; the code both sides share runs with 32.
TEST(Counters, ThreadsPerInstructionShowsMaskedLanes) {
    kl::RawCounters raw = copy_like();
    raw.values["smsp__inst_executed.sum"] = 1000 + 3000;                   // shared code, then both sides
    raw.values["smsp__thread_inst_executed.sum"] = 1000 * 32 + 3000 * 16;  // 32 lanes, then 16
    kl::CountersReport r = kl::counters_to_json(raw);
    EXPECT_DOUBLE_EQ(r.counters["threads_per_inst"].get<double>(), 20.0);
    EXPECT_NE(kl::counters_summary(r.counters, r.note).find("threads/inst 20.0 of 32"), std::string::npos);

    raw.values["smsp__inst_executed.sum"] = 0;  // nothing ran in the range: no ratio, not 0 or NaN
    EXPECT_TRUE(kl::counters_to_json(raw).counters["threads_per_inst"].is_null());
    raw.values.erase("smsp__inst_executed.sum");
    raw.missing["smsp__inst_executed.sum"] = "not a metric of this chip";
    kl::CountersReport without = kl::counters_to_json(raw);
    EXPECT_TRUE(without.counters["threads_per_inst"].is_null());
    EXPECT_NE(kl::counters_summary(without.counters, without.note).find("threads/inst - of 32"), std::string::npos);
}

TEST(Counters, NothingMeasuredMeansNullCountersAndAReason) {
    kl::RawCounters raw;
    for (const auto& m : kl::counter_metric_names()) raw.missing[m] = "CUPTI could not evaluate it (error 1)";
    kl::CountersReport r = kl::counters_to_json(raw);
    EXPECT_TRUE(r.counters.is_null());
    EXPECT_NE(r.note.find("no hardware counter could be read"), std::string::npos) << r.note;
    EXPECT_NE(r.note.find("error 1"), std::string::npos) << r.note;

    kl::CountersReport none = kl::counters_unavailable("");
    EXPECT_TRUE(none.counters.is_null());
    EXPECT_FALSE(none.note.empty());
}

TEST(Counters, ReportSurvivesTheResultsFileRoundTrip) {
    kl::RunRecord rec;
    rec.ladder = "transpose";
    rec.rung = "copy_row_walk";
    kl::CountersReport r = kl::counters_to_json(copy_like());
    rec.counters = r.counters;
    rec.counters_note = r.note;
    kl::ResultsFile f;
    f.runs.push_back(rec);
    kl::ResultsFile back = kl::results_from_json(kl::to_json(f), "memory");
    ASSERT_EQ(back.runs.size(), 1u);
    EXPECT_EQ(back.runs[0].counters, r.counters);
    EXPECT_EQ(back.runs[0].counters_note, r.note);
}

TEST(Counters, PermissionAndVirtualizationRefusalsExplainThemselves) {
    std::string perm =
        kl::explain_cupti_result(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "cuptiProfilerGetCounterAvailability");
    EXPECT_NE(perm.find("ERR_NVGPUCTRPERM"), std::string::npos) << perm;
    EXPECT_NE(perm.find("cuptiProfilerGetCounterAvailability"), std::string::npos) << perm;
    std::string vgpu =
        kl::explain_cupti_result(CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED, "cuptiRangeProfilerEnable");
    EXPECT_NE(vgpu.find("virtualized"), std::string::npos) << vgpu;
    std::string other = kl::explain_cupti_result(CUPTI_ERROR_UNKNOWN, "cuptiRangeProfilerStart", "CUPTI_ERROR_UNKNOWN");
    EXPECT_NE(other.find("999"), std::string::npos) << other;
    EXPECT_NE(other.find("CUPTI_ERROR_UNKNOWN"), std::string::npos) << other;
}

TEST(Counters, SummaryLineShowsTrafficOrTheNote) {
    kl::CountersReport r = kl::counters_to_json(copy_like());
    std::string line = kl::counters_summary(r.counters, r.note);
    EXPECT_NE(line.find("DRAM 134.3 MB"), std::string::npos) << line;
    EXPECT_NE(line.find("ld 4.00 st 8.00"), std::string::npos) << line;
    EXPECT_NE(line.find("threads/inst 32.0 of 32"), std::string::npos) << line;
    EXPECT_EQ(kl::counters_summary(nullptr, "no permission"), "no permission");
}

// CUPTI's host side needs no GPU: every metric must be known for the H100 (GH100) and fit in
// a handful of replay passes. Fails if a name is misspelt or the CUPTI host library is missing.
TEST(Counters, EveryMetricIsKnownForGH100) {
    kl::MetricPlan plan;
    try {
        plan = kl::plan_metrics("GH100", kl::counter_metric_names());
    } catch (const kl::CountersUnavailable& e) { FAIL() << e.what(); }
    EXPECT_TRUE(plan.unsupported.empty())
        << plan.unsupported.begin()->first << ": " << plan.unsupported.begin()->second;
    EXPECT_EQ(plan.supported, kl::counter_metric_names());
    EXPECT_GE(plan.passes, 1);
    EXPECT_LE(plan.passes, 10) << "the counters pass replays the rung once per pass";
}

TEST(Counters, UnknownMetricIsReportedNotFatal) {
    kl::MetricPlan plan = kl::plan_metrics("GH100", {"dram__bytes_read.sum", "dram__no_such_counter.sum"});
    EXPECT_EQ(plan.supported, std::vector<std::string>{"dram__bytes_read.sum"});
    ASSERT_EQ(plan.unsupported.count("dram__no_such_counter.sum"), 1u);
}

}  // namespace
