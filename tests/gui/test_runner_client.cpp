// The GUI's runner client against a test double of `kladder serve` (fake_runner.cpp) and against
// the real `kladder serve` on this machine: hello, results, a runner killed mid-sweep, a crash,
// a hang past the time-out, cancel, and a runner that cannot start. No GPU needed.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "gui/runner_client.h"

using namespace kl::gui;
using Clock = std::chrono::steady_clock;

namespace {

kl::RunRequest run_request(int64_t n) {
    kl::RunRequest r;
    r.ladder = "elementwise";
    r.rung = "vector_add";
    r.sizes = {{"n", n}};
    r.dtype = kl::DType::F32;
    return r;
}

struct Collected {
    std::vector<RunnerEvent> all;
    int count(RunnerEvent::Kind k) const {
        int n = 0;
        for (const auto& e : all) n += e.kind == k;
        return n;
    }
    const RunnerEvent* first(RunnerEvent::Kind k) const {
        for (const auto& e : all)
            if (e.kind == k) return &e;
        return nullptr;
    }
};

// Polls until `done` says so or the deadline passes (the test then fails on its expectations).
template <class Pred>
void pump(RunnerClient& c, Collected& got, Pred done, double seconds = 20) {
    auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < deadline) {
        for (auto& e : c.poll()) got.all.push_back(std::move(e));
        if (done()) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (auto& e : c.poll()) got.all.push_back(std::move(e));
}

RunnerOptions fake(std::vector<std::string> extra = {}, double timeout_s = 20) {
    RunnerOptions o;
    o.command = {FAKE_RUNNER};
    for (auto& x : extra) o.command.push_back(x);
    o.request_timeout_s = timeout_s;
    o.hello_timeout_s = 10;
    return o;
}

}  // namespace

TEST(RunnerClient, HelloThenResults) {
    RunnerClient c(fake({"--delay-ms", "20"}));
    Collected got;
    uint64_t a = c.submit(run_request(1024));
    uint64_t b = c.submit(run_request(2048));
    EXPECT_NE(a, b);
    pump(c, got, [&] { return got.count(RunnerEvent::Kind::Result) == 2; });
    ASSERT_EQ(got.count(RunnerEvent::Kind::Hello), 1);
    ASSERT_TRUE(got.first(RunnerEvent::Kind::Hello)->hello);
    EXPECT_TRUE(got.first(RunnerEvent::Kind::Hello)->hello->gpu);
    ASSERT_EQ(got.count(RunnerEvent::Kind::Result), 2);
    EXPECT_EQ(got.count(RunnerEvent::Kind::Failed), 0);
    EXPECT_GE(got.count(RunnerEvent::Kind::Progress), 2);
    // Results come back in order, tied to their request.
    std::vector<uint64_t> order;
    for (const auto& e : got.all)
        if (e.kind == RunnerEvent::Kind::Result) order.push_back(e.request_id);
    EXPECT_EQ(order, (std::vector<uint64_t>{a, b}));
    ASSERT_TRUE(got.first(RunnerEvent::Kind::Result)->record);
    EXPECT_EQ(got.first(RunnerEvent::Kind::Result)->record->sizes.at("n"), 1024);
    pump(
        c, got, [&] { return !c.busy(); }, 2);
    EXPECT_FALSE(c.busy());
}

TEST(RunnerClient, KilledMidSweepRestartsAndFinishesTheRest) {
    RunnerClient c(fake({"--delay-ms", "150"}));
    Collected got;
    const int points = 6;
    for (int i = 0; i < points; ++i) c.submit(run_request(1024 << i));
    pump(c, got, [&] { return got.count(RunnerEvent::Kind::Result) >= 2; });
    pid_t first = c.pid();
    ASSERT_GT(first, 0);
    ASSERT_EQ(::kill(first, SIGKILL), 0);  // as a crash would
    pump(c, got, [&] { return got.count(RunnerEvent::Kind::Result) + got.count(RunnerEvent::Kind::Failed) >= points; });
    int results = got.count(RunnerEvent::Kind::Result), failed = got.count(RunnerEvent::Kind::Failed);
    EXPECT_EQ(results + failed, points);
    EXPECT_LE(failed, 1);  // at most the request the runner was killed in
    EXPECT_GE(got.count(RunnerEvent::Kind::Exited), 1);
    EXPECT_EQ(got.count(RunnerEvent::Kind::Hello), 2);  // a fresh runner said hello
    EXPECT_GE(c.restarts(), 1);
    EXPECT_NE(c.pid(), first);
    const RunnerEvent* exited = got.first(RunnerEvent::Kind::Exited);
    ASSERT_NE(exited, nullptr);
    EXPECT_NE(exited->message.find("signal 9"), std::string::npos) << exited->message;
}

TEST(RunnerClient, CrashWhileRunningIsReportedAndTheNextRequestWorks) {
    RunnerClient c(fake({"--crash-on-size", "1024", "--delay-ms", "10"}));
    Collected got;
    uint64_t a = c.submit(run_request(1024));
    uint64_t b = c.submit(run_request(2048));
    pump(c, got, [&] { return got.count(RunnerEvent::Kind::Result) + got.count(RunnerEvent::Kind::Failed) >= 2; });
    const RunnerEvent* f = got.first(RunnerEvent::Kind::Failed);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->request_id, a);
    EXPECT_NE(f->message.find("died"), std::string::npos) << f->message;
    const RunnerEvent* r = got.first(RunnerEvent::Kind::Result);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->request_id, b);  // a fresh runner answered the next request
    // What the dead runner said on stderr (abort) or how it ended is reported.
    const RunnerEvent* ex = got.first(RunnerEvent::Kind::Exited);
    ASSERT_NE(ex, nullptr);
    EXPECT_NE(ex->message.find("signal"), std::string::npos) << ex->message;
}

TEST(RunnerClient, HangPastTheTimeoutIsStopped) {
    RunnerClient c(fake({"--hang-on-size", "1024", "--delay-ms", "10"}, /*timeout_s=*/1.0));
    Collected got;
    auto t0 = Clock::now();
    c.submit(run_request(1024));
    c.submit(run_request(2048));
    pump(c, got, [&] { return got.count(RunnerEvent::Kind::Result) + got.count(RunnerEvent::Kind::Failed) >= 2; });
    double took = std::chrono::duration<double>(Clock::now() - t0).count();
    const RunnerEvent* f = got.first(RunnerEvent::Kind::Failed);
    ASSERT_NE(f, nullptr);
    EXPECT_NE(f->message.find("no reply within"), std::string::npos) << f->message;
    EXPECT_EQ(got.count(RunnerEvent::Kind::Result), 1);
    EXPECT_LT(took, 10.0);
}

TEST(RunnerClient, CancelDropsTheQueueAndStopsTheRunningRequest) {
    RunnerClient c(fake({"--delay-ms", "400"}));
    Collected got;
    for (int i = 0; i < 5; ++i) c.submit(run_request(1024));
    pump(c, got, [&] { return got.count(RunnerEvent::Kind::Result) >= 1; });
    c.cancel();
    pump(
        c, got, [&] { return !c.busy(); }, 5);
    EXPECT_FALSE(c.busy());
    int cancelled = 0;
    for (const auto& e : got.all) cancelled += e.kind == RunnerEvent::Kind::Failed && e.message == "cancelled";
    EXPECT_GE(cancelled, 3);
    EXPECT_EQ(got.count(RunnerEvent::Kind::Result) + cancelled, 5);
    // The client still works after a cancel.
    c.submit(run_request(1024));
    pump(c, got, [&] { return got.count(RunnerEvent::Kind::Result) >= 2; });
    EXPECT_GE(got.count(RunnerEvent::Kind::Result), 2);
}

TEST(RunnerClient, MissingRunnerFailsEachRequestWithAReason) {
    RunnerOptions o;
    o.command = {"/nonexistent/kladder", "serve"};
    o.hello_timeout_s = 5;
    RunnerClient c(o);
    Collected got;
    c.submit(run_request(1024));
    pump(c, got, [&] { return got.count(RunnerEvent::Kind::Failed) >= 1; });
    const RunnerEvent* f = got.first(RunnerEvent::Kind::Failed);
    ASSERT_NE(f, nullptr);
    // posix_spawn reports the failed exec itself: the message names the program and the reason.
    EXPECT_NE(f->message.find("could not start the runner: /nonexistent/kladder: No such file"), std::string::npos)
        << f->message;
}

// The real runner on this machine: without a GPU it says why in its hello and refuses runs
// with that reason; with one it runs the rung.
TEST(RunnerClient, RealKladderServe) {
    RunnerOptions o;
    o.command = {KLADDER_EXE, "serve"};
    o.request_timeout_s = 120;
    RunnerClient c(o);
    Collected got;
    c.submit(run_request(1 << 16));
    kl::RunRequest bad;
    bad.ladder = "elementwise";
    bad.rung = "vector_add";
    bad.params = {{"TPB", 48}};
    c.submit(bad);
    pump(
        c, got, [&] { return got.count(RunnerEvent::Kind::Result) + got.count(RunnerEvent::Kind::Failed) >= 2; }, 150);
    const RunnerEvent* hello = got.first(RunnerEvent::Kind::Hello);
    ASSERT_NE(hello, nullptr);
    ASSERT_TRUE(hello->hello);
    bool gpu = hello->hello->gpu;
    std::vector<std::string> failures;
    for (const auto& e : got.all)
        if (e.kind == RunnerEvent::Kind::Failed) failures.push_back(e.message);
    if (!gpu) {
        EXPECT_FALSE(hello->hello->reason.empty());
        ASSERT_EQ(failures.size(), 2u);
        EXPECT_NE(failures[0].find("no GPU"), std::string::npos) << failures[0];
    } else {
        ASSERT_EQ(failures.size(), 1u);
        const RunnerEvent* r = got.first(RunnerEvent::Kind::Result);
        ASSERT_NE(r, nullptr);
        ASSERT_TRUE(r->record);
        EXPECT_TRUE(r->record->error.empty()) << r->record->error;
    }
    // A value the manifest does not allow is refused before any GPU work, GPU or not.
    EXPECT_NE(failures.back().find("TPB=48"), std::string::npos) << failures.back();
}

// Counters from the GUI: the request carries options.counters only when asked for, the runner
// sees it (the fake runner echoes it in counters_note), and the real `kladder serve` reads the
// field before it touches the GPU (a wrong type is refused naming it; on a machine without a GPU
// a valid one gets the no-GPU reply, not an input error).
TEST(RunRequest, CountersFieldIsEncodedOnlyWhenAsked) {
    kl::RunRequest r;
    r.ladder = "elementwise";
    r.rung = "vector_add";
    r.dtype = kl::DType::F32;
    r.sizes = {{"n", 4096}};
    r.params = {{"TPB", 256}};
    nlohmann::json plain = nlohmann::json::parse(kl::encode_line(r));
    EXPECT_EQ(plain["type"], "run");
    EXPECT_EQ(plain["sizes"]["n"], 4096);
    EXPECT_EQ(plain["params"]["TPB"], 256);
    EXPECT_FALSE(plain["options"].contains("counters")) << plain.dump();
    EXPECT_FALSE(plain["options"].contains("warmup")) << plain.dump();
    r.counters = true;
    r.warmup = 0;
    r.cold_l2 = false;
    nlohmann::json asked = nlohmann::json::parse(kl::encode_line(r));
    EXPECT_EQ(asked["options"]["counters"], true) << asked.dump();
    EXPECT_EQ(asked["options"]["warmup"], 0);
    EXPECT_EQ(asked["options"]["cold_l2"], false);
}

TEST(RunRequest, CountersReachTheFakeRunner) {
    RunnerClient c(fake({"--delay-ms", "5"}));
    Collected got;
    kl::RunRequest r = run_request(1024);
    uint64_t without = c.submit(r);
    r.counters = true;
    uint64_t with = c.submit(r);
    pump(c, got, [&] { return got.count(RunnerEvent::Kind::Result) == 2; });
    ASSERT_EQ(got.count(RunnerEvent::Kind::Result), 2);
    for (const auto& e : got.all) {
        if (e.kind != RunnerEvent::Kind::Result) continue;
        ASSERT_TRUE(e.record);
        std::string note = e.record->counters_note;
        if (e.request_id == with) { EXPECT_NE(note.find("counters asked for"), std::string::npos) << note; }
        if (e.request_id == without) { EXPECT_EQ(note.find("counters asked for"), std::string::npos) << note; }
    }
}

TEST(RunRequest, RealKladderServeReadsTheCountersField) {
    RunnerOptions o;
    o.command = {KLADDER_EXE, "serve"};
    o.request_timeout_s = 120;
    RunnerClient c(o);
    Collected got;
    kl::RunRequest r = run_request(1 << 12);
    r.counters = true;
    uint64_t good = c.submit(r);
    pump(
        c, got, [&] { return got.count(RunnerEvent::Kind::Result) + got.count(RunnerEvent::Kind::Failed) >= 1; }, 150);
    const RunnerEvent* hello = got.first(RunnerEvent::Kind::Hello);
    ASSERT_NE(hello, nullptr);
    ASSERT_TRUE(hello->hello);
    if (!hello->hello->gpu) {
        std::string second;
        for (const auto& e : got.all)
            if (e.kind == RunnerEvent::Kind::Failed && e.request_id == good) second = e.message;
        EXPECT_NE(second.find("no GPU"), std::string::npos) << second;
    } else {
        // With a GPU the run happens and its record says how the counters went.
        bool seen = false;
        for (const auto& e : got.all)
            if (e.kind == RunnerEvent::Kind::Result && e.request_id == good) {
                seen = true;
                ASSERT_TRUE(e.record);
                EXPECT_EQ(e.record->counters_note.find("not collected"), std::string::npos) << e.record->counters_note;
            }
        EXPECT_TRUE(seen);
    }
}

// A runner from another build (protocol 1) is refused in one line naming both versions; the
// request fails with that line and no runner is started again for the next one.
TEST(RunnerClient, AnotherProtocolVersionIsRefusedInOneLine) {
    RunnerClient c(fake({"--protocol", "1", "--delay-ms", "5"}));
    Collected got;
    uint64_t a = c.submit(run_request(1024));
    pump(c, got, [&] { return got.count(RunnerEvent::Kind::Failed) >= 1; });
    const RunnerEvent* inc = got.first(RunnerEvent::Kind::Incompatible);
    ASSERT_NE(inc, nullptr);
    EXPECT_NE(inc->message.find("protocol 1"), std::string::npos) << inc->message;
    EXPECT_NE(inc->message.find("protocol " + std::to_string(kl::kServeProtocol)), std::string::npos) << inc->message;
    EXPECT_EQ(inc->message.find('\n'), std::string::npos) << inc->message;
    const RunnerEvent* f = got.first(RunnerEvent::Kind::Failed);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->request_id, a);
    EXPECT_EQ(f->message, inc->message);
    EXPECT_EQ(got.count(RunnerEvent::Kind::Hello), 0);
    uint64_t b = c.submit(run_request(2048));
    pump(c, got, [&] { return got.count(RunnerEvent::Kind::Failed) >= 2; });
    EXPECT_EQ(got.count(RunnerEvent::Kind::Result), 0);
    EXPECT_EQ(got.count(RunnerEvent::Kind::Incompatible), 1);
    EXPECT_EQ(c.restarts(), 0);
    EXPECT_EQ(got.all.back().request_id, b);
}

// [stopwatch] The window's stopwatch reaches the runner in its environment (KL_STOPWATCH over the
// window's own), the runner's hello says what it times with, and its records say it per figure.
TEST(RunnerEnvironment, OverridesReplaceTheWindowsOwnAndAddTheRest) {
    const char* base[] = {"PATH=/bin", "KL_STOPWATCH=events", "HOME=/h", "ODD", nullptr};
    const std::vector<std::string> env = child_environment(base, {{"KL_STOPWATCH", "span"}, {"KL_X", "1"}});
    EXPECT_EQ(env, (std::vector<std::string>{"PATH=/bin", "HOME=/h", "ODD", "KL_STOPWATCH=span", "KL_X=1"}));
    EXPECT_EQ(child_environment(base, {}).size(), 4u);
}

TEST(RunnerClient, TheStopwatchAskedForReachesTheRunnerAndComesBackNamed) {
    RunnerOptions o = fake({"--delay-ms", "5"});
    o.environment["KL_STOPWATCH"] = "span";
    RunnerClient c(o);
    Collected got;
    c.submit(run_request(1024));
    pump(c, got, [&] { return got.count(RunnerEvent::Kind::Result) >= 1; });
    const RunnerEvent* hello = got.first(RunnerEvent::Kind::Hello);
    ASSERT_NE(hello, nullptr);
    EXPECT_EQ(hello->hello->stopwatch, "span");
    const RunnerEvent* r = got.first(RunnerEvent::Kind::Result);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->record->stopwatch, "span");
    EXPECT_GT(r->record->event_median_ms, 0);
}

// [hold] A run of several rungs with a peer among them: the batch reaches the runner and the hold
// it shared comes back with each result; a run without a batch gets none.
TEST(RunnerClient, ABatchWithAPeerComesBackWithItsSharedHold) {
    RunnerClient c(fake({"--delay-ms", "5"}));
    Collected got;
    kl::RunRequest batched = run_request(1024);
    batched.batch = kl::RunBatch{1, {{"vector_add", {}, {{"n", 1024}}}, {"torch_add", {}, {{"n", 1024}}}}};
    c.submit(batched);
    c.submit(run_request(1024));
    pump(c, got, [&] { return got.count(RunnerEvent::Kind::Result) >= 2; });
    std::vector<const RunnerEvent*> results;
    for (const auto& e : got.all)
        if (e.kind == RunnerEvent::Kind::Result) results.push_back(&e);
    ASSERT_EQ(results.size(), 2u);
    ASSERT_TRUE(results[0]->hold);
    EXPECT_EQ(kl::batch_hold_line(*results[0]->hold), "one hold for every rung of this run: 300 us, set by torch_add");
    EXPECT_FALSE(results[1]->hold);
}

// [stopwatch] The real `kladder serve` reads the stopwatch from the environment the window gives it
// and says it in its hello, GPU or not (on a GPU it calibrates with that stopwatch first).
TEST(RunnerClient, RealKladderServeSaysTheStopwatchItWasGiven) {
    RunnerOptions o;
    o.command = {KLADDER_EXE, "serve"};
    o.environment["KL_STOPWATCH"] = "span";
    RunnerClient c(o);
    Collected got;
    c.start();
    pump(
        c, got, [&] { return got.count(RunnerEvent::Kind::Hello) >= 1; }, 200);
    const RunnerEvent* hello = got.first(RunnerEvent::Kind::Hello);
    ASSERT_NE(hello, nullptr);
    EXPECT_EQ(hello->hello->stopwatch, "span");
}
