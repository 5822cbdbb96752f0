// A test double of `kladder serve` (protocol: model/serve_protocol.h, whose encoders and
// decoders it uses, so it always speaks the current version unless told otherwise) for the
// GUI's runner tests on machines without a GPU. It says it has a device, answers run requests
// after a delay with records whose numbers are made up from the request (marked "fake runner"
// in the device name and in every record's model note, so they can never pass for
// measurements), and can crash or hang on a chosen request. A request with options.counters
// gets a counters_note that says counters were asked for (and none read).
//
// A learner's rung (model/workspace.h) is compiled for real with NVRTC (no GPU needed) before the
// made-up numbers, so that a compile error comes back as the real runner's record would carry it
// (error_kind "compile", NVRTC's first message naming the learner's file and line) with the
// parsed diagnostics (protocol 3).
//
// [stopwatch] It times "with" KL_STOPWATCH as the real runner does (its hello and every record say
// so; a span record carries a made-up events median beside it); with --span-unavailable it plays a
// runner without CUPTI asked for the span: the hello's note and every record's say why, the
// records on the events.
// [hold] A request whose batch holds two or more runs, one of a rung named torch_*, gets a made-up
// shared hold set by that rung in its result, as `kladder serve` answers (gpu/shared_hold.h).
//
// A request of a whole-ladder run (options.skip_unfit) is resolved by the engine as the real
// runner resolves it: a rung that cannot take the sizes is answered with its skipped record.
//
//   fake_runner [--delay-ms N] [--crash-on-size N] [--hang-on-size N] [--no-gpu] [--protocol N]
//               [--fault-on-rung ID] [--die-once-on-request N MARKER]
//     --fault-on-rung ID  answer a run of rung ID with a "fault" record (a trap), then exit as the
//                         real runner does after its CUDA context is lost
//     --crash-on-size N   abort() while handling a run request whose size n is N
//     --hang-on-size N    never answer a run request whose size n is N
//     --protocol N        say hello with protocol version N (a runner from another build)
//     --span-unavailable  KL_STOPWATCH=span cannot be taken (no CUPTI): said, and the events time
//     --die-once-on-request N MARKER
//                         SIGKILL itself while its Nth run request is in flight (after the
//                         "running" progress line), unless the file MARKER exists, which it
//                         creates first: one death per test, the request in flight by construction
//                         (a kill from the window's side races the runner's replies under load)
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include "base/errors.h"
#include "base/paths.h"
#include "gpu/compiler.h"
#include "model/compile_diagnostics.h"
#include "model/manifest.h"
#include "model/manifest_load.h"
#include "model/results.h"
#include "model/run_plan.h"
#include "model/serve_protocol.h"
#include "model/workspace.h"

namespace {

template <class Message>
void out(const Message& m) {
    std::string s = kl::encode_line(m);
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

bool g_span_unavailable = false;  // --span-unavailable
bool span_asked() {
    const char* v = std::getenv("KL_STOPWATCH");
    return v && std::string(v) == "span";
}

// Made-up numbers from the request: 4 ns per element, never a measurement.
kl::RunRecord fake_record(const kl::RunRequest& req) {
    kl::RunRecord r;
    r.ladder = req.ladder;
    r.rung = req.rung;
    r.title = r.rung;
    r.dtype = req.dtype.value_or(kl::DType::F32);
    r.sizes = req.sizes;
    r.params = req.params;
    double n = 1;
    for (const auto& [k, v] : r.sizes) n *= double(v);
    kl::TimingStats t;
    t.median_ms = 0.001 + n * 4e-9;
    t.min_ms = t.median_ms * 0.98;
    t.max_ms = t.median_ms * 1.05;
    t.mean_ms = t.median_ms;
    t.reps = 10;
    r.timing = t;
    r.values.set(kl::tag::ideal_bytes, 12 * n);
    r.values.set(kl::tag::flops, n);
    r.values.set(kl::tag::gbps, r.values.num(kl::tag::ideal_bytes) / (t.median_ms * 1e-3) / 1e9);
    r.values.set(kl::tag::tflops, r.values.num(kl::tag::flops) / (t.median_ms * 1e-3) / 1e12);
    r.model_note = "fake runner: not a measurement";
    if (span_asked() && !g_span_unavailable) {  // [stopwatch]
        r.stopwatch = "span";
        r.event_median_ms = t.median_ms * 1.03;
    } else if (span_asked()) {
        r.stopwatch = "events";
        r.stopwatch_note = "span not taken: CUPTI not found (fake runner)";
    }
    // Says whether the request asked for counters, so that tests see the field arrive.
    if (req.counters) r.counters_note = "fake runner: counters asked for, none read (test double)";
    return r;
}

// The learner's rung compiled as the runner would (its defines, sm_90); nullopt when it compiled
// or the rung is not a learner's, else the failed record.
std::optional<kl::RunRecord> compile_learner_rung(const kl::RunRequest& req,
                                                  std::vector<kl::CompileDiagnostic>* diags) {
    try {
        kl::Ladder ladder = kl::load_ladder(kl::kernels_dir() + "/" + req.ladder + "/ladder.toml");
        std::string error;
        kl::merge_learner_rungs(ladder, kl::workspace_root(), &error);
        const kl::Rung* rung = ladder.find_rung(req.rung);
        if (!rung || !rung->learner) return std::nullopt;
        kl::RunOptions opt;
        opt.sizes = req.sizes;
        opt.params = req.params;
        opt.dtype = req.dtype;
        kl::ResolvedRun run = kl::resolve_run(ladder, *rung, opt, 0);
        kl::CompileRequest c;
        c.source_path = rung->source_path;
        c.defines = kl::compile_defines(*rung, run.params, run.problem.dtype);
        c.arch = kl::rung_arch(*rung, "sm_90");
        c.label = req.ladder + "/" + req.rung;
        try {
            kl::compile_kernel(c);
        } catch (const kl::Error& e) {
            // As `kladder serve` answers: NVRTC's log parsed, the file named by its full path.
            if (auto* ce = dynamic_cast<const kl::CompileError*>(&e))
                *diags = kl::diagnostics_of_compile(ce->log(), rung->source_path);
            return kl::failed_record(run, e, false);
        }
    } catch (const kl::Error& e) {
        kl::RunRecord r;
        r.ladder = req.ladder;
        r.rung = req.rung;
        r.error_kind = "input";
        r.error = e.what();
        return r;
    }
    return std::nullopt;
}

// As `kladder serve` answers a request of a whole-ladder run (options.skip_unfit): the engine's
// resolution of the rung, so that a rung that cannot take the sizes comes back as the real
// runner's skipped record. nullopt when the rung takes them; a request the engine refuses
// outright gets the runner's "input" error reply.
std::optional<kl::RunEvent> skip_if_unfit(const kl::RunRequest& req) {
    if (!req.skip_unfit) return std::nullopt;
    kl::RunEvent reply;
    reply.id = req.id;
    try {
        kl::Ladder ladder = kl::load_ladder(kl::kernels_dir() + "/" + req.ladder + "/ladder.toml");
        const kl::Rung* rung = ladder.find_rung(req.rung);
        if (!rung) throw kl::InputError("ladder " + ladder.id + " has no rung '" + req.rung + "'");
        kl::LadderRung lr = kl::resolve_ladder_rung(ladder, *rung, kl::run_options_of(req), 132);
        if (lr.unfit.empty()) return std::nullopt;
        reply.type = kl::RunEvent::Type::Result;
        reply.record = kl::skipped_record(lr.run, lr.unfit);
    } catch (const kl::Error& e) {
        reply.type = kl::RunEvent::Type::Error;
        reply.error_kind = "input";
        reply.message = e.what();
    }
    return reply;
}

}  // namespace

int main(int argc, char** argv) {
    int delay_ms = 100, protocol = kl::kServeProtocol;
    long long crash_on = -1, hang_on = -1;
    bool gpu = true;
    std::string fault_rung, die_marker;
    long long die_on_request = -1, run_requests = 0;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--delay-ms" && i + 1 < argc)
            delay_ms = std::atoi(argv[++i]);
        else if (a == "--crash-on-size" && i + 1 < argc)
            crash_on = std::atoll(argv[++i]);
        else if (a == "--hang-on-size" && i + 1 < argc)
            hang_on = std::atoll(argv[++i]);
        else if (a == "--protocol" && i + 1 < argc)
            protocol = std::atoi(argv[++i]);
        else if (a == "--fault-on-rung" && i + 1 < argc)
            fault_rung = argv[++i];
        else if (a == "--die-once-on-request" && i + 2 < argc) {
            die_on_request = std::atoll(argv[++i]);
            die_marker = argv[++i];
        } else if (a == "--no-gpu")
            gpu = false;
        else if (a == "--span-unavailable")
            g_span_unavailable = true;
    }
    kl::Hello hello;
    hello.protocol = protocol;
    hello.tool = "fake_runner (test double)";
    hello.gpu = gpu;
    if (gpu) {
        kl::DeviceInfo d;
        d.name = "fake runner (test double, no GPU)";
        d.cc_major = 9;
        d.sm_count = 132;
        hello.device = d;
    } else {
        hello.reason = "fake runner started with --no-gpu";
    }
    if (span_asked()) {  // [stopwatch] the hello says what the runner was asked for, and why it cannot
        hello.stopwatch = "span";
        if (g_span_unavailable)
            hello.stopwatch_note =
                "the span cannot be taken here (CUPTI not found, fake runner): CUDA events time the runs";
    }
    out(hello);
    std::string line;
    while (std::getline(std::cin, line)) {
        kl::DecodedRequest d = kl::decode_request_line(line);
        if (!d.request) continue;
        const kl::Request& req = *d.request;
        if (req.type == kl::Request::Type::Quit) break;
        kl::RunEvent reply;
        reply.id = req.id;
        if (req.type == kl::Request::Type::Ping) {
            reply.type = kl::RunEvent::Type::Pong;
            out(reply);
            continue;
        }
        if (auto skipped = skip_if_unfit(req.run)) {
            out(*skipped);
            continue;
        }
        auto n = req.run.sizes.find("n");
        const long long n_size = n != req.run.sizes.end() ? n->second : -2;
        reply.type = kl::RunEvent::Type::Progress;
        reply.stage = "running";
        reply.label = req.run.rung;
        out(reply);
        if (n_size == crash_on) std::abort();
        if (++run_requests == die_on_request && !die_marker.empty()) {
            if (std::FILE* f = std::fopen(die_marker.c_str(), "wx")) {  // "x": only the first runner dies
                std::fclose(f);
                std::fflush(stdout);
                ::raise(SIGKILL);
            }
        }
        if (n_size == hang_on) {
            for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
        }
        if (!gpu) {
            reply.type = kl::RunEvent::Type::Error;
            reply.error_kind = "gpu";
            reply.message = "no GPU: fake runner";
            out(reply);
            continue;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        reply.type = kl::RunEvent::Type::Result;
        if (auto failed = compile_learner_rung(req.run, &reply.diagnostics)) {
            reply.record = *failed;
        } else if (req.run.rung == fault_rung) {
            reply.record = fake_record(req.run);
            reply.record.timing.reset();
            reply.record.error_kind = "fault";
            reply.record.error = "cudaErrorLaunchFailure: unspecified launch failure (fake runner: a trap)";
            out(reply);
            return 1;  // the real runner leaves after a lost context
        } else {
            reply.record = fake_record(req.run);
        }
        if (const auto& b = req.run.batch; b && b->runs.size() >= 2)  // [hold]
            for (const kl::BatchRun& run : b->runs)
                if (run.rung.rfind("torch_", 0) == 0) {
                    reply.hold = kl::BatchHold{300, run.rung};
                    break;
                }
        out(reply);
    }
    return 0;
}
