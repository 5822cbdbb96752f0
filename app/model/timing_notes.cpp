#include "model/timing_notes.h"

#include <cstdio>

namespace kl {

namespace {
std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, f, a, b, c, d);
    return buf;
}
}  // namespace

std::vector<std::string> timing_notes(const RunRecord& r) {
    std::vector<std::string> out;
    const std::string who = r.rung + ": ";
    if (r.mode_timing && r.timing)
        out.push_back(
            who + "measured the wrong way (" + r.mode + ") " +
            fmt("%.2f us, the runner's median %.2f us", r.mode_timing->median_ms * 1e3, r.timing->median_ms * 1e3));
    if (r.timeline)
        out.push_back(who + std::to_string(r.timeline->launches) + " kernels traced: " +
                      fmt("own time %.2f us, events %.2f us, span %.2f us, gaps %.2f us",
                          r.timeline->kernel_sum_ms * 1e3, r.timeline->event_ms * 1e3, r.timeline->span_ms * 1e3,
                          r.timeline->gap_ms * 1e3));
    else if (!r.timeline_note.empty())
        out.push_back(who + r.timeline_note);
    if (r.clock)
        out.push_back(who +
                      fmt("SM clock %.0f MHz before timing, %.0f after (rated %.0f)", r.clock->before_mhz,
                          r.clock->after_mhz, r.clock->rated_mhz) +
                      (r.clock->throttled ? ": THROTTLED" : ""));
    return out;
}

}  // namespace kl
