// Issue 36, "One clock", the window's part: how a figure names its stopwatch (model/stopwatch_label.h),
// the runner protocol's stopwatch in the hello, and the batch a run of several rungs sends so that
// the runner gives them one hold (model/serve_protocol.h), each refused in one line naming the field.
#include <gtest/gtest.h>

#include "model/serve_protocol.h"
#include "model/stopwatch_label.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_stopwatch_window {

namespace {

kl::RunRecord timed(const std::string& stopwatch, double median_ms, double event_ms = 0) {
    kl::RunRecord r;
    r.rung = "r";
    kl::TimingStats t;
    t.median_ms = t.min_ms = t.max_ms = t.mean_ms = median_ms;
    t.reps = 10;
    r.timing = t;
    r.stopwatch = stopwatch;
    r.event_median_ms = event_ms;
    return r;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

// [SECTION] Labels

TEST(StopwatchLabel, NamesEachStopwatchAndAFileWithoutOneIsEvents) {
    EXPECT_EQ(kl::stopwatch_label("events"), "CUDA events");
    EXPECT_EQ(kl::stopwatch_label("span"), "GPU span (CUPTI)");
    EXPECT_EQ(kl::stopwatch_of(timed("", 1)), "events");  // files before 2026-12-01
    EXPECT_EQ(kl::stopwatch_of(timed("span", 1)), "span");
    EXPECT_TRUE(kl::is_stopwatch_name("span"));
    EXPECT_FALSE(kl::is_stopwatch_name("Span"));
    EXPECT_FALSE(kl::is_stopwatch_name(""));
}

TEST(StopwatchLabel, ASpanFigureShowsTheEventsMedianOfTheSameRepetitionsAndItsNote) {
    kl::RunRecord r = timed("span", 0.035, 0.0361);
    r.stopwatch_note = "up to 3 kernels, memsets or memcpys a repetition";
    kl::ClockReport c;
    c.hold_us = 412;
    r.clock = c;
    const std::vector<std::string> lines = kl::stopwatch_lines(r);
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "timed by GPU span (CUPTI); CUDA events of the same repetitions 36.10 us (+3.1%)");
    EXPECT_EQ(lines[1], "stopwatch note: up to 3 kernels, memsets or memcpys a repetition");
    EXPECT_EQ(lines[2], "held 412 us before each repetition");
    EXPECT_EQ(kl::stopwatch_lines(timed("events", 1)), std::vector<std::string>{"timed by CUDA events"});
    kl::RunRecord failed = timed("span", 1);
    failed.error = "boom";
    EXPECT_TRUE(kl::stopwatch_lines(failed).empty());  // no figure, nothing to name
}

TEST(StopwatchLabel, AMixOfStopwatchesIsSaidInOneLineAndOnlyThen) {
    const kl::RunRecord a = timed("", 1), b = timed("events", 2), s = timed("span", 1, 1.1);
    kl::RunRecord untimed;
    untimed.stopwatch = "span";  // a failed run's stopwatch is no figure's
    EXPECT_EQ(kl::mixed_stopwatch_line({&a, &b, &untimed, nullptr}), "");
    EXPECT_EQ(kl::stopwatch_caption({&a, &b}), "CUDA events");
    EXPECT_EQ(kl::stopwatch_caption({&s}), "GPU span (CUPTI)");
    EXPECT_EQ(kl::stopwatch_caption({&untimed}), "");
    const std::string mixed = kl::mixed_stopwatch_line({&a, &b, &s});
    EXPECT_EQ(
        mixed,
        "mixed stopwatches: 2 timed by CUDA events, 1 by GPU span (CUPTI); figures of the two are not comparable");
    EXPECT_EQ(kl::stopwatch_caption({&a, &s, &b}), mixed);
}

// [SECTION] The protocol: the hello's stopwatch

TEST(StopwatchProtocol, TheHelloCarriesTheStopwatchAndWhyASpanCannotBeTaken) {
    kl::Hello h;
    h.tool = "kladder 9";
    h.reason = "no GPU";
    h.stopwatch = "span";
    h.stopwatch_note = "the span cannot be taken here (CUPTI not found): CUDA events time the runs";
    kl::RunnerLine l = kl::decode_runner_line(kl::encode_line(h));
    ASSERT_TRUE(l.hello) << l.problem;
    EXPECT_EQ(l.hello->stopwatch, "span");
    EXPECT_EQ(l.hello->stopwatch_note, h.stopwatch_note);
    // A runner from before the field: an events runner.
    const std::string now = std::to_string(kl::kServeProtocol);
    l = kl::decode_runner_line(R"({"type":"hello","protocol":)" + now + R"(,"gpu":false,"reason":"x"})");
    ASSERT_TRUE(l.hello) << l.problem;
    EXPECT_EQ(l.hello->stopwatch, "events");
}

TEST(StopwatchProtocol, AHelloNamingNoStopwatchIsRefusedInOneLine) {
    const std::string now = std::to_string(kl::kServeProtocol);
    kl::RunnerLine l =
        kl::decode_runner_line(R"({"type":"hello","protocol":)" + now + R"(,"gpu":false,"stopwatch":"sundial"})");
    EXPECT_FALSE(l.hello);
    EXPECT_TRUE(l.bad_hello);
    EXPECT_EQ(l.problem.find('\n'), std::string::npos);
    EXPECT_TRUE(has(l.problem, "stopwatch: 'sundial' is not a stopwatch (events or span)")) << l.problem;
    l = kl::decode_runner_line(R"({"type":"hello","protocol":)" + now + R"(,"gpu":false,"stopwatch":3})");
    EXPECT_TRUE(l.bad_hello);
    EXPECT_TRUE(has(l.problem, "stopwatch")) << l.problem;
}

// [SECTION] The protocol: one hold for a batch

TEST(HoldProtocol, ABatchRoundTripsWithEveryRunsRungParamsAndSizes) {
    kl::RunRequest r;
    r.id = 9;
    r.ladder = "elementwise";
    r.rung = "fused";
    r.batch = kl::RunBatch{7, {{"fused", {{"TPB", 256}}, {{"n", 1024}}}, {"torch_gelu", {}, {{"n", 1024}}}}};
    kl::DecodedRequest d = kl::decode_request_line(kl::encode_line(r));
    ASSERT_TRUE(d.request) << d.problem;
    const auto& b = d.request->run.batch;
    ASSERT_TRUE(b);
    EXPECT_EQ(b->id, 7u);
    ASSERT_EQ(b->runs.size(), 2u);
    EXPECT_EQ(b->runs[0].rung, "fused");
    EXPECT_EQ(b->runs[0].params.at("TPB"), 256);
    EXPECT_EQ(b->runs[1].rung, "torch_gelu");
    EXPECT_EQ(b->runs[1].sizes.at("n"), 1024);
    r.batch.reset();
    d = kl::decode_request_line(kl::encode_line(r));
    ASSERT_TRUE(d.request) << d.problem;
    EXPECT_FALSE(d.request->run.batch);  // no batch: each run keeps its own hold
}

TEST(HoldProtocol, ABadBatchIsRefusedInOneLineNamingTheField) {
    auto refusal = [](const std::string& batch) {
        kl::DecodedRequest d =
            kl::decode_request_line(R"({"type":"run","id":3,"ladder":"e","rung":"a","batch":)" + batch + "}");
        EXPECT_FALSE(d.request);
        EXPECT_EQ(d.problem.find('\n'), std::string::npos);
        EXPECT_EQ(d.id, 3u);  // the error reply reaches its request
        return d.problem;
    };
    EXPECT_TRUE(has(refusal("5"), "request field 'batch': expected an object"));
    EXPECT_TRUE(has(refusal(R"({"runs":[]})"), "'batch.id': expected a non-negative integer"));
    EXPECT_TRUE(has(refusal(R"({"id":1,"runs":{}})"), "'batch.runs': expected an array"));
    EXPECT_TRUE(has(refusal(R"({"id":1,"runs":[7]})"), "'batch.runs[0]': expected an object"));
    EXPECT_TRUE(has(refusal(R"({"id":1,"runs":[{"params":{}}]})"), "'batch.runs[0].rung': expected a rung id"));
    EXPECT_TRUE(has(refusal(R"({"id":1,"runs":[{"rung":"a","params":{"TPB":"x"}}]})"),
                    "'batch.runs[0].params.TPB': expected a 64-bit integer"));
    std::string many = R"({"id":1,"runs":[)";
    for (size_t i = 0; i <= kl::kMaxBatchRuns; ++i) many += std::string(i ? "," : "") + R"({"rung":"a"})";
    EXPECT_TRUE(has(refusal(many + "]}"), "more than " + std::to_string(kl::kMaxBatchRuns)));
}

TEST(HoldProtocol, AResultSaysTheHoldItSharedAndABadOneIsNamed) {
    kl::RunEvent e;
    e.id = 4;
    e.record = timed("events", 1);
    e.record.ladder = "elementwise";
    e.hold = kl::BatchHold{412, "torch_gelu"};
    kl::RunnerLine l = kl::decode_runner_line(kl::encode_line(e));
    ASSERT_TRUE(l.event) << l.problem;
    ASSERT_TRUE(l.event->hold);
    EXPECT_DOUBLE_EQ(l.event->hold->us, 412);
    EXPECT_EQ(kl::batch_hold_line(*l.event->hold), "one hold for every rung of this run: 412 us, set by torch_gelu");
    e.hold.reset();
    l = kl::decode_runner_line(kl::encode_line(e));
    ASSERT_TRUE(l.event) << l.problem;
    EXPECT_FALSE(l.event->hold);
    std::string line = kl::encode_line(e);
    line.insert(line.size() - 1, R"(,"hold":{"us":-3,"set_by":"p"})");
    l = kl::decode_runner_line(line);
    EXPECT_FALSE(l.event);
    EXPECT_TRUE(has(l.problem, "hold.us")) << l.problem;
}

}  // namespace kl_test_stopwatch_window
