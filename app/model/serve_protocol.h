// The runner protocol: how the window talks to `kladder serve`, its GPU runner process. The
// window never runs kernels in its own process (a rung that traps or hangs can take a CUDA
// context, or the whole process, down); it spawns `kladder serve` and speaks JSON lines over
// the child's stdin and stdout. Every message has one type here and one JSON encoding each way;
// both sides use these functions, so they cannot drift apart. No CUDA: the window links it.
//
// Version 3 (kServeProtocol). One JSON object per line, UTF-8, at most 1 MiB per request.
//
//   runner -> window, once at start: Hello
//     {"type":"hello","protocol":3,"tool":"kladder 0.1.0","data_root":"/path","gpu":true,
//      "device":{...DeviceInfo, as in results files...},"calibration":{...}|null}
//     {"type":"hello","protocol":3,"tool":"...","data_root":"...","gpu":false,"reason":"no CUDA GPU ..."}
//   window -> runner: Request
//     {"type":"run","id":7,"ladder":"elementwise","rung":"vector_add","sizes":{"n":1048576},
//      "params":{"TPB":128},"dtype":"fp32",
//      "options":{"warmup":2,"reps":10,"cold_l2":true,"check":true,"seed":20261122,"counters":true}}
//       sizes, params, dtype and every option may be left out (the rung's defaults); reps sets
//       min = max repetitions (0: the runner's 10..300, about 0.4 s); counters asks for a
//       hardware-counters replay pass after timing (docs/counters.md). "skip_unfit":true (one
//       rung of a whole-ladder run, as `kladder run` without --rung) answers a rung that cannot
//       take these sizes (run_plan.h, resolve_ladder_rung), or that this GPU's architecture
//       cannot run, with a result whose record has error kind "skipped" and the reason, not with
//       an error; without it (one rung asked for by name) such a request is an "input" error.
//       "tuned":true runs the settings `kladder tune` stored for this GPU and source, where valid.
//     {"type":"ping","id":8}     {"type":"quit"}
//     "id" is a non-negative integer chosen by the window; replies carry it back.
//   runner -> window, for each request exactly one terminal reply (result, error or pong), and
//   before it any number of progress replies: RunEvent
//     {"type":"progress","id":7,"stage":"running","label":"elementwise/vector_add TPB=128 n=1048576 fp32"}
//     {"type":"result","id":7,"record":{...RunRecord, as in results files...},
//      "diagnostics":[{"file":"/home/me/.local/share/kernel-ladder/workspace/elementwise/mine_vector_add.cu",
//                      "line":4,"column":37,"severity":"error","message":"identifier \"x\" is undefined"}]}
//        record.error is set when the rung ran and failed (compile, input, gpu, fault), or
//        was skipped (kind "skipped": only for a request with skip_unfit);
//        diagnostics (version 3; left out when empty) is NVRTC's log of a rung that did not
//        compile, parsed (model/compile_diagnostics.h), its file named by the rung's full path
//     {"type":"error","id":7,"kind":"input","message":"..."}   the request was not run: a
//        malformed line (id null when it could not be read), an unknown ladder, rung,
//        parameter or size, a broken constraint, or "gpu" when the runner has no GPU
//     {"type":"pong","id":8}
// After a fault that loses the CUDA context (a trap, an illegal address) the runner sends the
// failed result with error kind "fault" and exits with code 3; the window starts a fresh one.
// Everything else the runner has to say (warnings, NVRTC logs) goes to its stderr.
//
// Versions: a change that an older reader would misread bumps kServeProtocol. The window reads
// the hello's "protocol" before anything else; a runner of another version is refused with one
// line naming both versions (decode_runner_line sets version_mismatch). Version 3 carried a
// run's measurements in fixed fields (work, rates); 4 carries them as tagged values, as results
// files of version 3 do (measures.h). Version 2 had no
// diagnostics in results (a window of version 2 would drop them). Version 1 differed in the
// hello (it listed every ladder's load errors) and accepted any JSON value as an id.
// options.tuned came within version 4 without a bump, as skip_unfit did: a runner that does not
// know it runs the defaults, whose record then says nothing of settings.
// [stopwatch] hello.stopwatch ("events" or "span": the stopwatch the runner was asked for,
// KL_STOPWATCH of its environment, which the window sets from its settings) and
// hello.stopwatch_note (the span asked for and CUPTI cannot record here: why; the events then time
// the runs, and each record says so too) came within version 4 without a bump: a hello without them is an
// events runner; another stopwatch name makes the hello unreadable (one line naming the field).
// [hold] request "batch" and result "hold" came within version 4 without a bump: every request of
// a run of several rungs or points names the whole run, {"id":B,"runs":[{"rung":"a","params":{..},
// "sizes":{..}},...]} (at most kMaxBatchRuns), and the runner gives all of them one hold when
// PyTorch peers are among them, as `kladder run` does (gpu/shared_hold.h), learned once per batch
// id; its result says so: "hold":{"us":412,"set_by":"torch_gelu"}. A runner that does not know
// the field holds each run by its own rule; a window that does not, never sees "hold".
// options.skip_unfit came within version 3 without a bump: a window that does not send it never
// gets a skipped record, and a runner that does not know it answers with the error it always did.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/compile_diagnostics.h"
#include "model/dtype.h"
#include "model/results.h"
#include "model/run_plan.h"

namespace kl {

constexpr int kServeProtocol = 4;
constexpr size_t kMaxRequestBytes = 1 << 20;

// [SECTION] window -> runner

// [hold] One run of a batch: the rung, its parameters and sizes (the request's other options apply).
struct BatchRun {
    std::string rung;
    std::map<std::string, int64_t> params, sizes;
};
// [hold] The whole run a request belongs to (the window's Run ladder, a sweep): one hold for all.
struct RunBatch {
    uint64_t id = 0;
    std::vector<BatchRun> runs;
};
constexpr size_t kMaxBatchRuns = 1024;

// One "run" request. Unset options keep the runner's defaults (RunOptions).
struct RunRequest {
    uint64_t id = 0;  // set by the runner client
    std::string ladder, rung;
    std::map<std::string, int64_t> sizes, params;
    std::optional<DType> dtype;
    std::optional<int> warmup, reps;
    std::optional<bool> cold_l2, check;
    std::optional<uint64_t> seed;
    bool counters = false;
    std::string mode;       // [modes] run_modes.h; "" for none
    bool timeline = false;  // [timeline] trace one repetition's kernels (timeline.h)
    // Part of a whole-ladder run: sizes the rung cannot take, or an architecture this GPU is not,
    // come back as a skipped record (error kind "skipped") instead of an error reply.
    bool skip_unfit = false;
    // [tuned] run with the learner's tuned settings for this GPU and source (model/tuned_store.h):
    // the record's `settings` says which ran ("tuned", or "default" when none are stored or they
    // are stale; why goes to the runner's stderr). Request params still win.
    bool tuned = false;
    std::optional<RunBatch> batch;  // [hold] see the versions above
};

struct Request {
    enum class Type { Run, Ping, Quit } type = Type::Run;
    std::optional<uint64_t> id;  // absent: replies carry "id":null
    RunRequest run;              // Type::Run
};

// What the runner made of one line: the request, or one line naming the field at fault. The
// id is filled whenever it could be read, so that the error reply reaches its request.
struct DecodedRequest {
    std::optional<Request> request;
    std::optional<uint64_t> id;
    std::string problem;  // "request field 'options.reps': expected an integer", ...
};

std::string encode_line(const RunRequest& r);  // {"type":"run",...} without the newline
std::string encode_line(const Request& r);
DecodedRequest decode_request_line(const std::string& line);
// The engine's options for a request (defaults where the request says nothing).
RunOptions run_options_of(const RunRequest& r);

// [SECTION] runner -> window

struct Hello {
    int protocol = kServeProtocol;
    std::string tool, data_root;
    bool gpu = false;
    std::string reason;  // why there is no GPU
    // [stopwatch] the stopwatch the runner was asked for ("events" or "span", gpu/span_stopwatch.h),
    // and why a span asked for cannot be taken here ("" when it can, or events were asked)
    std::string stopwatch = "events", stopwatch_note;
    std::optional<DeviceInfo> device;
    std::optional<Calibration> calibration;
};

// [hold] The hold every run of a batch shared (gpu/shared_hold.h's SharedHold, as data).
struct BatchHold {
    double us = 0;
    std::string set_by;  // the peer whose hold it is
};
// "one hold for every rung of this run: 412 us, set by torch_gelu" (as `kladder run` says it).
std::string batch_hold_line(const BatchHold& h);

struct RunEvent {
    enum class Type { Progress, Result, Error, Pong } type = Type::Result;
    std::optional<uint64_t> id;
    std::string stage, label;                    // Progress
    RunRecord record;                            // Result
    std::vector<CompileDiagnostic> diagnostics;  // Result of a rung that did not compile
    std::optional<BatchHold> hold;               // Result of a run of a batch held as one [hold]
    std::string error_kind, message;             // Error: kind "input" or "gpu"
};

// A runner's line, read by the window: a hello, a reply, or what was wrong with it.
struct RunnerLine {
    std::optional<Hello> hello;
    std::optional<RunEvent> event;
    std::optional<uint64_t> id;     // the request a reply names, when that much could be read
    std::string problem;            // neither could be read: one line naming the field
    bool version_mismatch = false;  // a hello of another protocol version (problem says which)
    bool bad_hello = false;         // a hello that cannot be read (problem names the field)
};

std::string encode_line(const Hello& h);
std::string encode_line(const RunEvent& e);
RunnerLine decode_runner_line(const std::string& line);

}  // namespace kl
