// The runner protocol (model/serve_protocol.h) and "run and record" without a GPU (run_plan.h):
// every message survives its round trip through its one JSON encoding, a runner of another
// protocol version is refused in one line naming both versions, malformed lines are answered
// with one line naming the field, a run is resolved once (with its constraints), and every
// failure maps to one error kind and one exit code.
#include <gtest/gtest.h>

#include "base/errors.h"
#include "model/manifest_load.h"
#include "model/run_plan.h"
#include "model/serve_protocol.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_serve_protocol {

using nlohmann::json;

namespace {

kl::RunRequest full_request() {
    kl::RunRequest r;
    r.id = 42;
    r.ladder = "matmul";
    r.rung = "tiled";
    r.sizes = {{"M", 4096}, {"N", 2048}, {"K", 1024}};
    r.params = {{"BM", 64}, {"BN", 128}};
    r.dtype = kl::DType::BF16;
    r.warmup = 0;
    r.reps = 7;
    r.cold_l2 = false;
    r.check = false;
    r.seed = 18446744073709551615ull;  // the whole uint64 range survives
    r.counters = true;
    return r;
}

// The one line a request line is refused with ("" when it was accepted).
std::string refusal_of(const std::string& line) {
    kl::DecodedRequest d = kl::decode_request_line(line);
    EXPECT_EQ(d.request.has_value(), d.problem.empty()) << line;
    return d.problem;
}

std::string run_line(const std::string& extra) {
    return R"({"type":"run","id":3,"ladder":"elementwise","rung":"vector_add")" + extra + "}";
}

kl::RunRecord sample_record() {
    kl::RunRecord r;
    r.ladder = "elementwise";
    r.rung = "vector_add";
    r.title = "Vector add";
    r.params = {{"TPB", 128}};
    r.sizes = {{"n", 1 << 20}};
    kl::TimingStats t;
    t.median_ms = 0.5;
    t.min_ms = 0.4;
    t.max_ms = 0.7;
    t.mean_ms = 0.5;
    t.reps = 10;
    r.timing = t;
    r.values.set(kl::tag::ideal_bytes, 12.0 * (1 << 20));
    r.values.set(kl::tag::gbps, 25.1);
    r.values.set(kl::tag::pct_copy, 1.5);
    return r;
}

}  // namespace

// [SECTION] Round trips

TEST(ServeProtocol, RunRequestRoundTrips) {
    const kl::RunRequest r = full_request();
    kl::DecodedRequest d = kl::decode_request_line(kl::encode_line(r));
    ASSERT_TRUE(d.request) << d.problem;
    ASSERT_EQ(d.request->type, kl::Request::Type::Run);
    const kl::RunRequest& back = d.request->run;
    EXPECT_EQ(d.id, 42u);
    EXPECT_EQ(back.id, 42u);
    EXPECT_EQ(back.ladder, r.ladder);
    EXPECT_EQ(back.rung, r.rung);
    EXPECT_EQ(back.sizes, r.sizes);
    EXPECT_EQ(back.params, r.params);
    EXPECT_EQ(back.dtype, r.dtype);
    EXPECT_EQ(back.warmup, r.warmup);
    EXPECT_EQ(back.reps, r.reps);
    EXPECT_EQ(back.cold_l2, r.cold_l2);
    EXPECT_EQ(back.check, r.check);
    EXPECT_EQ(back.seed, r.seed);
    EXPECT_TRUE(back.counters);
}

TEST(ServeProtocol, UnsetOptionsStayUnsetAndKeepTheRunnersDefaults) {
    kl::RunRequest r;
    r.id = 1;
    r.ladder = "elementwise";
    r.rung = "vector_add";
    json j = json::parse(kl::encode_line(r));
    EXPECT_EQ(j["options"], json::object()) << j.dump();
    EXPECT_FALSE(j.contains("dtype")) << j.dump();
    kl::DecodedRequest d = kl::decode_request_line(j.dump());
    ASSERT_TRUE(d.request) << d.problem;
    const kl::RunOptions o = kl::run_options_of(d.request->run), defaults;
    EXPECT_FALSE(o.dtype);
    EXPECT_EQ(o.warmup, defaults.warmup);
    EXPECT_EQ(o.min_reps, defaults.min_reps);
    EXPECT_EQ(o.max_reps, defaults.max_reps);
    EXPECT_EQ(o.cold_l2, defaults.cold_l2);
    EXPECT_EQ(o.check, defaults.check);
    EXPECT_EQ(o.seed, defaults.seed);
    EXPECT_FALSE(o.counters);
    // Set ones reach the engine: reps fixes both ends of the repetition range.
    const kl::RunOptions set = kl::run_options_of(full_request());
    EXPECT_EQ(set.min_reps, 7);
    EXPECT_EQ(set.max_reps, 7);
    EXPECT_EQ(set.warmup, 0);
    EXPECT_FALSE(set.cold_l2);
    EXPECT_FALSE(set.check);
    EXPECT_TRUE(set.counters);
    EXPECT_EQ(set.dtype, kl::DType::BF16);
}

TEST(ServeProtocol, PingAndQuitRoundTrip) {
    kl::Request ping;
    ping.type = kl::Request::Type::Ping;
    ping.id = 8;
    kl::DecodedRequest d = kl::decode_request_line(kl::encode_line(ping));
    ASSERT_TRUE(d.request) << d.problem;
    EXPECT_EQ(d.request->type, kl::Request::Type::Ping);
    EXPECT_EQ(d.request->id, 8u);
    kl::Request quit;
    quit.type = kl::Request::Type::Quit;
    d = kl::decode_request_line(kl::encode_line(quit));
    ASSERT_TRUE(d.request) << d.problem;
    EXPECT_EQ(d.request->type, kl::Request::Type::Quit);
    EXPECT_FALSE(d.request->id);
}

TEST(ServeProtocol, HelloRoundTripsWithAndWithoutAGpu) {
    kl::Hello h;
    h.tool = "kladder 9.9.9";
    h.data_root = "/data";
    h.gpu = true;
    kl::DeviceInfo dev;
    dev.name = "NVIDIA H100 80GB HBM3";
    dev.cc_major = 9;
    dev.sm_count = 132;
    dev.l2_bytes = 52428800;
    dev.limits.max_threads_per_block = 768;
    dev.has_limits = true;
    h.device = dev;
    kl::Calibration cal;
    cal.copy_gbps = 2950;
    cal.sgemm_tflops = 51;
    cal.bf16_tflops = 700;
    h.calibration = cal;
    kl::RunnerLine l = kl::decode_runner_line(kl::encode_line(h));
    ASSERT_TRUE(l.hello) << l.problem;
    EXPECT_EQ(l.hello->protocol, kl::kServeProtocol);
    EXPECT_EQ(l.hello->tool, "kladder 9.9.9");
    EXPECT_EQ(l.hello->data_root, "/data");
    EXPECT_TRUE(l.hello->gpu);
    ASSERT_TRUE(l.hello->device);
    EXPECT_EQ(l.hello->device->name, dev.name);
    EXPECT_EQ(l.hello->device->arch(), "sm_90");
    EXPECT_EQ(l.hello->device->sm_count, 132);
    EXPECT_EQ(l.hello->device->l2_bytes, 52428800);
    EXPECT_TRUE(l.hello->device->has_limits);
    EXPECT_EQ(l.hello->device->limits.max_threads_per_block, 768);
    ASSERT_TRUE(l.hello->calibration);
    EXPECT_DOUBLE_EQ(l.hello->calibration->bf16_tflops, 700);

    kl::Hello none;
    none.tool = "kladder 9.9.9";
    none.reason = "no CUDA GPU found on this machine";
    l = kl::decode_runner_line(kl::encode_line(none));
    ASSERT_TRUE(l.hello) << l.problem;
    EXPECT_FALSE(l.hello->gpu);
    EXPECT_FALSE(l.hello->device);
    EXPECT_EQ(l.hello->reason, none.reason);
}

TEST(ServeProtocol, EveryRunEventRoundTrips) {
    kl::RunEvent progress;
    progress.type = kl::RunEvent::Type::Progress;
    progress.id = 7;
    progress.stage = "running";
    progress.label = "elementwise/vector_add TPB=128 n=1048576 fp32";
    kl::RunnerLine l = kl::decode_runner_line(kl::encode_line(progress));
    ASSERT_TRUE(l.event) << l.problem;
    EXPECT_EQ(l.event->type, kl::RunEvent::Type::Progress);
    EXPECT_EQ(l.event->id, 7u);
    EXPECT_EQ(l.event->label, progress.label);

    kl::RunEvent result;
    result.id = 7;
    result.record = sample_record();
    l = kl::decode_runner_line(kl::encode_line(result));
    ASSERT_TRUE(l.event) << l.problem;
    EXPECT_EQ(l.event->type, kl::RunEvent::Type::Result);
    EXPECT_EQ(l.event->record.rung, "vector_add");
    EXPECT_EQ(l.event->record.params, result.record.params);
    ASSERT_TRUE(l.event->record.timing);
    EXPECT_DOUBLE_EQ(l.event->record.timing->median_ms, 0.5);
    EXPECT_EQ(l.event->record.values.get(kl::tag::pct_copy), 1.5);
    EXPECT_TRUE(l.event->record.error.empty());

    kl::RunEvent error;
    error.type = kl::RunEvent::Type::Error;
    error.error_kind = "gpu";
    error.message = "no GPU: no CUDA GPU found";
    l = kl::decode_runner_line(kl::encode_line(error));
    ASSERT_TRUE(l.event) << l.problem;
    EXPECT_EQ(l.event->type, kl::RunEvent::Type::Error);
    EXPECT_FALSE(l.event->id);  // an error to a line whose id could not be read
    EXPECT_EQ(l.event->error_kind, "gpu");
    EXPECT_EQ(l.event->message, error.message);

    kl::RunEvent pong;
    pong.type = kl::RunEvent::Type::Pong;
    pong.id = 99;
    EXPECT_EQ(json::parse(kl::encode_line(pong)), json::parse(R"({"type":"pong","id":99})"));
    l = kl::decode_runner_line(kl::encode_line(pong));
    ASSERT_TRUE(l.event) << l.problem;
    EXPECT_EQ(l.event->type, kl::RunEvent::Type::Pong);
}

TEST(ServeProtocol, AFailedRecordKeepsItsErrorAcrossThePipe) {
    kl::RunEvent result;
    result.id = 5;
    result.record = sample_record();
    result.record.timing.reset();
    result.record.error_kind = "fault";
    result.record.error = "an illegal memory access was encountered";
    kl::RunnerLine l = kl::decode_runner_line(kl::encode_line(result));
    ASSERT_TRUE(l.event) << l.problem;
    EXPECT_EQ(l.event->record.error_kind, "fault");
    EXPECT_EQ(l.event->record.error, result.record.error);
}

// [SECTION] Versions

TEST(ServeProtocol, AHelloOfAnotherVersionIsRefusedInOneLineNamingBoth) {
    const std::string v1 = R"({"type":"hello","protocol":1,"tool":"kladder 0.1.0","gpu":true,"ladder_errors":[]})";
    kl::RunnerLine l = kl::decode_runner_line(v1);
    EXPECT_FALSE(l.hello);
    EXPECT_TRUE(l.version_mismatch);
    EXPECT_NE(l.problem.find("protocol 1"), std::string::npos) << l.problem;
    EXPECT_NE(l.problem.find("protocol " + std::to_string(kl::kServeProtocol)), std::string::npos) << l.problem;
    EXPECT_NE(l.problem.find("kladder 0.1.0"), std::string::npos) << l.problem;
    EXPECT_EQ(l.problem.find('\n'), std::string::npos);
    // A newer runner is refused the same way, before its other fields are read.
    const std::string newer = std::to_string(kl::kServeProtocol + 1);
    l = kl::decode_runner_line(R"({"type":"hello","protocol":)" + newer +
                               R"(,"device":"a string in a newer version"})");
    EXPECT_TRUE(l.version_mismatch);
    EXPECT_NE(l.problem.find("protocol " + newer), std::string::npos) << l.problem;
}

TEST(ServeProtocol, AHelloWithoutAVersionOrWithABadFieldIsNamed) {
    kl::RunnerLine l = kl::decode_runner_line(R"({"type":"hello","gpu":false})");
    EXPECT_FALSE(l.hello);
    EXPECT_FALSE(l.version_mismatch);
    EXPECT_TRUE(l.bad_hello);
    EXPECT_NE(l.problem.find("protocol: missing"), std::string::npos) << l.problem;
    const std::string now = std::to_string(kl::kServeProtocol);
    l = kl::decode_runner_line(R"({"type":"hello","protocol":)" + now +
                               R"(,"gpu":true,"device":{"name":7,"sm_count":1}})");
    EXPECT_TRUE(l.bad_hello);
    EXPECT_NE(l.problem.find("device.name"), std::string::npos) << l.problem;
    l = kl::decode_runner_line(R"({"type":"hello","protocol":)" + now + R"(,"gpu":true})");
    EXPECT_TRUE(l.bad_hello);
    EXPECT_NE(l.problem.find("device: missing"), std::string::npos) << l.problem;
}

// [SECTION] Malformed lines

TEST(ServeProtocol, MalformedRequestLinesNameTheField) {
    EXPECT_NE(
        refusal_of(run_line(R"(,"options":{"reps":"x"})")).find("request field 'options.reps': expected an integer"),
        std::string::npos);
    EXPECT_NE(refusal_of(run_line(R"(,"options":{"reps":100001})")).find("'options.reps': 100001 is outside 0..100000"),
              std::string::npos);
    EXPECT_NE(refusal_of(run_line(R"(,"options":{"warmup":1.5})")).find("'options.warmup'"), std::string::npos);
    EXPECT_NE(
        refusal_of(run_line(R"(,"options":{"counters":"yes"})")).find("'options.counters': expected true or false"),
        std::string::npos);
    EXPECT_NE(refusal_of(run_line(R"(,"options":{"seed":-1})")).find("'options.seed'"), std::string::npos);
    EXPECT_NE(refusal_of(run_line(R"(,"options":7)")).find("'options': expected an object"), std::string::npos);
    EXPECT_NE(refusal_of(run_line(R"(,"sizes":{"n":1.5})")).find("'sizes.n': expected a 64-bit integer"),
              std::string::npos);
    EXPECT_NE(refusal_of(run_line(R"(,"sizes":{"n":18446744073709551615})")).find("'sizes.n'"), std::string::npos);
    EXPECT_NE(refusal_of(run_line(R"(,"params":[1])")).find("'params': expected an object"), std::string::npos);
    EXPECT_NE(refusal_of(run_line(R"(,"dtype":"fp64")")).find("'dtype': unknown type 'fp64'"), std::string::npos);
    EXPECT_NE(refusal_of(R"({"type":"run","id":1,"ladder":5})").find("'ladder': expected a string"), std::string::npos);
    EXPECT_NE(refusal_of(R"({"type":5,"id":1})").find("'type': expected a string"), std::string::npos);
    EXPECT_NE(refusal_of(R"({"type":"bogus","id":1})").find("unknown request type 'bogus'"), std::string::npos);
    EXPECT_NE(refusal_of(R"({"type":"ping","id":-1})").find("'id': expected a non-negative integer"),
              std::string::npos);
    EXPECT_NE(refusal_of("not json").find("not valid JSON"), std::string::npos);
    EXPECT_NE(refusal_of("[1,2]").find("not a JSON object"), std::string::npos);
    EXPECT_NE(refusal_of(std::string(100, '[') + std::string(100, ']')).find("nested deeper"), std::string::npos);
    EXPECT_EQ(refusal_of(run_line("")), "");
}

TEST(ServeProtocol, ARefusalKeepsTheIdItCouldRead) {
    kl::DecodedRequest d = kl::decode_request_line(run_line(R"(,"options":{"reps":"x"})"));
    EXPECT_FALSE(d.request);
    EXPECT_EQ(d.id, 3u);  // so that the error reply reaches request 3
    d = kl::decode_request_line(R"({"type":"run","id":"seven"})");
    EXPECT_FALSE(d.id);
}

TEST(ServeProtocol, MalformedRunnerRepliesNameTheFieldAndKeepTheId) {
    kl::RunnerLine l = kl::decode_runner_line(R"({"type":"result","id":4,"record":{"ladder":"x","rung":"y"}})");
    EXPECT_FALSE(l.event);
    EXPECT_EQ(l.id, 4u);
    EXPECT_NE(l.problem.find("runner reply: record.params: missing"), std::string::npos) << l.problem;
    l = kl::decode_runner_line(R"({"type":"result","id":4})");
    EXPECT_NE(l.problem.find("record: missing"), std::string::npos) << l.problem;
    l = kl::decode_runner_line(R"({"type":"surprise","id":4})");
    EXPECT_NE(l.problem.find("unknown reply type 'surprise'"), std::string::npos) << l.problem;
    l = kl::decode_runner_line("Segmentation fault");
    EXPECT_FALSE(l.id);
    EXPECT_NE(l.problem.find("not valid JSON"), std::string::npos) << l.problem;
}

// [SECTION] Run and record without a GPU

TEST(RunPlan, ResolvesOnceWithDefaultsOverridesAndConstraints) {
    TempTree t;
    t.write("kernels/tiny/01_one.cu", "extern \"C\" __global__ void one() {}\n");
    kl::Ladder L = kl::load_ladder(t.write("kernels/tiny/ladder.toml", kTinyLadderHead + R"TOML(
  [rung.params.TPB]
  default = 256
  values = [32, 64, 128, 256]
  [[rung.constraint]]
  expr = "TPB <= n"
  message = "a block larger than the problem"
  [[rung.launch]]
  entry = "one"
  grid = ["1"]
  block = ["TPB"]
  args = []
)TOML"));
    kl::RunOptions o;
    o.sizes = {{"n", 4096}};
    kl::ResolvedRun run = kl::resolve_run(L, L.rungs[0], o, 0);
    EXPECT_EQ(run.params, (kl::ParamValues{{"TPB", 256}}));
    EXPECT_EQ(run.problem.sizes.at("n"), 4096);
    EXPECT_EQ(run.label, "tiny/one TPB=256 n=4096 fp32");
    o.sizes = {{"n", 100}};
    EXPECT_NE(input_error_of([&] { kl::resolve_run(L, L.rungs[0], o, 0); }).find("a block larger than the problem"),
              std::string::npos);
    o.sizes = {};
    o.params = {{"TPB", 48}};
    EXPECT_NE(input_error_of([&] { kl::resolve_run(L, L.rungs[0], o, 0); }).find("TPB=48 is out of range"),
              std::string::npos);
    o.params = {};
    o.sizes = {{"m", 1}};
    EXPECT_NE(input_error_of([&] { kl::resolve_run(L, L.rungs[0], o, 0); }).find("has no size axis 'm'"),
              std::string::npos);
}

TEST(RunPlan, EveryFailureHasOneKindAndOneExitCode) {
    TempTree t;
    std::vector<kl::Ladder> ladders = tiny_ladder_with_tpb(t);
    kl::RunOptions o;
    o.params = {{"TPB", 64}};
    const kl::ResolvedRun run = kl::resolve_run(ladders[0], ladders[0].rungs[0], o, 0);
    struct Case {
        const kl::Error& error;
        bool context_lost;
        const char* kind;
        kl::ExitCode code;
    };
    const kl::CompileError compile("tiny/one: NVRTC failed", "log");
    const kl::GpuError gpu("cudaMalloc: out of memory");
    const kl::InputError input("problem too large for GPU memory");
    for (const Case& c :
         {Case{compile, false, "compile", kl::ExitCode::BadInput}, Case{gpu, false, "gpu", kl::ExitCode::GpuError},
          Case{gpu, true, "fault", kl::ExitCode::GpuError}, Case{input, false, "input", kl::ExitCode::BadInput}}) {
        SCOPED_TRACE(c.kind);
        EXPECT_EQ(kl::error_kind_of(c.error, c.context_lost), c.kind);
        kl::RunRecord rec = kl::failed_record(run, c.error, c.context_lost);
        EXPECT_EQ(rec.error_kind, c.kind);
        EXPECT_EQ(rec.error, c.error.what());
        EXPECT_EQ(kl::exit_code_of(rec), c.code);
        // The failure is shown where the result would have been: the resolved run is named.
        EXPECT_EQ(rec.ladder, "tiny");
        EXPECT_EQ(rec.rung, "one");
        EXPECT_EQ(rec.title, "One");
        EXPECT_EQ(rec.params, (kl::ParamValues{{"TPB", 64}}));
        EXPECT_EQ(rec.sizes.at("n"), 1000);
        EXPECT_EQ(rec.dtype, kl::DType::F32);
        EXPECT_FALSE(rec.timing);
    }
    kl::RunRecord skipped = kl::skipped_record(run, "needs sm_90 (Hopper)");
    EXPECT_EQ(skipped.error_kind, "skipped");
    EXPECT_EQ(kl::exit_code_of(skipped), kl::ExitCode::Ok);
    kl::RunRecord ran = kl::identity_record(run);
    EXPECT_EQ(kl::exit_code_of(ran), kl::ExitCode::Ok);
    ran.correctness = kl::Correctness{};
    ran.correctness->passed = false;
    EXPECT_EQ(kl::exit_code_of(ran), kl::ExitCode::Incorrect);
}

// Version 3: a result of a rung that did not compile carries NVRTC's log, parsed, so that the
// window's editor can put each message at its line.
TEST(ServeProtocol, ResultCarriesCompileDiagnosticsBothWays) {
    kl::RunEvent e;
    e.type = kl::RunEvent::Type::Result;
    e.id = 9;
    e.record.ladder = "elementwise";
    e.record.rung = "mine_vector_add";
    e.record.error_kind = "compile";
    e.record.error = "kernel elementwise/mine_vector_add failed to compile";
    e.diagnostics.push_back({"/ws/elementwise/mine_vector_add.cu", 4, 37, kl::Severity::Error, "identifier"});
    e.diagnostics.push_back({"/ws/elementwise/mine_vector_add.cu", 3, 9, kl::Severity::Warning, "unused"});
    const std::string line = kl::encode_line(e);
    kl::RunnerLine l = kl::decode_runner_line(line);
    ASSERT_TRUE(l.event) << l.problem;
    EXPECT_EQ(l.event->diagnostics, e.diagnostics);
    // A result without diagnostics says nothing about them (what version 2 sent).
    e.diagnostics.clear();
    EXPECT_EQ(kl::encode_line(e).find("diagnostics"), std::string::npos);
    // A malformed entry is named.
    std::string bad = line;
    bad.replace(bad.find("\"severity\":\"error\""), 18, "\"severity\":\"fatal\"");
    l = kl::decode_runner_line(bad);
    EXPECT_FALSE(l.event);
    EXPECT_NE(l.problem.find("diagnostics[0].severity"), std::string::npos) << l.problem;
}

}  // namespace kl_test_serve_protocol
