// The GPU-span stopwatch's pairing of activity records into repetitions (gpu/span_stopwatch.h),
// KL_STOPWATCH's values, and the record's stopwatch fields through the results file. No GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "base/errors.h"
#include "gpu/span_stopwatch.h"
#include "model/results_json.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_span_stopwatch {

namespace {

using Kind = kl::ActivityRecord::Kind;

kl::ActivityRecord kernel(const std::string& name, uint64_t start, uint64_t end) {
    return {Kind::Kernel, name, start, end};
}

// The order a timed repetition leaves on one stream: flush, hold, the rung's work, the end hold.
std::vector<kl::ActivityRecord> two_repetitions() {
    return {
        kernel("warmup_kernel", 100, 200),  // a warm-up call: before any bracket, not timed
        kernel("kl_l2_flush_store_last", 1000, 1500),
        kernel("kl_l2_discard", 1500, 1600),
        kernel("kl_hold", 1600, 1700),  // opens repetition 0
        {Kind::Memset, "memset", 1702, 1710},
        kernel("rung_a", 1711, 2711),
        kernel("rung_b", 2720, 3000),
        kernel("kl_hold", 3004, 3005),  // closes it
        kernel("kl_l2_flush_store_last", 4000, 4500),
        kernel("kl_hold", 4600, 4700),
        kernel("rung_a", 4703, 5003),
        kernel("kl_hold", 5009, 5010),
    };
}

TEST(SpanStopwatch, EachRepetitionFromItsFirstStartToItsLastEnd) {
    std::vector<kl::ActivityRecord> records = two_repetitions();
    std::reverse(records.begin(), records.end());  // CUPTI's buffers need not come in order
    std::string why;
    int most_items = 0;
    const std::vector<double> spans = kl::bracketed_spans_ms(records, 2, &why, &most_items);
    ASSERT_EQ(spans.size(), 2u) << why;
    EXPECT_EQ(most_items, 3) << "repetition 0 held a memset and two kernels";
    EXPECT_DOUBLE_EQ(spans[0], (3000 - 1702) / 1e6) << "the memset, both kernels and the gap between them";
    EXPECT_DOUBLE_EQ(spans[1], (5003 - 4703) / 1e6) << "the flush and the holds are the stopwatch's";
}

TEST(SpanStopwatch, RefusesWhatItCannotTellApart) {
    std::string why;
    EXPECT_TRUE(kl::bracketed_spans_ms(two_repetitions(), 3, &why).empty());
    EXPECT_NE(why.find("2 bracketed repetitions, not 3"), std::string::npos) << why;

    std::vector<kl::ActivityRecord> untimed = two_repetitions();
    untimed[6].start_ns = untimed[6].end_ns = 0;  // rung_b without timestamps
    why.clear();
    EXPECT_TRUE(kl::bracketed_spans_ms(untimed, 2, &why).empty());
    EXPECT_NE(why.find("1 activity record(s) without timestamps"), std::string::npos) << why;

    const std::vector<kl::ActivityRecord> empty = {kernel("kl_hold", 10, 20), kernel("kl_hold", 30, 31)};
    why.clear();
    EXPECT_TRUE(kl::bracketed_spans_ms(empty, 1, &why).empty());
    EXPECT_NE(why.find("recorded nothing"), std::string::npos) << why;

    std::vector<kl::ActivityRecord> open = two_repetitions();
    open.pop_back();  // the last end hold never recorded
    why.clear();
    EXPECT_TRUE(kl::bracketed_spans_ms(open, 2, &why).empty());
}

// KL_STOPWATCH for the length of one test.
struct StopwatchEnv {
    explicit StopwatchEnv(const char* value) { setenv("KL_STOPWATCH", value, 1); }
    ~StopwatchEnv() { unsetenv("KL_STOPWATCH"); }
};

TEST(SpanStopwatch, AskedForByName) {
    EXPECT_EQ(kl::requested_stopwatch(), kl::Stopwatch::Events) << "events unless asked";
    {
        StopwatchEnv env("span");
        EXPECT_EQ(kl::requested_stopwatch(), kl::Stopwatch::GpuSpan);
    }
    StopwatchEnv env("ncu");
    try {
        kl::requested_stopwatch();
        FAIL() << "a value that names no stopwatch was taken";
    } catch (const kl::InputError& e) { EXPECT_NE(std::string(e.what()).find("'ncu'"), std::string::npos) << e.what(); }
}

TEST(SpanStopwatch, TheRecordSaysWhichStopwatchTimedIt) {
    kl::RunRecord r;
    r.ladder = "elementwise";
    r.rung = "vector_add";
    r.timing = kl::TimingStats{};
    r.timing->median_ms = r.timing->min_ms = r.timing->max_ms = r.timing->mean_ms = 0.035;
    r.timing->reps = 300;
    r.stopwatch = "span";
    r.event_median_ms = 0.0364;
    const nlohmann::json j = kl::to_json(r);
    const kl::RunRecord back = kl::record_from_json(j, "r.json", "runs[0]");
    EXPECT_EQ(back.stopwatch, "span");
    EXPECT_DOUBLE_EQ(back.event_median_ms, 0.0364);

    nlohmann::json bad = j;
    bad["stopwatch"] = "sundial";
    try {
        kl::record_from_json(bad, "r.json", "runs[0]");
        FAIL() << "an unknown stopwatch was read";
    } catch (const kl::InputError& e) {
        EXPECT_NE(std::string(e.what()).find("runs[0].stopwatch"), std::string::npos) << e.what();
    }
}

}  // namespace

}  // namespace kl_test_span_stopwatch
