#include "model/timeline.h"

#include <algorithm>
#include <cmath>

#include "base/errors.h"

namespace kl {

Timeline make_timeline(std::vector<KernelSpan> spans, double event_ms, int keep_at_most) {
    Timeline t;
    t.event_ms = event_ms;
    t.launches = static_cast<int>(spans.size());
    if (spans.empty()) return t;
    std::sort(spans.begin(), spans.end(), [](const KernelSpan& a, const KernelSpan& b) {
        return a.start_us != b.start_us ? a.start_us < b.start_us : a.end_us < b.end_us;
    });
    const double origin = spans.front().start_us;
    double covered = 0, reach = 0, last_end = 0;
    for (auto& s : spans) {
        s.start_us -= origin;
        s.end_us -= origin;
        t.kernel_sum_ms += s.duration_us() / 1e3;
        // Covered time: the union of the spans (concurrent kernels count once).
        if (s.start_us >= reach) {
            covered += s.duration_us();
            reach = s.end_us;
        } else if (s.end_us > reach) {
            covered += s.end_us - reach;
            reach = s.end_us;
        }
        last_end = std::max(last_end, s.end_us);
    }
    t.span_ms = last_end / 1e3;
    t.gap_ms = std::max(0.0, t.span_ms - covered / 1e3);
    if (static_cast<int>(spans.size()) > keep_at_most) spans.resize(static_cast<size_t>(keep_at_most));
    t.kernels = std::move(spans);
    return t;
}

ClockReport make_clock_report(double rated_mhz, double before_mhz, double after_mhz) {
    ClockReport c;
    c.rated_mhz = rated_mhz;
    c.before_mhz = before_mhz;
    c.after_mhz = after_mhz;
    c.throttled = (rated_mhz > 0 && after_mhz < kThrottleFraction * rated_mhz) ||
                  (before_mhz > 0 && after_mhz < 0.9 * before_mhz);
    return c;
}

void add_repetition_clocks(ClockReport& c, const std::vector<double>& ms, const std::vector<double>& mhz) {
    std::vector<double> sampled, at_full_clock;
    c.burst.reset();
    for (size_t i = 0; i < ms.size() && i < mhz.size(); ++i) {
        if (!(mhz[i] > 0)) continue;
        sampled.push_back(mhz[i]);
        if (c.rated_mhz <= 0 || mhz[i] >= kFullClockFraction * c.rated_mhz) at_full_clock.push_back(ms[i]);
    }
    c.sampled_reps = static_cast<int>(sampled.size());
    if (sampled.empty()) return;
    std::sort(sampled.begin(), sampled.end());
    c.during_min_mhz = sampled.front();
    c.during_max_mhz = sampled.back();
    c.during_median_mhz = sampled[sampled.size() / 2];
    c.slow_reps = c.sampled_reps - static_cast<int>(at_full_clock.size());
    if (c.rated_mhz > 0 && c.during_min_mhz < kThrottleFraction * c.rated_mhz) c.throttled = true;
    if (static_cast<int>(at_full_clock.size()) >= kBurstMinReps) c.burst = summarize(at_full_clock);
}

nlohmann::json to_json(const Timeline& t) {
    nlohmann::json ks = nlohmann::json::array();
    for (const auto& k : t.kernels) ks.push_back({{"name", k.name}, {"start_us", k.start_us}, {"end_us", k.end_us}});
    return {{"source", "cupti"},
            {"event_ms", t.event_ms},
            {"kernel_sum_ms", t.kernel_sum_ms},
            {"span_ms", t.span_ms},
            {"gap_ms", t.gap_ms},
            {"launches", t.launches},
            {"dropped", t.dropped},
            {"repetitions", t.repetitions},
            {"mode", t.mode},
            {"clock_before_mhz", t.clock_before_mhz},
            {"clock_after_mhz", t.clock_after_mhz},
            {"kernels", ks}};
}

nlohmann::json to_json(const ClockReport& c) {
    nlohmann::json j = {{"rated_mhz", c.rated_mhz},
                        {"before_mhz", c.before_mhz},
                        {"after_mhz", c.after_mhz},
                        {"throttled", c.throttled}};
    if (c.sampled_reps > 0)
        j["during"] = {
            {"reps", c.sampled_reps},      {"min_mhz", c.during_min_mhz}, {"median_mhz", c.during_median_mhz},
            {"max_mhz", c.during_max_mhz}, {"slow_reps", c.slow_reps},    {"full_clock_fraction", kFullClockFraction}};
    if (c.burst)
        j["burst"] = {{"median_ms", c.burst->median_ms},
                      {"min_ms", c.burst->min_ms},
                      {"max_ms", c.burst->max_ms},
                      {"rel_spread", c.burst->rel_spread},
                      {"reps", c.burst->reps}};
    if (c.hold_us > 0) j["hold_us"] = c.hold_us;  // [hold]
    return j;
}

namespace {
[[noreturn]] void bad(const std::string& origin, const std::string& field, const std::string& what) {
    throw InputError(origin + ": " + field + ": " + what);
}
double number(const nlohmann::json& j, const char* key, const std::string& origin, const std::string& field) {
    if (!j.contains(key) || !j[key].is_number()) bad(origin, field + "." + key, "expected a number");
    const double v = j[key].get<double>();
    if (!std::isfinite(v) || v < 0) bad(origin, field + "." + key, "expected a finite number >= 0");
    return v;
}
int count(const nlohmann::json& j, const char* key, const std::string& origin, const std::string& field) {
    const double v = number(j, key, origin, field);
    if (v != std::floor(v) || v > 1e9) bad(origin, field + "." + key, "expected a whole number of repetitions");
    return static_cast<int>(v);
}

void read_during(const nlohmann::json& j, const std::string& origin, const std::string& field, ClockReport& c) {
    if (!j.is_object()) bad(origin, field, "expected an object");
    c.sampled_reps = count(j, "reps", origin, field);
    c.during_min_mhz = number(j, "min_mhz", origin, field);
    c.during_median_mhz = number(j, "median_mhz", origin, field);
    c.during_max_mhz = number(j, "max_mhz", origin, field);
    c.slow_reps = count(j, "slow_reps", origin, field);
    if (c.during_min_mhz > c.during_median_mhz || c.during_median_mhz > c.during_max_mhz)
        bad(origin, field, "min_mhz <= median_mhz <= max_mhz does not hold");
    if (c.slow_reps > c.sampled_reps) bad(origin, field + ".slow_reps", "more than the sampled repetitions");
}

TimingStats read_burst(const nlohmann::json& j, const std::string& origin, const std::string& field,
                       const ClockReport& c) {
    if (!j.is_object()) bad(origin, field, "expected an object");
    TimingStats t;
    t.median_ms = number(j, "median_ms", origin, field);
    t.min_ms = number(j, "min_ms", origin, field);
    t.max_ms = number(j, "max_ms", origin, field);
    t.mean_ms = t.median_ms;
    t.rel_spread = number(j, "rel_spread", origin, field);
    t.reps = count(j, "reps", origin, field);
    if (!(t.min_ms > 0) || t.min_ms > t.median_ms || t.median_ms > t.max_ms)
        bad(origin, field, "0 < min_ms <= median_ms <= max_ms does not hold");
    if (t.reps < kBurstMinReps || t.reps > c.sampled_reps - c.slow_reps)
        bad(origin, field + ".reps", "not the count of full-clock repetitions in 'during'");
    return t;
}
}  // namespace

Timeline timeline_from_json(const nlohmann::json& j, const std::string& origin, const std::string& field) {
    if (!j.is_object()) bad(origin, field, "expected an object or null");
    Timeline t;
    t.event_ms = number(j, "event_ms", origin, field);
    t.kernel_sum_ms = number(j, "kernel_sum_ms", origin, field);
    t.span_ms = number(j, "span_ms", origin, field);
    t.gap_ms = number(j, "gap_ms", origin, field);
    t.launches = static_cast<int>(std::min(number(j, "launches", origin, field), 1e9));
    t.dropped = j.contains("dropped") ? static_cast<int>(std::min(number(j, "dropped", origin, field), 1e9)) : 0;
    t.repetitions =
        j.contains("repetitions") ? static_cast<int>(std::min(number(j, "repetitions", origin, field), 1e9)) : 1;
    if (j.contains("mode")) {  // absent in files written before the kind was recorded
        if (!j["mode"].is_string() || (j["mode"] != "kernel" && j["mode"] != "concurrent"))
            bad(origin, field + ".mode", "expected \"kernel\" or \"concurrent\"");
        t.mode = j["mode"].get<std::string>();
    } else {
        t.mode = "concurrent";
    }
    t.clock_before_mhz = j.contains("clock_before_mhz") ? number(j, "clock_before_mhz", origin, field) : 0;
    t.clock_after_mhz = j.contains("clock_after_mhz") ? number(j, "clock_after_mhz", origin, field) : 0;
    if (!j.contains("kernels") || !j["kernels"].is_array()) bad(origin, field + ".kernels", "expected an array");
    const auto& ks = j["kernels"];
    if (ks.size() > 100000) bad(origin, field + ".kernels", "more than 100000 entries");
    for (size_t i = 0; i < ks.size(); ++i) {
        const std::string f = field + ".kernels[" + std::to_string(i) + "]";
        if (!ks[i].is_object() || !ks[i].contains("name") || !ks[i]["name"].is_string())
            bad(origin, f + ".name", "expected a string");
        KernelSpan s{ks[i]["name"].get<std::string>(), number(ks[i], "start_us", origin, f),
                     number(ks[i], "end_us", origin, f)};
        if (s.end_us < s.start_us) bad(origin, f, "end_us < start_us");
        t.kernels.push_back(std::move(s));
    }
    return t;
}

ClockReport clock_from_json(const nlohmann::json& j, const std::string& origin, const std::string& field) {
    if (!j.is_object()) bad(origin, field, "expected an object or null");
    ClockReport c;
    c.rated_mhz = number(j, "rated_mhz", origin, field);
    c.before_mhz = number(j, "before_mhz", origin, field);
    c.after_mhz = number(j, "after_mhz", origin, field);
    if (!j.contains("throttled") || !j["throttled"].is_boolean())
        bad(origin, field + ".throttled", "expected true or false");
    c.throttled = j["throttled"].get<bool>();
    if (j.contains("during")) read_during(j["during"], origin, field + ".during", c);
    if (j.contains("burst")) c.burst = read_burst(j["burst"], origin, field + ".burst", c);
    if (j.contains("hold_us")) {  // [hold] a wait of up to 100 ms (KL_HOLD_US's limit)
        c.hold_us = number(j, "hold_us", origin, field);
        if (!(c.hold_us >= 0 && c.hold_us <= 100'000)) bad(origin, field + ".hold_us", "not from 0 to 100000 us");
    }
    return c;
}

}  // namespace kl
