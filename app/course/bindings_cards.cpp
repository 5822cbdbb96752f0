// Bindings to a device's reference card and to PyTorch peer figures (bindings.h): the `device`
// and `peer/WHAT` targets of lesson text.
#include <filesystem>

#include "course/bindings.h"
#include "model/device_card.h"

namespace kl {

namespace {
std::string stem_of(const std::string& path) { return std::filesystem::path(path).stem().string(); }
}  // namespace

BoundValue NumberSources::resolve_device(const Binding& b) const {
    BoundValue v;
    std::string card_name;
    for (const auto& [k, val] : b.keys) {
        if (k != "card") return v.error = "device bindings take only card=NAME, not '" + k + "'", v;
        card_name = val;
    }
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
        v.shown = format_bound(v.value, v.unit, b.decimals, b.bare);
        return v;
    }
    const DeviceCard* card = nullptr;
    for (const auto& c : cards_)
        if (card_name.empty() ? c.device == preferred_device_
                              : stem_of(c.path) == card_name || device_slug(c.device) == card_name)
            card = &c;
    if (!card && card_name.empty() && cards_.size() == 1) card = &cards_.front();
    if (!card && card_name.empty() && cards_.size() > 1)
        return v.error = "several device cards and none of the preferred device: name one with card=NAME", v;
    if (!card)
        return v.error = card_name.empty() ? "no device card (run kladder make-cards)" : "no card '" + card_name + "'",
               v;
    const nlohmann::json& vals = card->doc["values"];
    if (!vals.contains(b.metric)) {
        std::string names;
        for (const auto& [k, x] : vals.items()) names += (names.empty() ? "" : ", ") + k;
        return v.error = "card " + stem_of(card->path) + " has no '" + b.metric + "' (" + names + ")", v;
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
    return v;
}

namespace {
// "peer gelu_tanh · torch.F.gelu · n=268435456": what was measured and how, in words (its
// measured values are the bound number itself).
std::string describe_peer(const nlohmann::json& e) {
    std::string s = "peer " + e.value("what", std::string());
    if (e.contains("impl") && e["impl"].is_string()) s += " \xC2\xB7 " + e["impl"].get<std::string>();
    static const char* const kMeasures[] = {"what", "impl", "gbps", "ms", "us", "tflops", "max_error"};
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
    auto unit = units.find(b.metric);
    if (unit == units.end())
        return v.error = "peer metric '" + b.metric + "' is not gbps, ms, us, tflops or extra_gib", v;
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
        if (!from.empty() && stem_of(p.path) != from) continue;
        for (const auto& e : p.entries) {
            if (!e.is_object() || e.value("what", "") != what) continue;
            bool all = true;
            for (const auto& [k, val] : b.keys)
                if (k != "from" && (!e.contains(k) || !key_matches(e[k], val))) all = false;
            if (!all || !e.contains(field) || !e[field].is_number()) continue;
            v.ok = true;
            v.value = e[field].get<double>() * (b.metric == "us" ? 1e3 : 1);
            v.unit = unit->second;
            v.device = p.device;
            v.date = p.date;
            v.origin = p.path;
            v.what = describe_peer(e);
            v.shown = format_bound(v.value, v.unit, b.decimals, b.bare);
            return v;
        }
    }
    return v.error = "no peer figure '" + what + "' with those keys" + (from.empty() ? "" : " in " + from), v;
}

}  // namespace kl
