#include "model/stopwatch_label.h"

#include <cstdio>

namespace kl {

namespace {
bool timed(const RunRecord* r) { return r && r->error.empty() && r->timing; }
}  // namespace

std::string stopwatch_of(const RunRecord& r) {
    return r.stopwatch == kStopwatchSpan ? kStopwatchSpan : kStopwatchEvents;
}

std::string stopwatch_label(const std::string& name) {
    if (name == kStopwatchEvents) return "CUDA events";
    if (name == kStopwatchSpan) return "GPU span (CUPTI)";
    return name;
}

bool is_stopwatch_name(const std::string& name) { return name == kStopwatchEvents || name == kStopwatchSpan; }

std::vector<std::string> stopwatch_lines(const RunRecord& r) {
    std::vector<std::string> out;
    if (!timed(&r)) return out;
    std::string line = "timed by " + stopwatch_label(stopwatch_of(r));
    if (stopwatch_of(r) == kStopwatchSpan && r.event_median_ms > 0 && r.timing->median_ms > 0) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "; CUDA events of the same repetitions %.2f us (%+.1f%%)",
                      r.event_median_ms * 1e3, (r.event_median_ms / r.timing->median_ms - 1) * 100);
        line += buf;
    }
    out.push_back(line);
    if (!r.stopwatch_note.empty()) out.push_back("stopwatch note: " + r.stopwatch_note);
    if (r.clock && r.clock->hold_us > 0) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "held %.0f us before each repetition", r.clock->hold_us);
        out.push_back(buf);
    }
    return out;
}

std::string mixed_stopwatch_line(const std::vector<const RunRecord*>& runs) {
    int events = 0, span = 0;
    for (const RunRecord* r : runs)
        if (timed(r)) ++(stopwatch_of(*r) == kStopwatchSpan ? span : events);
    if (events == 0 || span == 0) return "";
    return "mixed stopwatches: " + std::to_string(events) + " timed by CUDA events, " + std::to_string(span) +
           " by GPU span (CUPTI); figures of the two are not comparable";
}

std::string stopwatch_caption(const std::vector<const RunRecord*>& runs) {
    if (std::string mixed = mixed_stopwatch_line(runs); !mixed.empty()) return mixed;
    for (const RunRecord* r : runs)
        if (timed(r)) return stopwatch_label(stopwatch_of(*r));
    return "";
}

}  // namespace kl
