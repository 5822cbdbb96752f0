// `kladder serve`: the GPU runner process of the GUI. The workbook never runs kernels in its own
// process: a rung that traps or hangs can take a CUDA context (or the whole process) down, and
// the window must survive that. The GUI spawns `kladder serve`, talks JSON lines over
// stdin/stdout, and restarts it when it dies or stops answering.
//
// Protocol (one JSON object per line; version 1):
//   runner -> GUI, once at start:
//     {"type":"hello","protocol":1,"tool":"kladder 0.1.0","gpu":true,
//      "device":{...DeviceInfo...},"calibration":{...Calibration...},"ladder_errors":[...]}
//     {"type":"hello","protocol":1,"gpu":false,"reason":"no CUDA GPU found ...", ...}
//   GUI -> runner:
//     {"type":"run","id":7,"ladder":"elementwise","rung":"vector_add",
//      "sizes":{"n":1048576},"params":{"TPB":128},"dtype":"fp32",
//      "options":{"warmup":2,"reps":0,"cold_l2":true,"check":true,"seed":20261122,"counters":false}}
//     options.counters: also read hardware counters in a replay pass after timing (RunOptions::
//     counters, docs/counters.md); where they cannot be read the record says why in counters_note.
//     {"type":"ping","id":8}        {"type":"quit"}
//   runner -> GUI, for each request exactly one terminal reply (result, error or pong), and
//   before it any number of progress replies:
//     {"type":"progress","id":7,"stage":"running","label":"elementwise/vector_add TPB=128 n=1048576"}
//     {"type":"result","id":7,"record":{...RunRecord, kl::to_json...}}   (record.error set when
//                                                                          the rung failed)
//     {"type":"error","id":7,"kind":"input","message":"..."}              (request not runnable)
//     {"type":"pong","id":8}
// After a fault that loses the CUDA context (a trap, an illegal address) the runner sends the
// failed result with error kind "fault" and exits with code 3: the GUI starts a fresh one.
// Everything else the runner has to say (warnings, NVRTC logs) goes to stderr.
//
// [SECTION] index: helpers / request parsing / serve loop / command
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "engine/calibration.h"
#include "engine/errors.h"
#include "engine/gpu_context.h"
#include "engine/paths.h"
#include "engine/runner.h"
#include "engine/version.h"

namespace kl::cli {

namespace {

using nlohmann::json;
constexpr int kServeProtocol = 1;

// [SECTION] Helpers

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

// One reply per line, flushed at once: the GUI reads line by line and must never wait for a
// buffer to fill.
void reply(const json& j) {
    std::string line = j.dump(-1, ' ', false, json::error_handler_t::replace);
    FILE* out = protocol_out();
    std::fwrite(line.data(), 1, line.size(), out);
    std::fputc('\n', out);
    std::fflush(out);
}

void reply_error(const json& id, const std::string& kind, const std::string& message) {
    reply({{"type", "error"}, {"id", id}, {"kind", kind}, {"message", message}});
}

std::string error_kind_of(const Error& e, bool context_lost) {
    if (dynamic_cast<const CompileError*>(&e)) return "compile";
    if (dynamic_cast<const GpuError*>(&e)) return context_lost ? "fault" : "gpu";
    return "input";
}

// [SECTION] Request parsing

std::map<std::string, int64_t> int_map(const json& req, const char* key) {
    std::map<std::string, int64_t> out;
    if (!req.contains(key) || req[key].is_null()) return out;
    const json& m = req[key];
    if (!m.is_object()) throw InputError(std::string("request field '") + key + "': expected an object of integers");
    for (auto it = m.begin(); it != m.end(); ++it) {
        if (!it->is_number_integer())
            throw InputError(std::string("request field '") + key + "." + it.key() + "': expected an integer");
        out[it.key()] = it->get<int64_t>();
    }
    return out;
}

RunOptions run_options_from(const json& req) {
    RunOptions o;
    o.sizes = int_map(req, "sizes");
    o.params = int_map(req, "params");
    if (req.contains("dtype") && req["dtype"].is_string() && !req["dtype"].get<std::string>().empty()) {
        std::string name = req["dtype"].get<std::string>();
        auto d = parse_dtype(name);
        if (!d) throw InputError("request field 'dtype': unknown type '" + name + "' (fp32, bf16, fp16)");
        o.dtype = *d;
    }
    if (req.contains("options") && req["options"].is_object()) {
        const json& opt = req["options"];
        auto integer = [&](const char* key, int lo, int hi, int fallback) {
            if (!opt.contains(key)) return fallback;
            if (!opt[key].is_number_integer())
                throw InputError(std::string("request field 'options.") + key + "': expected an integer");
            int64_t v = opt[key].get<int64_t>();
            if (v < lo || v > hi)
                throw InputError(std::string("request field 'options.") + key + "': " + std::to_string(v) +
                                 " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
            return static_cast<int>(v);
        };
        o.warmup = integer("warmup", 0, 1000, o.warmup);
        int reps = integer("reps", 0, 100000, 0);
        if (reps > 0) o.min_reps = o.max_reps = reps;
        auto flag = [&](const char* key, bool fallback) {
            if (!opt.contains(key)) return fallback;
            if (!opt[key].is_boolean())
                throw InputError(std::string("request field 'options.") + key + "': expected true or false");
            return opt[key].get<bool>();
        };
        o.cold_l2 = flag("cold_l2", o.cold_l2);
        o.check = flag("check", o.check);
        o.counters = flag("counters", o.counters);  // [counters] a replay pass after timing
        if (opt.contains("seed") && opt["seed"].is_number_unsigned()) o.seed = opt["seed"].get<uint64_t>();
    }
    return o;
}

// [SECTION] Serve loop

struct ServeState {
    std::unique_ptr<GpuContext> gpu;
    std::unique_ptr<Runner> runner;
    std::string no_gpu_reason;
};

// Returns false when the runner must exit (its CUDA context is gone).
bool handle_run(ServeState& st, const json& req, const json& id) {
    std::string ladder_id = req.value("ladder", ""), rung_id = req.value("rung", "");
    std::vector<std::string> load_errors;
    // Manifests are read again for every request: a teacher editing a ladder.toml next to a
    // running workbook sees the change without restarting anything.
    std::vector<Ladder> ladders = load_all_ladders(kernels_dir(), &load_errors);
    const Ladder* L = nullptr;
    for (const auto& l : ladders)
        if (l.id == ladder_id) L = &l;
    if (!L) {
        std::string why = "unknown ladder '" + ladder_id + "'";
        for (const auto& e : load_errors)
            if (e.find("/" + ladder_id + "/") != std::string::npos) why = e;
        reply_error(id, "input", why);
        return true;
    }
    const Rung* rung = L->find_rung(rung_id);
    if (!rung) {
        reply_error(id, "input", "ladder " + L->id + " has no rung '" + rung_id + "'");
        return true;
    }
    RunOptions opt;
    Problem problem;
    ParamValues params;
    try {
        opt = run_options_from(req);
        // Input problems surface before the GPU is touched.
        problem = resolve_problem(*L, *rung, opt);
        params = resolve_params(*rung, opt.params);
        check_constraints(*rung,
                          make_scope(problem.sizes, params, problem.dtype, st.gpu ? st.gpu->device().sm_count : 0));
    } catch (const Error& e) {
        reply_error(id, "input", e.what());
        return true;
    } catch (const std::exception& e) {
        reply_error(id, "input", std::string("bad request: ") + e.what());
        return true;
    }
    if (!st.runner) {
        reply_error(id, "gpu", "no GPU: " + st.no_gpu_reason);
        return true;
    }
    std::string label = L->id + "/" + rung->id;
    for (const auto& [k, v] : params) label += " " + k + "=" + std::to_string(v);
    label += " " + problem.describe();
    reply({{"type", "progress"}, {"id", id}, {"stage", "running"}, {"label", label}});

    RunRecord rec;
    try {
        rec = st.runner->run(*L, *rung, opt);
    } catch (const Error& e) {
        rec.ladder = L->id;
        rec.rung = rung->id;
        rec.title = rung->title;
        rec.operation = rung->operation;
        rec.reference = rung->reference;
        // The resolved problem, so that the failure is shown where a result would have been.
        rec.params = params;
        rec.sizes = problem.sizes;
        rec.dtype = to_string(problem.dtype);
        rec.error_kind = error_kind_of(e, st.runner->context_lost());
        rec.error = e.what();
        if (auto* ce = dynamic_cast<const CompileError*>(&e)) std::fprintf(stderr, "%s\n", ce->log().c_str());
    }
    reply({{"type", "result"}, {"id", id}, {"record", to_json(rec)}});
    return !st.runner->context_lost();
}

int serve() {
    take_over_stdout();
    ServeState st;
    json hello = {{"type", "hello"}, {"protocol", kServeProtocol}, {"tool", kToolName}, {"data_root", data_root()}};
    std::vector<std::string> load_errors;
    load_all_ladders(kernels_dir(), &load_errors);
    hello["ladder_errors"] = load_errors;
    if (GpuContext::available(&st.no_gpu_reason)) {
        try {
            st.gpu = std::make_unique<GpuContext>();
            Calibration cal = load_or_measure_calibration(*st.gpu);
            st.runner = std::make_unique<Runner>(*st.gpu, cal);
            hello["device"] = to_json(st.gpu->device());
            hello["calibration"] = to_json(cal);
        } catch (const Error& e) {
            st.runner.reset();
            st.gpu.reset();
            st.no_gpu_reason = e.what();
        }
    }
    hello["gpu"] = st.runner != nullptr;
    if (!st.runner) hello["reason"] = st.no_gpu_reason;
    reply(hello);

    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        json req;
        try {
            req = json::parse(line);
        } catch (const json::parse_error& e) {
            reply_error(nullptr, "input", std::string("request is not valid JSON: ") + e.what());
            continue;
        }
        if (!req.is_object()) {
            reply_error(nullptr, "input", "request is not a JSON object");
            continue;
        }
        json id = req.contains("id") ? req["id"] : json(nullptr);
        std::string type = req.value("type", "");
        if (type == "quit") break;
        if (type == "ping") {
            reply({{"type", "pong"}, {"id", id}});
        } else if (type == "run") {
            if (!handle_run(st, req, id)) {
                std::fprintf(stderr,
                             "kladder serve: the CUDA context was lost; exiting so that a fresh runner starts\n");
                return static_cast<int>(ExitCode::GpuError);
            }
        } else {
            reply_error(id, "input", "unknown request type '" + type + "' (run, ping, quit)");
        }
    }
    return 0;
}

}  // namespace

// [SECTION] Command

Action add_serve_command(CLI::App& /*app: serve has no options*/) {
    return [] { return serve(); };
}

}  // namespace kl::cli
