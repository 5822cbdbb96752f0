// [SECTION] index: helpers / window -> runner / runner -> window
#include "model/serve_protocol.h"

#include <cstdio>

#include "base/errors.h"
#include "base/json_input.h"
#include "model/results_json.h"
#include "model/run_modes.h"
#include "model/stopwatch_label.h"

namespace kl {

using nlohmann::json;

// [SECTION] Helpers

namespace {

// One line, invalid UTF-8 replaced (a message may quote a file name in any encoding).
std::string dump_line(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

json id_json(const std::optional<uint64_t>& id) { return id ? json(*id) : json(nullptr); }

// Request fields, named the way the runner's error replies name them: "request field 'x.y'".
[[noreturn]] void bad_field(const std::string& field, const std::string& problem) {
    throw InputError("request field '" + field + "': " + problem);
}

// An optional string field: absent or null is "", another type is an error naming the field.
std::string string_field(const json& req, const char* key) {
    if (!req.contains(key) || req[key].is_null()) return "";
    if (!req[key].is_string()) bad_field(key, "expected a string");
    return req[key].get<std::string>();
}

std::map<std::string, int64_t> int_map_field(const json& req, const char* key) {
    std::map<std::string, int64_t> out;
    if (!req.contains(key) || req[key].is_null()) return out;
    const json& m = req[key];
    if (!m.is_object()) bad_field(key, "expected an object of integers");
    for (auto it = m.begin(); it != m.end(); ++it) {
        int64_t v = 0;
        if (!json_to_int64(*it, &v)) bad_field(std::string(key) + "." + it.key(), "expected a 64-bit integer");
        out[it.key()] = v;
    }
    return out;
}

std::optional<int> int_option(const json& opt, const char* key, int lo, int hi) {
    if (!opt.contains(key) || opt[key].is_null()) return std::nullopt;
    const std::string field = std::string("options.") + key;
    if (!opt[key].is_number_integer()) bad_field(field, "expected an integer");
    int64_t v = 0;
    if (!json_to_int64(opt[key], &v)) bad_field(field, "expected a 64-bit integer");
    if (v < lo || v > hi)
        bad_field(field, std::to_string(v) + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    return static_cast<int>(v);
}

std::optional<bool> bool_option(const json& opt, const char* key) {
    if (!opt.contains(key) || opt[key].is_null()) return std::nullopt;
    if (!opt[key].is_boolean()) bad_field(std::string("options.") + key, "expected true or false");
    return opt[key].get<bool>();
}

// [hold] "batch": {"id": B, "runs": [{"rung": "a", "params": {...}, "sizes": {...}}, ...]}.
RunBatch decode_batch(const json& b) {
    if (!b.is_object()) bad_field("batch", "expected an object");
    RunBatch out;
    if (!b.contains("id") || !b["id"].is_number_unsigned()) bad_field("batch.id", "expected a non-negative integer");
    out.id = b["id"].get<uint64_t>();
    if (!b.contains("runs") || !b["runs"].is_array()) bad_field("batch.runs", "expected an array");
    const json& runs = b["runs"];
    if (runs.size() > kMaxBatchRuns)
        bad_field("batch.runs", std::to_string(runs.size()) + " runs, more than " + std::to_string(kMaxBatchRuns));
    for (size_t i = 0; i < runs.size(); ++i) {
        const std::string field = "batch.runs[" + std::to_string(i) + "]";
        if (!runs[i].is_object()) bad_field(field, "expected an object");
        BatchRun r;
        try {
            r.rung = string_field(runs[i], "rung");
            r.params = int_map_field(runs[i], "params");
            r.sizes = int_map_field(runs[i], "sizes");
        } catch (const InputError& e) {  // "request field 'params.x': ..." under the run's name
            const std::string what = e.what();
            throw InputError(what.rfind("request field '", 0) == 0 ? "request field '" + field + "." + what.substr(15)
                                                                   : what);
        }
        if (r.rung.empty()) bad_field(field + ".rung", "expected a rung id");
        out.runs.push_back(std::move(r));
    }
    return out;
}

RunRequest decode_run(const json& req) {
    RunRequest r;
    r.ladder = string_field(req, "ladder");
    r.rung = string_field(req, "rung");
    r.sizes = int_map_field(req, "sizes");
    r.params = int_map_field(req, "params");
    if (std::string name = string_field(req, "dtype"); !name.empty()) {
        r.dtype = parse_dtype(name);
        if (!r.dtype) bad_field("dtype", "unknown type '" + name + "' (fp32, bf16, fp16)");
    }
    if (req.contains("batch") && !req["batch"].is_null()) r.batch = decode_batch(req["batch"]);  // [hold]
    if (!req.contains("options") || req["options"].is_null()) return r;
    const json& opt = req["options"];
    if (!opt.is_object()) bad_field("options", "expected an object");
    r.warmup = int_option(opt, "warmup", 0, 1000);
    r.reps = int_option(opt, "reps", 0, 100000);
    r.cold_l2 = bool_option(opt, "cold_l2");
    r.check = bool_option(opt, "check");
    r.counters = bool_option(opt, "counters").value_or(false);
    r.timeline = bool_option(opt, "timeline").value_or(false);  // [timeline]
    if (opt.contains("mode") && !opt["mode"].is_null()) {       // [modes]
        if (!opt["mode"].is_string()) bad_field("options.mode", "expected a string");
        r.mode = opt["mode"].get<std::string>();
        if (!parse_run_mode(r.mode)) bad_field("options.mode", "'" + r.mode + "' is not " + run_mode_names());
    }
    r.skip_unfit = bool_option(opt, "skip_unfit").value_or(false);
    r.tuned = bool_option(opt, "tuned").value_or(false);  // [tuned]
    if (opt.contains("seed") && !opt["seed"].is_null()) {
        if (!opt["seed"].is_number_unsigned()) bad_field("options.seed", "expected a non-negative integer");
        r.seed = opt["seed"].get<uint64_t>();
    }
    return r;
}

}  // namespace

// [SECTION] window -> runner

std::string encode_line(const RunRequest& r) {
    json options = json::object();
    if (r.warmup) options["warmup"] = *r.warmup;
    if (r.reps) options["reps"] = *r.reps;
    if (r.cold_l2) options["cold_l2"] = *r.cold_l2;
    if (r.check) options["check"] = *r.check;
    if (r.seed) options["seed"] = *r.seed;
    if (r.counters) options["counters"] = true;
    if (!r.mode.empty()) options["mode"] = r.mode;
    if (r.timeline) options["timeline"] = true;
    if (r.skip_unfit) options["skip_unfit"] = true;
    if (r.tuned) options["tuned"] = true;
    json j = {{"type", "run"},  {"id", r.id},       {"ladder", r.ladder},
              {"rung", r.rung}, {"sizes", r.sizes}, {"params", r.params}};
    if (r.dtype) j["dtype"] = to_string(*r.dtype);
    j["options"] = options;
    if (r.batch) {  // [hold]
        json runs = json::array();
        for (const auto& b : r.batch->runs)
            runs.push_back({{"rung", b.rung}, {"params", b.params}, {"sizes", b.sizes}});
        j["batch"] = {{"id", r.batch->id}, {"runs", runs}};
    }
    return dump_line(j);
}

std::string encode_line(const Request& r) {
    if (r.type == Request::Type::Run) {
        RunRequest run = r.run;
        run.id = r.id.value_or(run.id);
        return encode_line(run);
    }
    json j = {{"type", r.type == Request::Type::Ping ? "ping" : "quit"}};
    if (r.id) j["id"] = *r.id;
    return dump_line(j);
}

DecodedRequest decode_request_line(const std::string& line) {
    DecodedRequest out;
    try {
        json req = parse_json_limited(line, "request");
        if (!req.is_object()) throw InputError("request is not a JSON object");
        if (req.contains("id") && !req["id"].is_null()) {
            if (!req["id"].is_number_unsigned()) bad_field("id", "expected a non-negative integer");
            out.id = req["id"].get<uint64_t>();
        }
        if (!req.contains("type") || !req["type"].is_string()) bad_field("type", "expected a string (run, ping, quit)");
        const std::string type = req["type"].get<std::string>();
        Request r;
        r.id = out.id;
        if (type == "run") {
            r.type = Request::Type::Run;
            r.run = decode_run(req);
            r.run.id = out.id.value_or(0);
        } else if (type == "ping") {
            r.type = Request::Type::Ping;
        } else if (type == "quit") {
            r.type = Request::Type::Quit;
        } else {
            throw InputError("unknown request type '" + type + "' (run, ping, quit)");
        }
        out.request = std::move(r);
    } catch (const Error& e) { out.problem = e.what(); }
    return out;
}

RunOptions run_options_of(const RunRequest& r) {
    RunOptions o;
    o.sizes = r.sizes;
    o.params = r.params;
    o.dtype = r.dtype;
    if (r.warmup) o.warmup = *r.warmup;
    if (r.reps && *r.reps > 0) o.min_reps = o.max_reps = *r.reps;
    if (r.cold_l2) o.cold_l2 = *r.cold_l2;
    if (r.check) o.check = *r.check;
    if (r.seed) o.seed = *r.seed;
    o.counters = r.counters;  // [counters] a replay pass after timing
    o.mode = parse_run_mode(r.mode).value_or(RunMode::Normal);
    o.timeline = r.timeline;
    return o;
}

// [SECTION] runner -> window

std::string batch_hold_line(const BatchHold& h) {
    char us[32];
    std::snprintf(us, sizeof us, "%.0f us", h.us);
    return std::string("one hold for every rung of this run: ") + us + ", set by " + h.set_by;
}

std::string encode_line(const Hello& h) {
    json j = {
        {"type", "hello"}, {"protocol", h.protocol}, {"tool", h.tool}, {"data_root", h.data_root}, {"gpu", h.gpu}};
    if (h.device) j["device"] = to_json(*h.device);
    if (h.gpu) j["calibration"] = h.calibration ? to_json(*h.calibration) : json(nullptr);
    if (!h.gpu) j["reason"] = h.reason;
    j["stopwatch"] = h.stopwatch;  // [stopwatch]
    if (!h.stopwatch_note.empty()) j["stopwatch_note"] = h.stopwatch_note;
    return dump_line(j);
}

std::string encode_line(const RunEvent& e) {
    switch (e.type) {
        case RunEvent::Type::Progress:
            return dump_line({{"type", "progress"}, {"id", id_json(e.id)}, {"stage", e.stage}, {"label", e.label}});
        case RunEvent::Type::Result: {
            json j = {{"type", "result"}, {"id", id_json(e.id)}, {"record", to_json(e.record)}};
            if (e.hold) j["hold"] = {{"us", e.hold->us}, {"set_by", e.hold->set_by}};  // [hold]
            if (!e.diagnostics.empty()) {
                j["diagnostics"] = json::array();
                for (const auto& d : e.diagnostics) j["diagnostics"].push_back(to_json(d));
            }
            return dump_line(j);
        }
        case RunEvent::Type::Error:
            return dump_line(
                {{"type", "error"}, {"id", id_json(e.id)}, {"kind", e.error_kind}, {"message", e.message}});
        case RunEvent::Type::Pong: break;
    }
    return dump_line({{"type", "pong"}, {"id", id_json(e.id)}});
}

namespace {

Hello decode_hello(const JsonReader& rd, const json& j, RunnerLine& out) {
    Hello h;
    // The version first: the rest of a hello of another version may mean something else.
    h.protocol = static_cast<int>(rd.integer(j, "protocol", "", 0, 1 << 30));
    h.tool = rd.str_or(j, "tool", "", "");
    if (h.protocol != kServeProtocol) {
        out.version_mismatch = true;
        out.bad_hello = false;
        throw InputError("the runner speaks protocol " + std::to_string(h.protocol) + " and this program protocol " +
                         std::to_string(kServeProtocol) + " (runner: " + (h.tool.empty() ? "unnamed" : h.tool) +
                         "): build kladder and kernel-ladder from the same checkout");
    }
    h.data_root = rd.str_or(j, "data_root", "", "");
    h.gpu = rd.bool_or(j, "gpu", false, "");
    h.reason = rd.str_or(j, "reason", "", "");
    h.stopwatch = rd.str_or(j, "stopwatch", kStopwatchEvents, "");  // [stopwatch]
    if (!is_stopwatch_name(h.stopwatch))
        rd.fail("stopwatch", "'" + h.stopwatch + "' is not a stopwatch (events or span)");
    h.stopwatch_note = rd.str_or(j, "stopwatch_note", "", "");
    if (j.contains("device") && !j["device"].is_null()) h.device = device_from_json(j["device"], rd.origin);
    if (j.contains("calibration") && !j["calibration"].is_null())
        h.calibration = calibration_from_json(j["calibration"], rd.origin);
    if (h.gpu && !h.device) rd.fail("device", "missing (the hello says gpu: true)");
    return h;
}

RunEvent decode_event(const JsonReader& rd, const json& j, const std::string& type) {
    RunEvent e;
    if (type == "progress") {
        e.type = RunEvent::Type::Progress;
        e.stage = rd.str_or(j, "stage", "", "");
        e.label = rd.str_or(j, "label", "", "");
    } else if (type == "result") {
        e.type = RunEvent::Type::Result;
        e.record = record_from_json(rd.need(j, "record", ""), rd.origin, "record");
        if (j.contains("hold") && !j["hold"].is_null()) {  // [hold]
            const json& h = j["hold"];
            if (!h.is_object()) rd.fail("hold", "expected an object");
            e.hold = BatchHold{rd.num_or(h, "us", 0.0, "hold"), rd.str_or(h, "set_by", "", "hold")};
            if (!(e.hold->us >= 0 && e.hold->us <= 100'000)) rd.fail("hold.us", "expected 0 to 100000 microseconds");
        }
        if (j.contains("diagnostics") && !j["diagnostics"].is_null()) {
            const json& ds = j["diagnostics"];
            if (!ds.is_array()) rd.fail("diagnostics", "expected an array");
            for (size_t i = 0; i < ds.size() && i < kMaxDiagnostics; ++i)
                e.diagnostics.push_back(
                    diagnostic_from_json(ds[i], rd.origin + ": diagnostics[" + std::to_string(i) + "]"));
        }
    } else if (type == "error") {
        e.type = RunEvent::Type::Error;
        e.error_kind = rd.str_or(j, "kind", "input", "");
        e.message = rd.str_or(j, "message", "error", "");
    } else if (type == "pong") {
        e.type = RunEvent::Type::Pong;
    } else {
        rd.fail("type", "unknown reply type '" + type + "' (hello, progress, result, error, pong)");
    }
    return e;
}

}  // namespace

RunnerLine decode_runner_line(const std::string& line) {
    RunnerLine out;
    try {
        json j = parse_json_limited(line, "runner reply");
        JsonReader rd{"runner reply"};
        if (!j.is_object()) rd.fail("(top level)", "expected a JSON object");
        if (j.contains("id") && !j["id"].is_null()) {
            if (!j["id"].is_number_unsigned()) rd.fail("id", "expected a non-negative integer");
            out.id = j["id"].get<uint64_t>();
        }
        const std::string type = rd.str(j, "type", "");
        if (type == "hello") {
            out.bad_hello = true;  // until it is read
            out.hello = decode_hello(JsonReader{"runner hello"}, j, out);
            out.bad_hello = false;
        } else {
            out.event = decode_event(rd, j, type);
            out.event->id = out.id;
        }
    } catch (const Error& e) {
        out.hello.reset();
        out.event.reset();
        out.problem = e.what();
    }
    return out;
}

}  // namespace kl
