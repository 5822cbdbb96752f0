#include "model/results_json.h"

#include <ctime>
#include <limits>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/json_input.h"
#include "model/device_profile.h"
#include "model/resources_json.h"
#include "model/results_values.h"
#include "model/run_modes.h"

namespace kl {

using nlohmann::json;

// [SECTION] Writing

json to_json(const DeviceInfo& d) {
    return {{"name", d.name},
            {"uuid", d.uuid},
            {"arch", d.arch()},
            {"sm_count", d.sm_count},
            {"l2_bytes", d.l2_bytes},
            {"global_mem_bytes", d.global_mem_bytes},
            {"smem_per_block_optin", d.smem_per_block_optin},
            {"smem_per_sm", d.smem_per_sm},
            {"sm_clock_khz", d.sm_clock_khz},
            {"mem_clock_khz", d.mem_clock_khz},
            {"mem_bus_bits", d.mem_bus_bits},
            {"driver_version", d.driver_version},
            {"runtime_version", d.runtime_version},
            {"limits", d.has_limits ? limits_to_json(d.limits) : json(nullptr)}};
}

json to_json(const Calibration& c) {
    json j = {{"device_uuid", c.device_uuid}, {"measured_at", c.measured_at},
              {"copy_gbps", c.copy_gbps},     {"sgemm_tflops", c.sgemm_tflops},
              {"bf16_tflops", c.bf16_tflops}, {"fp32_peak_tflops", c.fp32_peak_tflops}};
    if (!c.bandwidth.empty()) {
        json points = json::array();
        for (const auto& p : c.bandwidth)
            points.push_back({{"kernel", p.kernel}, {"read_fraction", p.read_fraction}, {"gbps", p.gbps}});
        j["bandwidth"] = points;
    }
    return j;
}

namespace {
json to_json(const Correctness& c) {
    json mism = json::array();
    for (const auto& m : c.first_mismatches)
        mism.push_back({{"index", m.index}, {"expected", m.expected}, {"actual", m.actual}});
    json j = {{"passed", c.passed},         {"rel_l2", c.rel_l2},
              {"max_abs", c.max_abs},       {"elements", c.elements},
              {"mismatches", c.mismatches}, {"nan_count", c.nan_count},
              {"unwritten", c.unwritten},   {"tolerance", {{"abs", c.tolerance.abs}, {"rel", c.tolerance.rel}}},
              {"first_mismatches", mism}};
    if (c.error_map.rows > 0)
        j["error_map"] = {{"rows", c.error_map.rows},
                          {"cols", c.error_map.cols},
                          {"source_rows", c.error_map.source_rows},
                          {"source_cols", c.error_map.source_cols},
                          {"fraction_bad", c.error_map.fraction_bad}};
    else
        j["error_map"] = nullptr;
    return j;
}
// [tuned] which settings a run used (results.h, RunSettings)
json settings_to_json(const RunSettings& s) {
    json j = {{"kind", s.kind}};
    if (s.kind != "tuned") return j;
    j["tuned_at"] = s.tuned_at;
    j["points_tried"] = s.points_tried;
    j["points_total"] = s.points_total;
    j["partial"] = s.partial;
    return j;
}

RunSettings settings_from_json(const JsonReader& rd, const json& j, const std::string& run_field) {
    const std::string f = run_field + ".settings";
    if (!j.is_object()) rd.fail(f, "expected an object or null");
    RunSettings s;
    s.kind = rd.str(j, "kind", f);
    if (s.kind != "default" && s.kind != "tuned") rd.fail(f + ".kind", "'" + s.kind + "' is not default or tuned");
    s.tuned_at = rd.str_or(j, "tuned_at", "", f);
    s.points_tried = rd.int_or(j, "points_tried", 0, f, 0, INT64_MAX);
    s.points_total = rd.int_or(j, "points_total", 0, f, 0, INT64_MAX);
    s.partial = rd.bool_or(j, "partial", false, f);
    return s;
}

}  // namespace

json to_json(const RunRecord& r) {
    json j;
    j["ladder"] = r.ladder;
    j["rung"] = r.rung;
    j["title"] = r.title;
    j["operation"] = r.operation;
    j["reference"] = r.reference;
    j["params"] = r.params;
    j["sizes"] = r.sizes;
    j["dtype"] = to_string(r.dtype);
    j["l2"] = r.l2;
    if (!r.l2_flush.empty()) j["l2_flush"] = r.l2_flush;
    if (!r.stopwatch.empty()) j["stopwatch"] = r.stopwatch;  // [stopwatch]
    if (!r.stopwatch_note.empty()) j["stopwatch_note"] = r.stopwatch_note;
    if (r.event_median_ms > 0) j["event_median_ms"] = r.event_median_ms;
    j["warmup"] = r.warmup;
    if (r.timing)
        j["timing"] = {{"median_ms", r.timing->median_ms},   {"min_ms", r.timing->min_ms},
                       {"max_ms", r.timing->max_ms},         {"mean_ms", r.timing->mean_ms},
                       {"rel_spread", r.timing->rel_spread}, {"reps", r.timing->reps}};
    else
        j["timing"] = nullptr;
    if (r.timeline) j["timeline"] = to_json(*r.timeline);  // [timeline]
    if (!r.timeline_note.empty()) j["timeline_note"] = r.timeline_note;
    if (r.clock) j["clock"] = to_json(*r.clock);  // [clock]
    if (!r.mode.empty() && r.mode_timing)         // [modes]
        j["mode"] = {{"name", r.mode},
                     {"median_ms", r.mode_timing->median_ms},
                     {"min_ms", r.mode_timing->min_ms},
                     {"max_ms", r.mode_timing->max_ms},
                     {"reps", r.mode_timing->reps}};
    json values = json::object();
    for (const auto& [tag, value] : r.values.all()) values[tag] = value;
    j["values"] = values;
    if (!r.model_note.empty()) j["model_note"] = r.model_note;
    if (!r.settings.kind.empty()) j["settings"] = settings_to_json(r.settings);  // [tuned]
    j["correctness"] = r.correctness ? to_json(*r.correctness) : json(nullptr);
    j["counters"] = r.counters;
    j["counters_note"] = r.counters_note;
    j["resources"] = resources_to_json(r.resources);
    j["error"] = r.error.empty() ? json(nullptr) : json({{"kind", r.error_kind}, {"message", r.error}});
    return j;
}

json to_json(const ResultsFile& r) {
    json runs = json::array();
    for (const auto& run : r.runs) runs.push_back(to_json(run));
    json j = {{"schema", kResultsSchema},
              {"version", kResultsVersion},  // the layout written here, whatever version was read
              {"created", r.created},
              {"tool", r.tool},
              {"command", r.command},
              {"device", r.device ? to_json(*r.device) : json(nullptr)},
              {"calibration", r.calibration ? to_json(*r.calibration) : json(nullptr)},
              {"runs", runs}};
    if (!r.withheld.empty()) j["withheld"] = r.withheld;
    return j;
}

// [SECTION] Reading (strict about types, tolerant of unknown extra fields)

namespace {

// Typed field access that names the file and field (json_input.h); never nlohmann's type_error.
using Reader = JsonReader;

constexpr int64_t kI32 = 2147483647;
constexpr int64_t kI64 = std::numeric_limits<int64_t>::max();

DeviceInfo read_device(const Reader& rd, const json& j) {
    DeviceInfo d;
    d.name = rd.str(j, "name", "device");
    d.uuid = rd.str_or(j, "uuid", "", "device");
    const std::string arch = rd.str_or(j, "arch", "sm_00", "device");
    const int cc = parse_arch(arch).cc;  // "sm_90", "sm_120"; 0 when not such a name
    if (cc > 0) {
        d.cc_major = cc / 10;
        d.cc_minor = cc % 10;
    } else if (arch != "sm_00") {
        rd.fail("device.arch", "'" + arch + "' is not an architecture such as sm_90");
    }
    d.sm_count = static_cast<int>(rd.integer(j, "sm_count", "device", 0, kI32));
    d.l2_bytes = rd.int_or(j, "l2_bytes", 0, "device", 0, kI64);
    d.global_mem_bytes = rd.int_or(j, "global_mem_bytes", 0, "device", 0, kI64);
    d.smem_per_block_optin = rd.int_or(j, "smem_per_block_optin", 0, "device", 0, kI64);
    d.smem_per_sm = rd.int_or(j, "smem_per_sm", 0, "device", 0, kI64);
    d.sm_clock_khz = static_cast<int>(rd.int_or(j, "sm_clock_khz", 0, "device", 0, kI32));
    d.mem_clock_khz = static_cast<int>(rd.int_or(j, "mem_clock_khz", 0, "device", 0, kI32));
    d.mem_bus_bits = static_cast<int>(rd.int_or(j, "mem_bus_bits", 0, "device", 0, kI32));
    d.driver_version = static_cast<int>(rd.int_or(j, "driver_version", 0, "device", 0, kI32));
    d.runtime_version = static_cast<int>(rd.int_or(j, "runtime_version", 0, "device", 0, kI32));
    if (j.contains("limits") && !j["limits"].is_null()) {
        d.limits = limits_from_json(j["limits"], rd.origin, "device.limits");
        d.has_limits = true;
    }
    return d;
}

Correctness correctness_from_json(const Reader& rd, const json& j, const std::string& f) {
    Correctness c;
    const json& passed = rd.need(j, "passed", f);
    if (!passed.is_boolean()) rd.fail(f + ".passed", "expected true or false");
    c.passed = passed.get<bool>();
    c.rel_l2 = rd.num(j, "rel_l2", f);
    c.max_abs = rd.num(j, "max_abs", f);
    c.elements = rd.integer(j, "elements", f, 0, kI64);
    c.mismatches = rd.integer(j, "mismatches", f, 0, kI64);
    c.nan_count = rd.int_or(j, "nan_count", 0, f, 0, kI64);
    c.unwritten = rd.int_or(j, "unwritten", 0, f, 0, kI64);
    if (j.contains("tolerance") && !j["tolerance"].is_null()) {
        const json& tol = j["tolerance"];
        if (!tol.is_object())  // "NaN" as a string, say: never read as no tolerance at all
            rd.fail(f + ".tolerance", "expected an object { abs, rel }, found " +
                                          (tol.is_string() ? tol.dump().substr(0, 40) : std::string(tol.type_name())));
        c.tolerance.abs = rd.num_or(j["tolerance"], "abs", 0.0, f + ".tolerance");
        c.tolerance.rel = rd.num_or(j["tolerance"], "rel", 0.0, f + ".tolerance");
    }
    if (j.contains("first_mismatches") && j["first_mismatches"].is_array())
        for (const auto& m : j["first_mismatches"]) {
            std::string mf = f + ".first_mismatches[" + std::to_string(c.first_mismatches.size()) + "]";
            if (!m.is_object()) rd.fail(mf, "expected an object");
            c.first_mismatches.push_back({rd.int_or(m, "index", 0, mf, 0, kI64), rd.num_or(m, "expected", 0.0, mf),
                                          rd.num_or(m, "actual", 0.0, mf)});
        }
    if (j.contains("error_map") && j["error_map"].is_object()) {
        const json& m = j["error_map"];
        // A map is at most 4096 x 4096 cells: rows * cols below cannot overflow.
        c.error_map.rows = static_cast<int>(rd.int_or(m, "rows", 0, f + ".error_map", 0, 4096));
        c.error_map.cols = static_cast<int>(rd.int_or(m, "cols", 0, f + ".error_map", 0, 4096));
        c.error_map.source_rows = rd.int_or(m, "source_rows", 0, f + ".error_map", 0, kI64);
        c.error_map.source_cols = rd.int_or(m, "source_cols", 0, f + ".error_map", 0, kI64);
        if (m.contains("fraction_bad") && m["fraction_bad"].is_array())
            for (const auto& x : m["fraction_bad"]) {
                if (!x.is_number()) rd.fail(f + ".error_map.fraction_bad", "expected numbers");
                c.error_map.fraction_bad.push_back(x.get<float>());
            }
        if (c.error_map.fraction_bad.size() != size_t(c.error_map.rows) * size_t(c.error_map.cols))
            rd.fail(f + ".error_map", "fraction_bad has " + std::to_string(c.error_map.fraction_bad.size()) +
                                          " cells for " + std::to_string(c.error_map.rows) + " x " +
                                          std::to_string(c.error_map.cols));
    }
    return c;
}

// Version 3: "values", an object of tag -> number. A tag this program does not know is a
// measurement of a newer version: left out, as unknown fields are.
void read_values(const Reader& rd, const json& j, const std::string& f, RunRecord& r) {
    const json& values = rd.need(j, "values", f);
    if (!values.is_object()) rd.fail(f + ".values", "expected an object of tag -> number");
    for (const auto& [key, value] : values.items())
        if (const MeasureInfo* m = find_measure(key)) r.values.set(m->tag, rd.num(values, m->tag, f + ".values"));
    r.model_note = rd.str_or(j, "model_note", "", f);
}

// Versions 1 and 2 kept each value in a field of its own ("rates.gbps", "work.flops"), which its
// registry row names.
void read_legacy_values(const Reader& rd, const json& j, const std::string& f, RunRecord& r) {
    for (const MeasureInfo& m : measure_registry()) {
        const std::string path = m.legacy_field;
        if (path.empty()) continue;  // a value those versions never had
        const size_t dot = path.find('.');
        const json* holder = &j;
        std::string where = f, key = path;
        if (dot != std::string::npos) {
            const std::string group = path.substr(0, dot);
            holder = &rd.need(j, group.c_str(), f);
            where = f + "." + group;
            key = path.substr(dot + 1);
        }
        if (m.legacy_required)
            r.values.set(m.tag, rd.num(*holder, key.c_str(), where));
        else
            r.values.set(m.tag, rd.opt_num(*holder, key.c_str(), where));
    }
    r.model_note = rd.str_or(rd.need(j, "work", f), "model_note", "", f + ".work");
}

RunRecord run_from_json(const Reader& rd, const json& j, const std::string& f, int version) {
    RunRecord r;
    if (!j.is_object()) rd.fail(f, "expected an object");
    r.ladder = rd.str(j, "ladder", f);
    r.rung = rd.str(j, "rung", f);
    r.title = rd.str_or(j, "title", r.rung, f);
    r.operation = rd.str_or(j, "operation", "", f);
    r.reference = rd.bool_or(j, "reference", false, f);
    r.params = rd.int_map(j, "params", f);
    r.sizes = rd.int_map(j, "sizes", f);
    const std::string dtype_name = rd.str(j, "dtype", f);
    const std::optional<DType> dtype = parse_dtype(dtype_name);
    if (!dtype) rd.fail(f + ".dtype", "'" + dtype_name + "' is not a dtype (fp32, bf16, fp16, fp8e4m3)");
    r.dtype = *dtype;
    r.l2 = rd.str_or(j, "l2", "cold", f);
    r.l2_flush = rd.str_or(j, "l2_flush", "", f);
    r.stopwatch = rd.str_or(j, "stopwatch", "", f);  // [stopwatch]
    if (!r.stopwatch.empty() && r.stopwatch != "events" && r.stopwatch != "span")
        rd.fail(f + ".stopwatch", "'" + r.stopwatch + "' is not a stopwatch (events or span)");
    r.stopwatch_note = rd.str_or(j, "stopwatch_note", "", f);
    r.event_median_ms = rd.num_or(j, "event_median_ms", 0.0, f);
    if (r.event_median_ms < 0) rd.fail(f + ".event_median_ms", "a time cannot be negative");
    r.warmup = static_cast<int>(rd.int_or(j, "warmup", 0, f, 0, kI32));
    if (j.contains("timing") && !j["timing"].is_null()) {
        const json& t = j["timing"];
        if (!t.is_object()) rd.fail(f + ".timing", "expected an object or null");
        TimingStats s;
        s.median_ms = rd.num(t, "median_ms", f + ".timing");
        s.min_ms = rd.num(t, "min_ms", f + ".timing");
        s.max_ms = rd.num(t, "max_ms", f + ".timing");
        s.mean_ms = rd.num_or(t, "mean_ms", s.median_ms, f + ".timing");
        s.rel_spread = rd.num_or(t, "rel_spread", 0.0, f + ".timing");
        s.reps = static_cast<int>(rd.int_or(t, "reps", 0, f + ".timing", 0, kI32));
        if (s.median_ms < 0 || s.min_ms > s.median_ms || s.median_ms > s.max_ms)
            rd.fail(f + ".timing", "min <= median <= max does not hold");
        r.timing = s;
    }
    if (j.contains("timeline") && !j["timeline"].is_null())  // [timeline]
        r.timeline = timeline_from_json(j["timeline"], rd.origin, f + ".timeline");
    r.timeline_note = rd.str_or(j, "timeline_note", "", f);
    if (j.contains("clock") && !j["clock"].is_null()) r.clock = clock_from_json(j["clock"], rd.origin, f + ".clock");
    if (j.contains("mode") && !j["mode"].is_null()) {  // [modes]
        const json& m = j["mode"];
        if (!m.is_object()) rd.fail(f + ".mode", "expected an object or null");
        r.mode = rd.str(m, "name", f + ".mode");
        if (r.mode.empty() || !parse_run_mode(r.mode))
            rd.fail(f + ".mode.name", "'" + r.mode + "' is not " + run_mode_names());
        TimingStats s;
        s.median_ms = rd.num(m, "median_ms", f + ".mode");
        s.min_ms = rd.num_or(m, "min_ms", s.median_ms, f + ".mode");
        s.max_ms = rd.num_or(m, "max_ms", s.median_ms, f + ".mode");
        s.mean_ms = s.median_ms;
        s.reps = static_cast<int>(rd.int_or(m, "reps", 1, f + ".mode", 0, kI32));
        if (s.median_ms < 0 || s.min_ms > s.median_ms || s.median_ms > s.max_ms)
            rd.fail(f + ".mode", "min <= median <= max does not hold");
        r.mode_timing = s;
    }
    if (j.contains("settings") && !j["settings"].is_null()) r.settings = settings_from_json(rd, j["settings"], f);
    if (version >= 3)
        read_values(rd, j, f, r);
    else
        read_legacy_values(rd, j, f, r);
    if (j.contains("correctness") && !j["correctness"].is_null())
        r.correctness = correctness_from_json(rd, j["correctness"], f + ".correctness");
    r.counters = j.contains("counters") ? j["counters"] : json(nullptr);
    r.counters_note = rd.str_or(j, "counters_note", "", f);
    if (j.contains("resources")) r.resources = resources_from_json(j["resources"], rd.origin, f + ".resources");
    if (j.contains("error") && j["error"].is_object()) {
        r.error_kind = rd.str_or(j["error"], "kind", "", f + ".error");
        r.error = rd.str_or(j["error"], "message", "", f + ".error");
    }
    check_run_values(rd, r, f, version);
    return r;
}

}  // namespace

namespace {
// The roof's calibration kernels (roof.h): a short list of named points.
std::vector<BandwidthPoint> bandwidth_from_json(const Reader& rd, const json& j) {
    constexpr size_t kMaxPoints = 16;
    if (!j.is_array() || j.size() > kMaxPoints)
        rd.fail("calibration.bandwidth", "expected an array of at most " + std::to_string(kMaxPoints) + " points");
    std::vector<BandwidthPoint> out;
    for (const auto& p : j) {
        const std::string f = "calibration.bandwidth[" + std::to_string(out.size()) + "]";
        if (!p.is_object()) rd.fail(f, "expected an object { kernel, read_fraction, gbps }");
        BandwidthPoint b;
        b.kernel = rd.str(p, "kernel", f);
        if (b.kernel.empty() || b.kernel.size() > 32) rd.fail(f + ".kernel", "expected a name of 1 to 32 characters");
        b.read_fraction = rd.num(p, "read_fraction", f);
        if (!(b.read_fraction >= 0 && b.read_fraction <= 1)) rd.fail(f + ".read_fraction", "expected 0 to 1");
        b.gbps = rd.num(p, "gbps", f);
        if (!(b.gbps >= 0)) rd.fail(f + ".gbps", "expected a bandwidth of 0 or more");
        out.push_back(b);
    }
    return out;
}
}  // namespace

Calibration calibration_from_json(const json& j, const std::string& origin) {
    Reader rd{origin};
    Calibration c;
    c.device_uuid = rd.str_or(j, "device_uuid", "", "calibration");
    c.measured_at = rd.str_or(j, "measured_at", "", "calibration");
    c.copy_gbps = rd.num(j, "copy_gbps", "calibration");
    c.sgemm_tflops = rd.num(j, "sgemm_tflops", "calibration");
    c.bf16_tflops = rd.num(j, "bf16_tflops", "calibration");
    c.fp32_peak_tflops = rd.num_or(j, "fp32_peak_tflops", 0.0, "calibration");
    if (j.contains("bandwidth")) c.bandwidth = bandwidth_from_json(rd, j["bandwidth"]);
    check_calibration_values(rd, c);
    return c;
}

RunRecord record_from_json(const json& j, const std::string& origin, const std::string& field) {
    return run_from_json(Reader{origin}, j, field, kResultsVersion);
}

DeviceInfo device_from_json(const json& j, const std::string& origin) {
    Reader rd{origin};
    if (!j.is_object()) rd.fail("device", "expected an object");
    return read_device(rd, j);
}

ResultsFile results_from_json(const json& j, const std::string& origin) {
    Reader rd{origin};
    if (!j.is_object()) rd.fail("(top level)", "expected a JSON object");
    if (rd.str(j, "schema", "") != kResultsSchema)
        rd.fail("schema", std::string("expected \"") + kResultsSchema + "\"");
    ResultsFile r;
    // An integer: a version written as 2.0 or 1.5 is refused, never rounded.
    r.version = static_cast<int>(rd.integer(j, "version", "", 1, kI32));
    if (r.version > kResultsVersion)
        rd.fail("version", std::to_string(r.version) + " is newer than this program understands (" +
                               std::to_string(kResultsVersion) + ")");
    r.created = rd.str_or(j, "created", "", "");
    r.tool = rd.str_or(j, "tool", "", "");
    r.command = rd.str_or(j, "command", "", "");
    if (j.contains("device") && !j["device"].is_null()) r.device = read_device(rd, j["device"]);
    if (j.contains("calibration") && !j["calibration"].is_null())
        r.calibration = calibration_from_json(j["calibration"], origin);
    if (j.contains("withheld") && !j["withheld"].is_null()) {
        const json& withheld = j["withheld"];
        if (!withheld.is_array()) rd.fail("withheld", "expected a list of lines");
        for (size_t i = 0; i < withheld.size(); ++i) {
            if (!withheld[i].is_string()) rd.fail("withheld[" + std::to_string(i) + "]", "expected a string");
            r.withheld.push_back(withheld[i].get<std::string>());
        }
    }
    const json& runs = rd.need(j, "runs", "");
    if (!runs.is_array()) rd.fail("runs", "expected a list");
    for (size_t i = 0; i < runs.size(); ++i)
        r.runs.push_back(run_from_json(rd, runs[i], "runs[" + std::to_string(i) + "]", r.version));
    return r;
}

ResultsFile load_results(const std::string& path) {
    return results_from_json(parse_json_limited(read_file(path), path), path);
}

namespace {

// One header field per line and one run per line: a run's error map and timeline take thousands
// of numbers, which one-value-per-line indentation made 2-3x larger than the data (recordings
// travel to the GPU machine with the tree, which has a size limit), while diffs stay per run.
std::string results_text(const nlohmann::json& j) {
    std::string out = "{";
    const char* sep = "\n";
    for (const auto& [key, value] : j.items()) {
        out += sep + nlohmann::json(key).dump() + ": ";
        sep = ",\n";
        if (key != "runs" || !value.is_array() || value.empty()) {
            out += value.dump();
            continue;
        }
        out += "[";
        const char* run_sep = "\n";
        for (const auto& run : value) {
            out += run_sep + run.dump();
            run_sep = ",\n";
        }
        out += "\n]";
    }
    return out + "\n}\n";
}

}  // namespace

std::string results_to_text(const ResultsFile& r) { return results_text(to_json(r)); }

void save_results(const std::string& path, const ResultsFile& r) { write_file_atomically(path, results_to_text(r)); }

}  // namespace kl
