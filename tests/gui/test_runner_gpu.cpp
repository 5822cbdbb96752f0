// GPU tests (label gpu) of the runner isolation the GUI relies on, with the real `kladder serve`
// and a test ladder (tests/gui/data/kernels/trap): a rung that traps is reported as a fault and
// a fresh runner carries on; a runner killed mid-sweep is replaced and the sweep finishes; a
// rung that hangs is stopped by the time-out. Skipped, with the runner's reason, without a GPU.
//
// Links only the runner client and the engine (no md4c, no GL): it runs on the GPU machine from a
// build folder made on a development machine.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "gui/runner_client.h"

namespace fs = std::filesystem;
using namespace kl::gui;
using Clock = std::chrono::steady_clock;

namespace {

fs::path exe_dir() { return fs::read_symlink("/proc/self/exe").parent_path(); }

// The checkout: the first ancestor of this test holding tests/gui/data (the build folder sits in
// it, here and on the GPU machine), else the source folder it was configured from.
fs::path checkout() {
    for (fs::path p = exe_dir(); !p.empty() && p != p.root_path(); p = p.parent_path())
        if (fs::exists(p / "tests/gui/data/kernels/trap/ladder.toml") && fs::exists(p / "kernels/common")) return p;
    return KL_SOURCE_DIR;
}

fs::path kladder() {
    if (const char* env = std::getenv("KLADDER_EXE"); env && *env) return env;  // e.g. a packed kladder-core
    fs::path near = exe_dir().parent_path().parent_path() / "app/cli/kladder";  // <build>/tests/gui -> <build>/app/cli
    return fs::exists(near) ? near : fs::path(KLADDER_EXE);
}

// A data root with copies of the test ladder and the checkout's helper and reference kernels.
fs::path make_root() {
    fs::path root = fs::temp_directory_path() / ("kl_gpu_root_" + std::to_string(::getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "kernels");
    fs::create_directories(root / "lessons");
    fs::path src = checkout();
    // Copies, not links: the workbook refuses a source or header whose real path leaves the
    // data root (docs/security.md), as a shared tree's links out of it are.
    const auto recursive = fs::copy_options::recursive;
    fs::copy(src / "kernels/common", root / "kernels/common", recursive);
    fs::copy(src / "kernels/elementwise", root / "kernels/elementwise", recursive);
    fs::copy(src / "tests/gui/data/kernels/trap", root / "kernels/trap", recursive);
    return root;
}

kl::RunRequest run(const std::string& ladder, const std::string& rung, int64_t n) {
    kl::RunRequest r;
    r.ladder = ladder;
    r.rung = rung;
    r.sizes = {{"n", n}};
    r.dtype = kl::DType::F32;
    return r;
}

// The error a result carries ("" when the rung ran): what the record says, in one line.
std::string error_of(const RunnerEvent* e) { return e->record ? e->record->error : "no record"; }

struct Events {
    std::vector<RunnerEvent> all;
    int count(RunnerEvent::Kind k) const {
        int n = 0;
        for (const auto& e : all) n += e.kind == k;
        return n;
    }
    std::vector<const RunnerEvent*> of(RunnerEvent::Kind k) const {
        std::vector<const RunnerEvent*> v;
        for (const auto& e : all)
            if (e.kind == k) v.push_back(&e);
        return v;
    }
    int answered() const { return count(RunnerEvent::Kind::Result) + count(RunnerEvent::Kind::Failed); }
};

template <class Pred>
void pump(RunnerClient& c, Events& ev, Pred done, double seconds) {
    auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < deadline) {
        for (auto& e : c.poll()) {
            if (e.kind == RunnerEvent::Kind::Log) std::fprintf(stderr, "  runner: %s\n", e.message.c_str());
            ev.all.push_back(std::move(e));
        }
        if (done()) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

class RunnerGpu : public ::testing::Test {
  protected:
    void SetUp() override {
        root_ = make_root();
        setenv("KLADDER_ROOT", root_.c_str(), 1);
        RunnerOptions o;
        o.command = {kladder().string(), "serve"};
        o.request_timeout_s = 60;
        options_ = o;
        // Ask a runner whether there is a GPU at all.
        RunnerClient probe(o);
        probe.start();
        Events ev;
        pump(
            probe, ev, [&] { return ev.count(RunnerEvent::Kind::Hello) > 0; }, 180);
        auto hellos = ev.of(RunnerEvent::Kind::Hello);
        ASSERT_FALSE(hellos.empty()) << "kladder serve did not say hello";
        ASSERT_TRUE(hellos[0]->hello);
        if (!hellos[0]->hello->gpu) GTEST_SKIP() << "no GPU: " << hellos[0]->hello->reason;
    }
    void TearDown() override { fs::remove_all(root_); }
    fs::path root_;
    RunnerOptions options_;
};

}  // namespace

TEST_F(RunnerGpu, TrapIsReportedAndAFreshRunnerCarriesOn) {
    RunnerClient c(options_);
    Events ev;
    c.submit(run("trap", "ok", 1 << 20));
    c.submit(run("trap", "trap", 1 << 20));
    c.submit(run("trap", "ok", 1 << 20));
    pump(
        c, ev, [&] { return ev.answered() >= 3; }, 240);
    auto results = ev.of(RunnerEvent::Kind::Result);
    ASSERT_EQ(results.size(), 3u) << "failures: " << ev.count(RunnerEvent::Kind::Failed);
    EXPECT_EQ(error_of(results[0]), "");
    ASSERT_TRUE(results[1]->record);
    EXPECT_EQ(results[1]->record->error_kind, "fault") << results[1]->record->error;
    EXPECT_EQ(error_of(results[2]), "");
    EXPECT_GE(ev.count(RunnerEvent::Kind::Exited), 1);  // the faulted runner left
    EXPECT_EQ(ev.count(RunnerEvent::Kind::Hello), 2);   // and a fresh one said hello
}

TEST_F(RunnerGpu, KilledMidSweepIsReplacedAndTheSweepFinishes) {
    RunnerClient c(options_);
    Events ev;
    const int points = 8;
    for (int i = 0; i < points; ++i) c.submit(run("trap", "ok", int64_t(1) << (18 + i)));
    pump(
        c, ev, [&] { return ev.count(RunnerEvent::Kind::Result) >= 2; }, 240);
    ASSERT_GT(c.pid(), 0);
    ::kill(c.pid(), SIGKILL);
    pump(
        c, ev, [&] { return ev.answered() >= points; }, 240);
    EXPECT_EQ(ev.answered(), points);
    EXPECT_LE(ev.count(RunnerEvent::Kind::Failed), 1);
    EXPECT_GE(ev.count(RunnerEvent::Kind::Hello), 2);
    for (const auto* r : ev.of(RunnerEvent::Kind::Result)) EXPECT_EQ(error_of(r), "");
}

TEST_F(RunnerGpu, HangIsStoppedByTheTimeOut) {
    RunnerOptions o = options_;
    o.request_timeout_s = 15;  // compile + inputs + reference take a few seconds; the hang never ends
    RunnerClient c(o);
    Events ev;
    c.submit(run("trap", "hang", 1 << 20));
    c.submit(run("trap", "ok", 1 << 20));
    pump(
        c, ev, [&] { return ev.answered() >= 2; }, 240);
    auto failed = ev.of(RunnerEvent::Kind::Failed);
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_NE(failed[0]->message.find("no reply within"), std::string::npos) << failed[0]->message;
    auto results = ev.of(RunnerEvent::Kind::Result);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(error_of(results[0]), "");
}
