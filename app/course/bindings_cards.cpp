// Bindings to a device's reference card and to PyTorch peer figures (bindings.h): the `device`
// and `peer/WHAT` targets of lesson text.
#include <cmath>
#include <filesystem>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/json_input.h"
#include "base/paths.h"
#include "course/bindings.h"
#include "course/bound_kernels.h"
#include "course/device_named.h"
#include "model/device_card.h"

namespace kl {

namespace {
std::string card_stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

// A datasheet peak of `name`'s profile entry (course/datasheet.h): `{{ device datasheet_X }}`.
BoundValue datasheet_peak(const Binding& b, const std::string& name, const Datasheet* sheet,
                          const std::string& devices_dir) {
    BoundValue v;
    const std::string peak = b.metric.substr(10);
    const double value = !sheet                    ? 0
                         : peak == "gbps"          ? sheet->memory_gbps
                         : peak == "fp32_tflops"   ? sheet->fp32_tflops
                         : peak == "bf16_tflops"   ? sheet->bf16_tflops
                         : peak == "tf32_tflops"   ? sheet->tf32_tflops
                         : peak == "fp8_tflops"    ? sheet->fp8_tflops
                         : peak == "tensor_tflops" ? sheet->tensor_tflops
                         : peak == "clock_mhz"     ? sheet->boost_clock_mhz
                                                   : -1;
    if (value < 0)
        return v.error = "no datasheet figure '" + peak +
                         "' (datasheet_gbps, datasheet_fp32_tflops, datasheet_tf32_tflops, "
                         "datasheet_bf16_tflops, datasheet_tensor_tflops, datasheet_fp8_tflops, datasheet_clock_mhz)",
               v;
    if (value == 0)
        return v.error = "no datasheet " + peak + " for '" + name + "' (the `datasheet` entries of " +
                         "assets/devices/*.json)",
               v;
    v.ok = true;
    v.value = value;
    v.unit = peak == "gbps" ? "GB/s" : peak == "clock_mhz" ? "MHz" : "TFLOP/s";
    v.device = name;
    v.origin = devices_dir + "/" + sheet->profile;
    v.what = "datasheet: " + sheet->source;
    v.shown = format_bound(v.value, v.unit, b.decimals, b.bare);
    return v;
}
}  // namespace

void NumberSources::set_device(const DeviceInfo& device, const std::string& origin) {
    device_ = device;
    device_origin_ = origin;
}

void NumberSources::set_datasheets(std::vector<Datasheet> sheets, const std::string& devices_dir) {
    datasheets_ = std::move(sheets);
    datasheets_dir_ = devices_dir;
}

const DeviceInfo* NumberSources::fact_device(std::string* origin) const {
    if (device_) return *origin = device_origin_, &*device_;
    const DeviceInfo* best = nullptr;
    for (const auto& [path, f] : files_)
        if (f.device && f.device->name == preferred_device_ && (!best || (!best->has_limits && f.device->has_limits)))
            best = &*f.device, *origin = path;
    return best;
}

std::optional<double> NumberSources::run_device_sm_count(const std::string& device) const {
    if (device_ && device_->name == device && device_->sm_count > 0) return device_->sm_count;
    for (const auto& [path, f] : files_)
        if (f.device && f.device->name == device && f.device->sm_count > 0) return f.device->sm_count;
    for (const auto& c : cards_)
        if (c.device == device && c.doc["values"].contains("sm_count") &&
            c.doc["values"]["sm_count"].contains("value") && c.doc["values"]["sm_count"]["value"].is_number())
            return c.doc["values"]["sm_count"]["value"].get<double>();
    return std::nullopt;
}

std::string NumberSources::measured_elsewhere(const BoundValue& v, bool bracketed) const {
    if (!v.ok || !v.as_shown_device || v.live || v.date.empty() || !device_) return "";
    if (device_gpu_name(v.device) == device_gpu_name(device_->name)) return "";
    // A table's bare figure, a share, gets the name in brackets: "51.6 (H100) / copy 2,989 (H100)".
    return bracketed ? " (" + device_short_name(v.device) + ")" : " on the " + device_short_name(v.device);
}

BoundValue NumberSources::resolve_fact(const Binding& b, const DeviceInfo& d, const std::string& origin) const {
    BoundValue v;
    const DeviceLimits& L = d.limits;
    static const std::map<std::string, std::pair<std::string, std::string>> kFacts = {
        {"sm_count", {"", "streaming multiprocessors"}},
        {"l2_mib", {"MiB", "L2 cache size"}},
        {"mem_gib", {"GiB", "device memory"}},
        {"threads_per_sm", {"", "threads an SM holds at most"}},
        {"warps_per_sm", {"", "warps an SM holds at most"}},
        {"blocks_per_sm", {"", "blocks an SM holds at most"}},
        {"regs_per_sm", {"", "32-bit registers per SM"}},
        {"regs_per_thread", {"", "registers a thread may use at most"}},
        {"threads_per_block", {"", "threads a block may have at most"}},
        {"smem_per_sm_kib", {"KiB", "shared memory per SM"}},
        {"smem_per_block_kib", {"KiB", "shared memory one block may opt in to"}},
        {"cc", {"", "compute capability"}}};
    auto fact = kFacts.find(b.metric);
    v.device = d.name;
    v.origin = origin;
    if (b.metric == "name") {
        v.ok = v.text = true;
        v.shown = d.name;
        v.what = "the device's name";
        return v;
    }
    if (fact == kFacts.end()) return v.error = "no device fact '" + b.metric + "'", v;
    const bool limit = b.metric.find("_per_") != std::string::npos && b.metric != "smem_per_block_kib";
    if (limit && !d.has_limits) return v.error = "no per-SM limits recorded for " + d.name, v;
    const std::map<std::string, double> value = {
        {"sm_count", d.sm_count},
        {"l2_mib", d.l2_bytes / double(1 << 20)},
        {"mem_gib", d.global_mem_bytes / double(1 << 30)},
        {"threads_per_sm", L.max_threads_per_sm},
        {"warps_per_sm", L.max_warps_per_sm()},
        {"blocks_per_sm", L.max_blocks_per_sm},
        {"regs_per_sm", L.regs_per_sm},
        {"regs_per_thread", L.max_regs_per_thread},
        {"threads_per_block", L.max_threads_per_block},
        {"smem_per_sm_kib", (L.smem_per_sm > 0 ? L.smem_per_sm : d.smem_per_sm) / 1024.0},
        {"smem_per_block_kib", (L.smem_per_block_optin > 0 ? L.smem_per_block_optin : d.smem_per_block_optin) / 1024.0},
        {"cc", d.cc() / 10.0}};
    v.ok = true;
    v.value = value.at(b.metric);
    v.unit = fact->second.first;
    v.what = fact->second.second + " (" + (device_ ? "this device" : "device properties") + ")";
    int decimals = b.decimals >= 0 ? b.decimals : b.metric == "cc" ? 1 : v.value == std::floor(v.value) ? 0 : -1;
    v.shown = format_bound(v.value, v.unit, decimals, b.bare);  // counts are whole: "32 blocks", not "32.0"
    return v;
}

BoundValue NumberSources::resolve_device(const Binding& b) const {
    BoundValue v;
    std::string card_name;
    for (const auto& [k, val] : b.keys) {
        if (k != "card") return v.error = "device bindings take only card=NAME, not '" + k + "'", v;
        card_name = val;
    }
    std::string fact_origin;
    const DeviceInfo* facts = card_name.empty() ? fact_device(&fact_origin) : nullptr;
    // Facts of the device shown (its properties, or its profile).
    if (facts && resolve_fact(b, *facts, fact_origin).error.rfind("no device fact", 0) != 0)
        return resolve_fact(b, *facts, fact_origin);
    // Datasheet peaks: the profile entry of the device's name (course/datasheet.h).
    if (b.metric.rfind("datasheet_", 0) == 0) {
        // With card=NAME, the datasheet of that card's GPU: a figure pinned to one recording
        // (`from=h100_matmul`) beside its own device's peak, whatever device the text shows.
        std::string name = !card_name.empty() ? "" : facts ? facts->name : preferred_device_;
        for (const auto& c : cards_)
            if (!card_name.empty() && (card_stem(c.path) == card_name || device_slug(c.device) == card_name))
                name = c.device;
        if (name.empty()) return v.error = "no card '" + card_name + "'", v;
        return datasheet_peak(b, name, find_datasheet(datasheets_, name), datasheets_dir_);
    }
    if (b.metric == "own_rates") return resolve_own_rates(b, card_name);
    // The learner's own calibration, when there is one, for what a calibration measures.
    static const std::map<std::string, double Calibration::*> calibrated = {
        {"copy_gbps", &Calibration::copy_gbps},
        {"sgemm_tflops", &Calibration::sgemm_tflops},
        {"bf16_tflops", &Calibration::bf16_tflops}};
    auto cal = calibrated.find(b.metric);
    if (card_name.empty() && live_calibration_ && cal != calibrated.end() && (*live_calibration_).*(cal->second) > 0) {
        v.ok = true;
        v.value = (*live_calibration_).*(cal->second);
        v.unit = b.metric == "copy_gbps" ? "GB/s" : "TFLOP/s";
        v.live = true;
        v.device = live_device_;
        v.date = live_calibration_->measured_at.substr(0, 10);
        v.origin = live_calibration_origin_;
        v.what = b.metric + " calibrated on this device";
        v.as_shown_device = true;
        v.shown = format_bound(v.value, v.unit, b.decimals, b.bare);
        return v;
    }
    const DeviceCard* card = nullptr;
    for (const auto& c : cards_)
        if (card_name.empty() ? c.device == preferred_device_
                              : card_stem(c.path) == card_name || device_slug(c.device) == card_name)
            card = &c;
    // The shown device's own card, when it has one: a profile's name is its GPU's plus " (profile)".
    static const std::string kProfileSuffix = " (profile)";
    std::string shown = device_ ? device_->name : "";
    if (shown.size() > kProfileSuffix.size() &&
        shown.compare(shown.size() - kProfileSuffix.size(), kProfileSuffix.size(), kProfileSuffix) == 0)
        shown.resize(shown.size() - kProfileSuffix.size());
    for (const auto& c : cards_)
        if (card_name.empty() && device_ && c.device == shown) card = &c;
    if (!card && card_name.empty() && cards_.size() == 1) card = &cards_.front();
    if (!card && card_name.empty() && cards_.size() > 1)
        return v.error = "several device cards and none of the preferred device: name one with card=NAME", v;
    if (!card)
        return v.error = card_name.empty()
                             ? "no device fact '" + b.metric + "' and no device card (run kladder make-cards)"
                             : "no card '" + card_name + "'",
               v;
    const nlohmann::json& vals = card->doc["values"];
    if (!vals.contains(b.metric)) {
        std::string names;
        for (const auto& [k, x] : vals.items()) names += (names.empty() ? "" : ", ") + k;
        return v.error = "card " + card_stem(card->path) + " has no '" + b.metric + "' (" + names + ")", v;
    }
    const nlohmann::json& e = vals[b.metric];
    v.ok = true;
    v.value = e["value"].get<double>();
    v.unit = e["unit"].get<std::string>();
    v.device = card->device;
    v.date = card->date;
    v.origin = card->path;
    v.what = e.contains("what") && e["what"].is_string() ? e["what"].get<std::string>() : b.metric;
    v.shown = format_bound(v.value, v.unit, b.decimals, b.bare);
    v.as_shown_device = card_name.empty();  // card=NAME names its GPU; without, "this device's"
    v.shown += measured_elsewhere(v, b.bare);
    return v;
}

BoundValue NumberSources::resolve_own_rates(const Binding& b, const std::string& card_name) const {
    if (!card_name.empty())
        return BoundValue::failed("device own_rates takes no card=NAME: a card's rates are its own");
    bool own = !device_ || (live_calibration_ && live_calibration_->copy_gbps > 0);
    for (const auto& c : cards_)
        if (device_ && c.device == device_gpu_name(device_->name)) own = true;
    BoundValue v;
    v.ok = true;
    v.value = own ? 1 : 0;
    v.what = own ? "the shown device's rates are its own" : "the shown device borrows another GPU's rates";
    v.shown = format_bound(v.value, v.unit, 0, b.bare);
    return v;
}

namespace {
// "peer gelu_tanh · torch.F.gelu · n=268435456": what was measured and how, in words (its
// measured values are the bound number itself).
std::string describe_peer(const nlohmann::json& e) {
    std::string s = "peer " + e.value("what", std::string());
    if (e.contains("impl") && e["impl"].is_string()) s += " \xC2\xB7 " + e["impl"].get<std::string>();
    static const char* const kMeasures[] = {"what",   "impl",      "gbps",      "ms",         "us",
                                            "tflops", "max_error", "kernels",   "gpu_us",     "span_us",
                                            "gap_us", "cpu_us",    "launch_us", "kernel_list"};
    for (const auto& [k, x] : e.items()) {
        if (std::find(std::begin(kMeasures), std::end(kMeasures), k) != std::end(kMeasures)) continue;
        if (x.is_string()) s += " \xC2\xB7 " + k + "=" + x.get<std::string>();
        if (x.is_number()) s += " \xC2\xB7 " + k + "=" + x.dump();
    }
    return s;
}
}  // namespace

BoundValue NumberSources::resolve_peer(const Binding& b) const {
    BoundValue v;
    std::string what = b.target.substr(5), from;
    static const std::map<std::string, std::string> units = {
        {"gbps", "GB/s"}, {"ms", "ms"}, {"us", "µs"}, {"tflops", "TFLOP/s"}, {"extra_gib", "GiB"}};
    // [profile] a torch.profiler recording's figures (bound_kernels.h): its kernels, their times
    // and names, the host's launch and CPU time
    std::string profile_unit;
    const bool profile = is_profile_peer_metric(b.metric, &profile_unit);
    const bool names_device = b.metric == "device";  // whose session the entry is: text
    auto unit = units.find(b.metric);
    if (unit == units.end() && !profile && !names_device)
        return v.error = "peer metric '" + b.metric +
                         "' is not gbps, ms, us, tflops, extra_gib, kernels, gpu_us, span_us, gap_us, cpu_us, "
                         "launch_us, kernelN_us, kernelN_name or device",
               v;
    std::string field = b.metric == "us" ? "ms" : b.metric;  // peers record ms
    auto key_matches = [](const nlohmann::json& x, const std::string& want) {
        if (x.is_boolean()) return (want == "1" || want == "true") == x.get<bool>();
        if (x.is_number_integer()) return parse_bound_int(want) == std::optional<int64_t>(x.get<int64_t>());
        if (x.is_string()) return x.get<std::string>() == want;
        return false;
    };
    for (const auto& [k, val] : b.keys)
        if (k == "from") from = val;
    for (const auto& p : peers_) {
        if (!from.empty() && card_stem(p.path) != from) continue;
        for (const auto& e : p.entries) {
            if (!e.is_object() || e.value("what", "") != what) continue;
            bool all = true;
            for (const auto& [k, val] : b.keys)
                if (k != "from" && (!e.contains(k) || !key_matches(e[k], val))) all = false;
            if (!all) continue;
            std::string name, why;
            if (names_device) {
                name = p.device;
                v.text = true;
            } else if (profile) {
                // The entry asked for: what it holds is the answer, and a value off the schema
                // is refused naming the file, the field and the value (never skipped for an older one).
                if (!profile_figure(e, b.metric, &v.value, &name, &why))
                    return v.error = p.path + ": " + describe_peer(e) + ": " + why, v;
                v.unit = profile_unit;
                v.text = !name.empty();
            } else {
                if (!e.contains(field) || !e[field].is_number()) continue;
                v.value = e[field].get<double>() * (b.metric == "us" ? 1e3 : 1);
                v.unit = unit->second;
            }
            v.ok = true;
            v.device = p.device;
            v.date = p.date;
            v.origin = p.path;
            v.what = describe_peer(e);
            const int decimals = b.metric == "kernels" && b.decimals < 0 ? 0 : b.decimals;  // a count
            v.shown = v.text ? name : format_bound(v.value, v.unit, decimals, b.bare);
            return v;
        }
    }
    return v.error = "no peer figure '" + what + "' with those keys" + (from.empty() ? "" : " in " + from), v;
}

}  // namespace kl
