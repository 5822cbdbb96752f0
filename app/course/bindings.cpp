// Bound values: sources (recordings, live runs, device cards and peers), the runs a binding
// picks, and rendering. Parsing and formatting bindings: bindings_text.cpp; device cards and
// peer figures: bindings_cards.cpp.
// [SECTION] index: sources / runs / render
#include "course/bindings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/json_input.h"
#include "base/paths.h"
#include "course/bound_counters.h"
#include "course/bound_kernels.h"
#include "course/bound_resources.h"
#include "model/device_card.h"
#include "model/dtype.h"
#include "model/operation.h"
#include "model/results_cache.h"
#include "model/results_json.h"
#include "model/run_metrics.h"
#include "model/run_modes.h"

namespace fs = std::filesystem;

namespace kl {

const char* const kWithheldShown = "[predict first]";

std::string BoundValue::source_line() const {
    if (withheld) return "withheld until you keep your prediction";
    if (!ok) return "unresolved: " + error;
    // Files under the data root by their path in the checkout: "assets/recorded/h100_....json".
    std::string o = origin, root = data_root() + "/";
    if (o.compare(0, root.size(), root) == 0) o = o.substr(root.size());
    return device + ", " + date + ", " + o + (what.empty() ? "" : ": " + what);
}

// [SECTION] Sources

void NumberSources::load_recorded(const std::string& recorded_dir, std::vector<std::string>* errors, bool results) {
    std::error_code ec;
    auto json_files = [&](const fs::path& dir) {
        std::vector<std::string> out;
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path().string());
        std::sort(out.begin(), out.end());
        return out;
    };
    for (const auto& f : results ? json_files(recorded_dir) : std::vector<std::string>()) {
        try {
            add_recorded(load_results_cached(f), f);
        } catch (const Error& e) {
            if (errors) errors->push_back(e.what());
        }
    }
    for (const auto& f : json_files(fs::path(recorded_dir) / "peers")) {
        try {
            nlohmann::json j = parse_json_limited(read_file(f), f);
            if (!j.is_array()) throw InputError(f + ": expected an array of peer figures");
            PeerFile p{f, "", "", j};
            for (const auto& e : j)
                if (e.is_object() && e.value("what", "") == "device" && e.contains("name") && e["name"].is_string())
                    p.device = e["name"].get<std::string>();
            static const std::regex date_re("[0-9]{4}-[0-9]{2}-[0-9]{2}");
            std::smatch m;
            std::string stem = fs::path(f).stem().string();
            if (std::regex_search(stem, m, date_re)) p.date = m.str();
            if (p.device.empty() || p.date.empty())
                throw InputError(f + ": a peer file needs a {\"what\": \"device\"} entry and a date in its name");
            peers_.push_back(std::move(p));
        } catch (const nlohmann::json::exception& e) {
            if (errors) errors->push_back(f + ": not JSON: " + e.what());
        } catch (const Error& e) {
            if (errors) errors->push_back(e.what());
        }
    }
    // Newest session first: names sort by date, then run2, run3 after the day's first; the
    // preferred device's sessions before any other's.
    std::reverse(peers_.begin(), peers_.end());
    std::stable_partition(peers_.begin(), peers_.end(),
                          [&](const PeerFile& p) { return p.device == preferred_device_; });
    // Datasheet peaks are not recordings, but every reader of the recordings binds them too.
    const std::string devices = data_root() + "/assets/devices";
    if (datasheets_.empty() && fs::is_directory(devices, ec)) {
        try {
            set_datasheets(load_datasheets(devices), "assets/devices");
        } catch (const Error& e) {
            if (errors) errors->push_back(e.what());
        }
    }
    for (const auto& f : json_files(fs::path(recorded_dir) / "cards")) {
        try {
            add_card(load_device_card(f));
        } catch (const Error& e) {
            if (errors) errors->push_back(e.what());
        }
    }
}

void NumberSources::add_recorded(ResultsFile file, const std::string& origin) {
    std::string device = file.device ? file.device->name : "unknown device";
    if (preferred_device_.empty() && file.device) preferred_device_ = device;
    files_.emplace_back(origin, std::move(file));
    const ResultsFile& f = files_.back().second;
    for (const auto& r : f.runs) add_run(r, false, device, f.created, origin);
}

void NumberSources::add_exported(ResultsFile file, const std::string& origin) {
    if (file.device) {
        preferred_device_ = file.device->name;
        set_device(*file.device, origin);
    }
    exported_origin_ = origin;
    add_recorded(std::move(file), origin);
}

void NumberSources::add_run(const RunRecord& run, bool live, const std::string& device, const std::string& created,
                            const std::string& origin) {
    (live ? live_ : recorded_).push_back({&run, live, device, created, origin});
    if (!live) recorded_sorted_ = false;
}

void NumberSources::set_live_calibration(const Calibration& c, const std::string& device, const std::string& origin) {
    live_calibration_ = c;
    live_device_ = device;
    live_calibration_origin_ = origin;
}

// A ladder may mix operations (mlp's qkv rungs have no axis F): a run records only the size axes
// of its own operation, so a binding asks for those.
static std::map<std::string, int64_t> own_axes(const Rung& rung, const std::map<std::string, int64_t>& sizes) {
    const Operation* op = find_operation(rung.operation);
    if (!op) return sizes;
    std::map<std::string, int64_t> own;
    for (const auto& axis : op->size_axes())
        if (sizes.count(axis.name)) own[axis.name] = sizes.at(axis.name);
    return own;
}

BoundValue NumberSources::resolve(const Binding& b) const {
    if (b.kind == Binding::Kind::Expr) return resolve_expr(b);
    if (b.kind != Binding::Kind::Value) return BoundValue::failed("`{{ " + b.source + " }}` is not a number");
    if (b.target == "device") return resolve_device(b);
    if (b.target.rfind("peer/", 0) == 0) return resolve_peer(b);
    return resolve_run(b);
}

// [SECTION] Runs

namespace {

struct RunMetric {
    const char* name;
    const char* unit;
    const char* family;  // run_metric_family
};
// A table, three entries a line.
// clang-format off
const RunMetric kRunMetrics[] = {
    {"ms", "ms", "time"}, {"us", "µs", "time"}, {"min_ms", "ms", "time"},
    {"gbps", "GB/s", "time"}, {"tbps", "TB/s", "time"}, {"tflops", "TFLOP/s", "time"},
    {"gflops", "GFLOP/s", "time"}, {"pct_copy", "%", "time"}, {"pct_gemm", "%", "time"},
    {"pct_reference", "%", "time"}, {"spread", "%", "spread"}, {"rel_l2", "", "error"},
    {"max_abs", "", "error"}, {"peak_gib", "GiB", "memory"}, {"peak_mib", "MiB", "memory"},
    {"dram_gb", "GB", "dram"}, {"l2_gb", "GB", "l2"},
    // hardware counters' derived ratios (model/counters.h), by their keys
    {"sectors_per_request_ld", "", "sectors_ld"}, {"sectors_per_request_st", "", "sectors_st"},
    {"threads_per_inst", "", "threads"},
    {"bank_conflicts", "", "banks"}, {"bank_conflicts_ld", "", "banks"}, {"bank_conflicts_st", "", "banks"},
    {"blocks_per_us", "blocks/µs", "time"},
    {"mode_ms", "ms", "mode"}, {"mode_us", "µs", "mode"},  // the measuring mistake's figure
    {"us_per_step", "µs", "time"},
    {"clock_mhz", "MHz", "clock"}, {"clock_min_mhz", "MHz", "clock"},  // min: the slowest repetition's
    {"burst_ms", "ms", "time"}, {"burst_us", "µs", "time"},  // the full-clock repetitions' median
    // [timeline] the traced repetition: the same kernels' time (kernelN_us, kernelN_ms and
    // kernelN_name: find_run_metric)
    {"traced_ms", "ms", "time"}, {"traced_us", "µs", "time"}, {"span_us", "µs", "time"},
    {"gap_us", "µs", "gap"}, {"launches", "", "launches"},
    // [resources] the main launch's (bound_resources.h)
    {"regs", "", "regs"}, {"regs_per_block", "", "regs"}, {"occupancy", "%", "occupancy"},
    {"resident_blocks", "", "occupancy"}, {"sm_count", "", "run_device"}};  // the run's GPU's SMs
// clang-format on

// The metric's value from a run, or nullopt when the run does not carry it.
std::optional<double> run_metric(const RunRecord& r, const std::string& m, int64_t blocks) {
    const TimingStats* t = r.timing ? &*r.timing : nullptr;
    // The run metrics lessons predict (run_metrics.h: the median time, and tagged values).
    if (std::optional<double> v = run_metric_value(r, m)) return v;
    if (std::optional<double> v = resource_metric(r, m)) return v;
    if (m == "min_ms" && t) return t->min_ms;
    if (m == "spread" && t) return t->rel_spread * 100;
    // The same tagged values in other units.
    if (m == "tbps" && r.values.num(tag::gbps) > 0) return r.values.num(tag::gbps) / 1e3;
    if (m == "gflops" && r.values.num(tag::tflops) > 0) return r.values.num(tag::tflops) * 1e3;
    if (m == "peak_mib" && r.values.has(tag::peak_memory_bytes))
        return r.values.num(tag::peak_memory_bytes) / double(1 << 20);
    if (m == "rel_l2" && r.correctness) return r.correctness->rel_l2;
    if (m == "max_abs" && r.correctness) return r.correctness->max_abs;
    if (std::optional<double> v = counter_metric(r, m)) return v;  // dram_gb, derived ratios, bank conflicts
    if (m == "blocks_per_us" && t && blocks > 0 && t->median_ms > 0) return blocks / (t->median_ms * 1e3);
    // [modes] the figure the run's measuring mistake gave (run_modes.h), beside `ms`/`us`
    if (m == "mode_ms" && r.mode_timing) return r.mode_timing->median_ms;
    if (m == "mode_us" && r.mode_timing) return r.mode_timing->median_ms * 1e3;
    // [clock] the SM clock probed right after the timed repetitions (lesson 0: the power cap)
    if (m == "clock_mhz" && r.clock && r.clock->after_mhz > 0) return r.clock->after_mhz;
    if (m == "clock_min_mhz" && r.clock && r.clock->sampled_reps > 0) return r.clock->during_min_mhz;
    if ((m == "burst_ms" || m == "burst_us") && r.clock && r.clock->burst)
        return r.clock->burst->median_ms * (m == "burst_us" ? 1e3 : 1);
    // [timeline] the traced repetition (after timing, at the clock it found): all kernels' summed
    // time; each kernel's, the span, the gaps and the launches (bound_kernels.h)
    const Timeline* tl = r.timeline ? &*r.timeline : nullptr;
    if (m == "traced_ms" && tl && tl->kernel_sum_ms > 0) return tl->kernel_sum_ms;
    std::string name_unused, why_unused;
    double x = 0;
    if (tl && is_timeline_metric(m) && timeline_figure(*tl, m, &x, &name_unused, &why_unused)) return x;
    // [launch] time per dependent step of the launch ladder (its `steps` size axis)
    if (auto st = r.sizes.find("steps"); m == "us_per_step" && t && st != r.sizes.end() && st->second > 0)
        return t->median_ms * 1e3 / double(st->second);
    return std::nullopt;
}

std::string describe_run(const RunRecord& r) {
    std::string s = r.rung;
    for (const auto& [k, v] : r.params) s += " " + k + "=" + std::to_string(v);
    std::string sz;
    for (const auto& [k, v] : r.sizes) sz += (sz.empty() ? "" : ",") + k + "=" + std::to_string(v);
    return s + " · " + sz + " · " + to_string(r.dtype) + " · " + r.l2 + " L2";
}

std::string stem_of(const std::string& path) { return fs::path(path).stem().string(); }

// Every key of `want` is in `have` with the same value.
bool holds_all(const std::map<std::string, int64_t>& have, const std::map<std::string, int64_t>& want) {
    for (const auto& [k, n] : want) {
        auto it = have.find(k);
        if (it == have.end() || it->second != n) return false;
    }
    return true;
}

// As holds_all for parameters, except that a run recorded before a parameter was added to its
// rung does not list it: it ran the code the parameter's default keeps (a new parameter's default
// is the old behaviour), so it matches that default and no other value.
bool holds_params(const std::map<std::string, int64_t>& have, const std::map<std::string, int64_t>& want,
                  const std::map<std::string, int64_t>& defaults) {
    for (const auto& [k, n] : want) {
        auto it = have.find(k);
        if (it != have.end() ? it->second != n : defaults.count(k) == 0 || defaults.at(k) != n) return false;
    }
    return true;
}

// What a recorded run that does not list a parameter ran with: the value the manifest names as
// `before` (a default changed since), else the default (docs/formats.md, section 3).
std::map<std::string, int64_t> unlisted_params(const Rung& rung) {
    std::map<std::string, int64_t> out;
    for (const auto& p : rung.params) out[p.name] = p.before.value_or(p.default_value);
    return out;
}

const RunMetric* find_run_metric(const std::string& name) {
    for (const auto& m : kRunMetrics)
        if (name == m.name) return &m;
    // [timeline] one kernel of the traced repetition: its time, or its name (a text binding)
    static const RunMetric kKernelUs{"kernelN_us", "µs", "time"}, kKernelMs{"kernelN_ms", "ms", "time"},
        kKernelName{"kernelN_name", "", "kernel_name"};
    if (std::optional<KernelMetric> k = parse_kernel_metric(name))
        return k->part == "us" ? &kKernelUs : k->part == "ms" ? &kKernelMs : &kKernelName;
    return nullptr;
}

std::string run_metric_names() {
    std::string names;
    for (const auto& m : kRunMetrics) names += std::string(names.empty() ? "" : ", ") + m.name;
    return names + ", kernelN_us, kernelN_ms, kernelN_name";
}

}  // namespace

std::string run_metric_family(const std::string& metric) {
    const RunMetric* m = find_run_metric(metric);
    return m ? m->family : "";
}

bool WantedRun::same_run(const WantedRun& o) const {
    return ladder == o.ladder && rung == o.rung && dtype == o.dtype && l2 == o.l2 && sizes == o.sizes &&
           params == o.params;
}

bool WantedRun::identifies(const RunRecord& r) const {
    if (r.ladder != ladder || r.rung != rung || to_string(r.dtype) != dtype || r.l2 != l2 || !holds_all(r.sizes, sizes))
        return false;
    if (settings == "tuned")  // [tuned] whatever the search chose, unless the binding names a value
        return r.settings.kind == "tuned" && holds_all(r.params, asked_params);
    if (settings == "default" && r.settings.kind == "tuned") return false;
    return holds_params(r.params, params, unlisted);
}

std::optional<WantedRun> wanted_run(const Binding& b, const std::vector<Ladder>& ladders, std::string* why) {
    auto fail = [&](const std::string& w) {
        *why = w;
        return std::nullopt;
    };
    size_t slash = b.target.find('/');
    if (slash == std::string::npos) return fail("'" + b.target + "' is not LADDER/RUNG");
    WantedRun w;
    w.ladder = b.target.substr(0, slash), w.rung = b.target.substr(slash + 1);
    const Ladder* L = nullptr;
    for (const auto& l : ladders)
        if (l.id == w.ladder) L = &l;
    if (!L) return fail("unknown ladder '" + w.ladder + "'");
    const Rung* R = L->find_rung(w.rung);
    if (!R) return fail("ladder " + w.ladder + " has no rung '" + w.rung + "'");
    // What is wanted: the rung's defaults, overridden by the binding's keys.
    w.sizes = own_axes(*R, {L->default_sizes.begin(), L->default_sizes.end()});
    for (const auto& p : R->params) w.params[p.name] = p.default_value;
    w.unlisted = unlisted_params(*R);
    const std::vector<DType>& dts = R->dtypes.empty() ? L->dtypes : R->dtypes;
    if (!dts.empty()) w.dtype = to_string(dts.front());
    for (const auto& [k, val] : b.keys) {
        if (k == "dtype") {
            w.dtype = val;
        } else if (k == "l2") {
            if (val != "cold" && val != "warm") return fail("l2 must be cold or warm, not '" + val + "'");
            w.l2 = val;
        } else if (k == "mode") {  // [modes] a run that measured this mistake beside its timing
            if (!parse_run_mode(val) || val.empty())
                return fail("mode must be " + run_mode_names() + ", not '" + val + "'");
            w.mode = val;
        } else if (k == "from") {
            w.from = val;
        } else if (k == "settings") {  // [tuned] the rung's tuned figure, or its default one
            if (val != "tuned" && val != "default") return fail("settings must be tuned or default, not '" + val + "'");
            w.settings = val;
        } else if (k == "blocks") {  // for blocks_per_us: how many blocks the launch had
            auto n = parse_bound_int(val);
            if (!n || *n <= 0) return fail("blocks: '" + val + "' is not a positive integer");
            w.blocks = *n;
        } else {
            auto n = parse_bound_int(val);
            if (!n) return fail(k + ": '" + val + "' is not an integer (or 2^K)");
            if (w.sizes.count(k))
                w.sizes[k] = *n;
            else if (w.params.count(k))
                w.params[k] = w.asked_params[k] = *n;
            else
                return fail("'" + k + "' is neither a size axis of " + w.ladder + " nor a parameter of " + w.rung);
        }
    }
    return w;
}

BoundValue NumberSources::resolve_run(const Binding& b) const {
    BoundValue v;
    auto fail = [&](const std::string& why) {
        v.error = why;
        return v;
    };
    if (!ladders_) return fail("no ladders loaded");
    const RunMetric* metric = find_run_metric(b.metric);
    std::string why;
    std::optional<WantedRun> want = wanted_run(b, *ladders_, &why);
    if (!want) return fail(why);
    const bool names_device = b.metric == "device";  // `{{ LADDER/RUNG device }}`: whose run is shown
    if (!metric && !names_device) return fail("unknown metric '" + b.metric + "' (" + run_metric_names() + ", device)");
    const std::string &from = want->from, &mode = want->mode, &dtype = want->dtype, &l2 = want->l2;
    const int64_t blocks = want->blocks;
    if (b.metric == "blocks_per_us" && blocks == 0) return fail("blocks_per_us needs blocks=N");
    // The exported results first, then the preferred device's, then newest first; a tie keeps file order.
    if (!recorded_sorted_) {
        std::stable_sort(recorded_.begin(), recorded_.end(), [&](const Run& a, const Run& b) {
            const bool ea = a.origin == exported_origin_, eb = b.origin == exported_origin_;
            const bool pa = a.device == preferred_device_, pb = b.device == preferred_device_;
            return ea != eb ? ea : pa != pb ? pa : a.created > b.created;
        });
        recorded_sorted_ = true;
    }
    auto matches = [&](const Run& run) {
        const RunRecord& r = *run.record;
        if (!mode.empty() && r.mode != mode) return false;
        if (!r.error_kind.empty() || !r.timing) return false;
        if (!from.empty() && (run.live || stem_of(run.origin) != from)) return false;
        return want->identifies(r);
    };
    const Run* found = nullptr;
    for (auto it = live_.rbegin(); it != live_.rend() && !found; ++it)
        if (matches(*it)) found = &*it;
    for (const auto& run : recorded_)
        if (!found && matches(run)) found = &run;
    if (!found) {
        std::string wanted;
        for (const auto& [k, n] : want->settings == "tuned" ? want->asked_params : want->params)
            wanted += " " + k + "=" + std::to_string(n);
        for (const auto& [k, n] : want->sizes) wanted += " " + k + "=" + std::to_string(n);
        return fail("no successful run of " + b.target + " with" + wanted + " " + dtype + " " + l2 + " L2" +
                    (want->settings.empty() ? "" : " settings=" + want->settings) +
                    (from.empty() ? "" : " in " + from));
    }
    // [timeline] a kernel's name, or why the traced repetition does not answer
    std::string kernel_name;
    if (is_timeline_metric(b.metric) && !timeline_answers(*found->record, b.metric, &kernel_name, &why))
        return fail("the run of " + b.target + " in " + found->origin + " " + why);
    const bool is_name = names_device || !kernel_name.empty();
    std::optional<double> x = is_name                  ? 0.0
                              : b.metric == "sm_count" ? run_device_sm_count(found->device)
                                                       : run_metric(*found->record, b.metric, blocks);
    if (!x) return fail("the run of " + b.target + " in " + found->origin + " has no " + b.metric);
    v.ok = true;
    v.value = *x;
    v.unit = is_name ? "" : metric->unit;
    v.text = is_name;
    const bool count = b.metric == "launches" || b.metric == "regs" || b.metric == "regs_per_block" ||
                       b.metric == "resident_blocks" || b.metric == "sm_count" ||
                       b.metric.rfind("bank_conflicts", 0) == 0;
    const int decimals = count && b.decimals < 0 ? 0 : b.decimals;
    v.shown = names_device ? found->device : is_name ? kernel_name : format_bound(v.value, v.unit, decimals, b.bare);
    if (!names_device && std::string(metric->family) == "time" && found->record->timing)
        v.spread = std::fabs(v.value) * found->record->timing->rel_spread;
    v.live = found->live;
    v.device = found->device;
    v.date = found->created.substr(0, 10);
    v.origin = found->origin;
    v.what = describe_run(*found->record);
    return v;
}

// [SECTION] Render

std::string NumberSources::render(const std::string& text, std::vector<BoundValue>* values,
                                  const std::function<std::string(const BoundValue&)>& wrap,
                                  const std::function<bool(const Binding&)>& withhold) const {
    std::vector<Binding> bs = find_bindings(text, nullptr);
    std::string out;
    size_t at = 0;
    // Conditional prose: for each open `if`, whether its current branch shows (nullopt: the
    // condition did not resolve, neither branch shows).
    std::vector<std::optional<bool>> open;
    auto showing = [&] {
        for (const auto& o : open)
            if (!o.value_or(false)) return false;
        return true;
    };
    for (const auto& b : bs) {
        size_t begin = b.begin, end = b.end;
        if (b.kind != Binding::Kind::Value && b.kind != Binding::Kind::Expr) {
            // A marker alone on its line takes the line with it.
            size_t line = text.rfind('\n', begin == 0 ? 0 : begin - 1);
            line = line == std::string::npos ? 0 : line + 1;
            size_t eol = text.find('\n', end);
            if (text.find_first_not_of(" \t", line) == begin &&
                (eol == std::string::npos ? text.find_first_not_of(" \t\r", end) == std::string::npos
                                          : text.find_first_not_of(" \t\r", end) == eol))
                begin = std::max(line, at), end = eol == std::string::npos ? text.size() : eol + 1;
        }
        if (showing()) out += text.substr(at, begin - at);
        at = end;
        if (b.kind == Binding::Kind::If) {
            const bool shown = showing();
            std::string why;
            open.push_back(shown ? holds(b, &why) : std::optional<bool>(false));
            if (shown && !open.back()) {
                BoundValue v = BoundValue::failed("`{{ " + b.source + " }}`: " + why);
                v.shown = "[unresolved: " + b.source + "]";
                out += wrap ? wrap(v) : v.shown;
                if (values) values->push_back(v);
            }
            continue;
        }
        if (b.kind == Binding::Kind::Else || b.kind == Binding::Kind::End) {
            if (!open.empty() && b.kind == Binding::Kind::Else && open.back()) open.back() = !*open.back();
            if (!open.empty() && b.kind == Binding::Kind::End) open.pop_back();
            continue;
        }
        if (!showing()) continue;
        BoundValue v;
        bool withheld = withhold && withhold(b);
        for (const Binding& o : b.operands) withheld = withheld || (withhold && withhold(o));
        if (withheld) {
            v.ok = v.withheld = true;
            v.shown = kWithheldShown;
        } else {
            v = resolve(b);
        }
        if (!v.ok) {
            v.shown = "[unresolved: " + b.source + "]";
            v.error = "`{{ " + b.source + " }}`: " + v.error;
        }
        out += wrap ? wrap(v) : v.shown;
        if (values) values->push_back(v);
    }
    return out + text.substr(at);
}

}  // namespace kl
