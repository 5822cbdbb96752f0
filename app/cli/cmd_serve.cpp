// `kladder serve`: the GPU runner process of the window. The protocol (messages, versions) is
// documented and encoded in model/serve_protocol.h; this file is the loop that answers it.
// [SECTION] index: output channel / ladders / run requests / serve loop / command
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "base/errors.h"
#include "base/paths.h"
#include "base/printable.h"
#include "base/version.h"
#include "cli_common.h"
#include "commands.h"
#include "gpu/calibration.h"
#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "gpu/shared_hold.h"
#include "gpu/span_stopwatch.h"
#include "model/device_profile.h"
#include "model/manifest_load.h"
#include "model/serve_protocol.h"
#include "model/tuned_store.h"
#include "model/workspace.h"
#include "serve.h"

namespace kl::cli {

namespace {

namespace fs = std::filesystem;

// [SECTION] Output channel

// The protocol channel: the original stdout. fd 1 itself is pointed at stderr, so that a stray
// print from any library cannot corrupt the stream of replies.
FILE*& protocol_out() {
    static FILE* out = stdout;
    return out;
}

void take_over_stdout() {
    std::fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    if (fd < 0) return;  // keep using stdout as it is
    FILE* f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        return;
    }
    dup2(STDERR_FILENO, STDOUT_FILENO);
    protocol_out() = f;
}

// One reply per line, flushed at once: the window reads line by line and must never wait for a
// buffer to fill.
template <class Message>
void reply(const Message& m) {
    std::string line = encode_line(m);
    FILE* out = protocol_out();
    std::fwrite(line.data(), 1, line.size(), out);
    std::fputc('\n', out);
    std::fflush(out);
}

void reply_error(std::optional<uint64_t> id, const std::string& kind, const std::string& message) {
    RunEvent e;
    e.type = RunEvent::Type::Error;
    e.id = id;
    e.error_kind = kind;
    e.message = message;
    reply(e);
}

// [SECTION] Ladders

// The one ladder a request names, read again for every request (a teacher editing a
// ladder.toml next to a running workbook sees the change without restarting anything), and only
// that one: kernels/<id>/ladder.toml, or, for a ladder whose folder has another name, the
// manifest that declares the id. Throws InputError naming the manifest's problem.
Ladder load_requested_ladder(const std::string& id) {
    const fs::path root = kernels_dir();
    std::error_code ec;
    const bool plain_id = !id.empty() && id.find_first_of("/\\") == std::string::npos && id != "." && id != "..";
    if (plain_id && fs::is_regular_file(root / id / "ladder.toml", ec)) {
        Ladder L = load_ladder((root / id / "ladder.toml").string());
        if (L.id == id) return L;
    }
    std::vector<std::string> errors;
    for (auto& L : load_all_ladders(root.string(), &errors))
        if (L.id == id) return std::move(L);
    for (const auto& e : errors)
        if (plain_id && e.find("/" + id + "/") != std::string::npos) throw InputError(e);
    throw InputError("unknown ladder '" + id + "'");
}

// [SECTION] Run requests

// [tuned] The request's options with the tuned settings for this GPU applied where they are valid,
// and the settings the record will carry; why the defaults run goes to stderr (the window's log).
// The store is read for every such request (`kladder tune` may have run since); a broken one is
// the request's input error.
RunOptions tuned_options(const ServeState& st, const Ladder& L, const Rung& rung, const RunRequest& req,
                         RunSettings& settings) {
    RunOptions asked = run_options_of(req);
    if (!req.tuned || !st.gpu) return asked;
    const TunedStore store = load_tuned_store(tuned_store_path());
    TunedChoice c = apply_tuned(store, tuned_device_of(st.gpu->device()), L, rung, asked, st.gpu->device().sm_count);
    if (!c.note.empty()) std::fprintf(stderr, "kladder serve: %s\n", printable(c.note, kMessageChars).c_str());
    settings = c.settings;
    return c.options;
}

// [hold] The one hold of the request's batch (a run of several rungs or points with PyTorch peers
// among them), learned once per batch id with gpu/shared_hold.h as `kladder run` does: each run of
// the batch resolved like its own request (one that cannot be resolved or take its sizes is left
// out; its own request says why). Each peer's probe is announced as progress (the window's
// time-out starts again). Nothing when the request has no batch or the batch needs no shared hold.
std::optional<BatchHold> batch_hold(ServeState& st, const Ladder& L, const RunRequest& req) {
    if (!req.batch || !st.runner) return std::nullopt;
    if (st.hold_batch != req.batch->id) {
        std::vector<ResolvedRun> runs;
        runs.reserve(req.batch->runs.size());
        for (const BatchRun& b : req.batch->runs) {
            const Rung* rung = L.find_rung(b.rung);
            if (!rung) continue;
            RunRequest one = req;
            one.rung = b.rung;
            one.params = b.params;
            one.sizes = b.sizes;
            try {
                RunSettings unused;
                LadderRung lr =
                    resolve_ladder_rung(L, *rung, tuned_options(st, L, *rung, one, unused), st.gpu->device().sm_count);
                if (lr.unfit.empty()) runs.push_back(std::move(lr.run));
            } catch (const Error&) {  // its own request is answered with the error
            }
        }
        std::vector<const ResolvedRun*> runnable;
        for (const auto& r : runs) runnable.push_back(&r);
        const SharedHold h = shared_hold(*st.runner, runnable, [&](const ResolvedRun& peer) {
            RunEvent probing;
            probing.type = RunEvent::Type::Progress;
            probing.id = req.id;
            probing.stage = "hold";
            probing.label = "the shared hold: one short run of " + peer.rung->id;
            reply(probing);
        });
        st.hold_batch = req.batch->id;
        st.hold = BatchHold{h.us, h.set_by};
    }
    if (st.hold.us <= 0) return std::nullopt;
    return st.hold;
}

// Returns false when the runner must exit (its CUDA context is gone).
bool handle_run(ServeState& st, const RunRequest& req) {
    std::optional<ResolvedRun> run;
    RunSettings settings;  // [tuned]
    std::string unfit;     // with skip_unfit: why the rung cannot take the sizes
    Ladder L;
    try {
        L = load_requested_ladder(req.ladder);
        std::string workspace_error;  // a learner's rung comes from the workspace (model/workspace.h)
        if (!L.find_rung(req.rung)) merge_learner_rungs(L, workspace_root(), &workspace_error);
        const Rung* rung = L.find_rung(req.rung);
        if (!rung && !workspace_error.empty()) throw InputError(workspace_error);
        if (!rung) throw InputError("ladder " + L.id + " has no rung '" + req.rung + "'");
        // The run's one resolution: input problems surface here, before the GPU is touched.
        const int num_sms = st.gpu ? st.gpu->device().sm_count : 0;
        const RunOptions options = tuned_options(st, L, *rung, req, settings);
        if (req.skip_unfit) {
            LadderRung lr = resolve_ladder_rung(L, *rung, options, num_sms);
            run = std::move(lr.run);
            unfit = std::move(lr.unfit);
        } else {
            run = resolve_run(L, *rung, options, num_sms);
        }
    } catch (const Error& e) {
        reply_error(req.id, "input", e.what());
        return true;
    }
    if (!unfit.empty()) {  // a skip needs no GPU: the window shows it on the rung's card
        RunEvent skipped;
        skipped.id = req.id;
        const std::string need = st.gpu ? rung_arch_refusal(*run->rung, st.gpu->device().cc()) : "";
        skipped.record = skipped_record(*run, need.empty() ? unfit : need);
        reply(skipped);
        return true;
    }
    if (!st.runner) {
        reply_error(req.id, "gpu", "no GPU: " + st.no_gpu_reason);
        return true;
    }
    const std::optional<BatchHold> hold = batch_hold(st, L, req);  // [hold]
    if (hold) run->options.hold_floor_us = hold->us;
    RunEvent progress;
    progress.type = RunEvent::Type::Progress;
    progress.id = req.id;
    progress.stage = "running";
    progress.label = run->label;
    reply(progress);

    std::string compile_log;
    RunEvent result;
    result.id = req.id;
    result.record = st.runner->record(*run, {req.skip_unfit, &compile_log});
    result.record.settings = settings;  // [tuned]
    result.hold = hold;                 // [hold]
    if (!compile_log.empty()) std::fprintf(stderr, "%s\n", printable_lines(compile_log).c_str());
    if (!compile_log.empty()) result.diagnostics = diagnostics_of_compile(compile_log, run->rung->source_path);
    reply(result);
    return !st.runner->context_lost();
}

// [SECTION] Serve loop

// Reads one line of at most kMaxRequestBytes; a longer line is consumed to its end and
// reported through *too_long (a request is a few hundred bytes; memory must stay bounded).
bool read_request_line(std::istream& in, std::string& line, bool* too_long) {
    line.clear();
    *too_long = false;
    std::streambuf* sb = in.rdbuf();
    for (;;) {
        int c = sb->sbumpc();
        if (c == std::char_traits<char>::eof()) return !line.empty() || *too_long;
        if (c == '\n') return true;
        if (line.size() < kMaxRequestBytes)
            line.push_back(static_cast<char>(c));
        else
            *too_long = true;
    }
}

enum class LineOutcome { Continue, Quit, ContextLost };

// Every line gets an answer: malformed JSON, a wrong type, a field that does not fit.
LineOutcome handle_line(ServeState& st, const std::string& line) {
    DecodedRequest d = decode_request_line(line);
    if (!d.request) {
        reply_error(d.id, "input", d.problem);
        return LineOutcome::Continue;
    }
    const Request& req = *d.request;
    switch (req.type) {
        case Request::Type::Quit: return LineOutcome::Quit;
        case Request::Type::Ping: {
            RunEvent pong;
            pong.type = RunEvent::Type::Pong;
            pong.id = req.id;
            reply(pong);
            return LineOutcome::Continue;
        }
        case Request::Type::Run: break;
    }
    try {
        return handle_run(st, req.run) ? LineOutcome::Continue : LineOutcome::ContextLost;
    } catch (const std::exception& e) {
        reply_error(req.id, "input", std::string("bad request: ") + e.what());
        return LineOutcome::Continue;
    }
}

}  // namespace

void serve_start(ServeState& st) {
    Hello hello;
    hello.tool = kToolName;
    hello.data_root = data_root();
    try {  // [stopwatch] as asked (KL_STOPWATCH); a value that names none is refused by the calibration below
        hello.stopwatch = stopwatch_name(requested_stopwatch());
    } catch (const InputError&) {}
    if (st.use_gpu && GpuContext::available(&st.no_gpu_reason)) {
        try {
            st.gpu = std::make_unique<GpuContext>();
            Calibration cal = load_or_measure_calibration(*st.gpu);
            st.runner = std::make_unique<Runner>(*st.gpu, cal);
            hello.device = st.gpu->device();
            hello.calibration = cal;
            if (requested_stopwatch() == Stopwatch::GpuSpan)  // [stopwatch] why CUPTI cannot take it here
                if (std::string why = activity_ready(); !why.empty())
                    hello.stopwatch_note = "the span cannot be taken here (" + why + "): CUDA events time the runs";
        } catch (const Error& e) {
            st.runner.reset();
            st.gpu.reset();
            st.no_gpu_reason = e.what();
            hello.device.reset();
            hello.calibration.reset();
        }
    } else if (!st.use_gpu) {
        st.no_gpu_reason = "this runner was started without a GPU";
    }
    hello.gpu = st.runner != nullptr;
    if (!st.runner) hello.reason = st.no_gpu_reason;
    reply(hello);
}

int serve_loop(ServeState& st, std::istream& in, FILE* out) {
    protocol_out() = out;
    std::string line;
    bool too_long = false;
    while (read_request_line(in, line, &too_long)) {
        if (too_long) {
            reply_error(std::nullopt, "input",
                        "request longer than " + std::to_string(kMaxRequestBytes) + " bytes: ignored");
            continue;
        }
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        LineOutcome o = handle_line(st, line);
        if (o == LineOutcome::Quit) break;
        if (o == LineOutcome::ContextLost) {
            std::fprintf(stderr, "kladder serve: the CUDA context was lost; exiting so that a fresh runner starts\n");
            return static_cast<int>(ExitCode::GpuError);
        }
    }
    return 0;
}

namespace {

int serve() {
    take_over_stdout();
    ServeState st;
    serve_start(st);
    return serve_loop(st, std::cin, protocol_out());
}

}  // namespace

// [SECTION] Command

Action add_serve_command(CLI::App& /*app: serve has no options*/) {
    return [] { return serve(); };
}

}  // namespace kl::cli
