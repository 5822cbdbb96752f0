// Tagged measurements (model/measures.h): values kept in registry order, an unregistered tag
// refused, every tag a registry row with a unit and a description, and the run metrics lessons
// predict read through the tags.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "model/measures.h"
#include "model/results.h"
#include "model/run_metrics.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_measures {

using namespace kl;

TEST(Measures, ValuesKeepRegistryOrderWhateverOrderTheyAreSet) {
    Measures m;
    m.set(tag::pct_copy, 90.0);
    m.set(tag::flops, 1e9);
    m.set(tag::gbps, 3000.0);
    ASSERT_EQ(m.all().size(), 3u);
    EXPECT_EQ(m.all()[0].first, "flops");
    EXPECT_EQ(m.all()[1].first, "gbps");
    EXPECT_EQ(m.all()[2].first, "pct_copy");
    m.set(tag::gbps, 3100.0);  // set again: replaced in place, not appended
    EXPECT_EQ(m.all().size(), 3u);
    EXPECT_EQ(m.get(tag::gbps), 3100.0);
}

TEST(Measures, AbsentIsNotZeroButNumReadsZero) {
    Measures m;
    EXPECT_FALSE(m.get(tag::pct_gemm).has_value());
    EXPECT_EQ(m.num(tag::pct_gemm), 0.0);
    m.set(tag::pct_gemm, std::optional<double>(0.0));
    EXPECT_TRUE(m.has(tag::pct_gemm));
    m.set(tag::pct_gemm, std::optional<double>());
    EXPECT_FALSE(m.has(tag::pct_gemm));
}

TEST(Measures, AnUnregisteredTagIsAProgrammingError) {
    Measures m;
    EXPECT_THROW(m.set("joules", 1.0), std::logic_error);
    EXPECT_THROW(m.erase("joules"), std::logic_error);
}

TEST(Measures, EveryRowHasAUniqueTagAUnitAndALegacyField) {
    std::set<std::string> tags;
    for (const MeasureInfo& row : measure_registry()) {
        EXPECT_TRUE(tags.insert(row.tag).second) << row.tag;
        EXPECT_NE(std::string(row.unit), "") << row.tag;
        EXPECT_NE(std::string(row.description), "") << row.tag;
        // Only values that versions 1 and 2 never had (the memory roof's) have no field there.
        const bool new_in_3 = std::set<std::string>{tag::roof_gbps, tag::pct_roof, tag::above_roof}.count(row.tag);
        EXPECT_EQ(std::string(row.legacy_field).empty(), new_in_3) << row.tag;
        EXPECT_EQ(find_measure(row.tag), &row);
    }
    EXPECT_EQ(find_measure("joules"), nullptr);
}

TEST(Measures, RunMetricsReadTheTags) {
    RunRecord r;
    r.timing = TimingStats{};
    r.timing->median_ms = 2.0;
    r.values.set(tag::gbps, 1500.0);
    r.values.set(tag::peak_memory_bytes, double(3u << 30));
    EXPECT_EQ(run_metric_value(r, "gbps"), 1500.0);
    EXPECT_EQ(run_metric_value(r, "us"), 2000.0);
    EXPECT_EQ(run_metric_value(r, "peak_gib"), 3.0);
    EXPECT_FALSE(run_metric_value(r, "tflops").has_value());  // absent
    r.values.set(tag::tflops, 0.0);
    EXPECT_FALSE(run_metric_value(r, "tflops").has_value());  // a zero rate is no rate
    r.error_kind = "gpu";
    EXPECT_FALSE(run_metric_value(r, "gbps").has_value());  // a failed run has no figures
}

}  // namespace kl_test_measures
