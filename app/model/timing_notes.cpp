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

// "during timing 1740-1980 MHz (median 1830); 212 of 300 repetitions below 98% of rated:
// sustained 0.529 ms (all), burst 0.512 ms (88 at full clock, -3.2%)"
std::string clock_during_note(const ClockReport& c, const std::optional<TimingStats>& sustained) {
    std::string s =
        fmt("during timing %.0f-%.0f MHz (median %.0f); ", c.during_min_mhz, c.during_max_mhz, c.during_median_mhz) +
        std::to_string(c.slow_reps) + " of " + std::to_string(c.sampled_reps) +
        fmt(" repetitions below %.0f%% of rated", kFullClockFraction * 100);
    if (!sustained) return s;
    s += fmt(": sustained %.4f ms (all)", sustained->median_ms);
    if (!c.burst) return s + ", no burst figure (fewer than " + std::to_string(kBurstMinReps) + " at full clock)";
    return s + fmt(", burst %.4f ms (%.0f at full clock, %+.1f%%)", c.burst->median_ms, c.burst->reps,
                   (c.burst->median_ms / sustained->median_ms - 1) * 100);
}

std::vector<std::string> timing_notes(const RunRecord& r) {
    std::vector<std::string> out;
    const std::string who = r.rung + ": ";
    if (r.mode_timing && r.timing)
        out.push_back(
            who + "measured the wrong way (" + r.mode + ") " +
            fmt("%.2f us, the runner's median %.2f us", r.mode_timing->median_ms * 1e3, r.timing->median_ms * 1e3));
    if (r.stopwatch == "span" && r.timing && r.event_median_ms > 0)  // [stopwatch]
        out.push_back(who + fmt("stopwatch: GPU span %.2f us, events of the same repetitions %.2f us (%+.1f%%)",
                                r.timing->median_ms * 1e3, r.event_median_ms * 1e3,
                                (r.event_median_ms / r.timing->median_ms - 1) * 100));
    if (!r.stopwatch_note.empty()) out.push_back(who + "stopwatch: " + r.stopwatch_note);
    if (r.timeline)
        out.push_back(
            who + std::to_string(r.timeline->launches) + " kernels traced: " +
            fmt("own time %.2f us, events %.2f us, span %.2f us, gaps %.2f us", r.timeline->kernel_sum_ms * 1e3,
                r.timeline->event_ms * 1e3, r.timeline->span_ms * 1e3, r.timeline->gap_ms * 1e3) +
            (r.timeline->dropped > 0
                 ? "; " + std::to_string(r.timeline->dropped) + " more kernel records without timestamps (not drawn)"
                 : ""));
    else if (!r.timeline_note.empty())
        out.push_back(who + r.timeline_note);
    if (r.clock)
        out.push_back(who +
                      fmt("SM clock %.0f MHz before timing, %.0f after (rated %.0f)", r.clock->before_mhz,
                          r.clock->after_mhz, r.clock->rated_mhz) +
                      (r.clock->throttled ? ": THROTTLED" : "") +
                      (r.clock->hold_us > 0 ? fmt("; held %.0f us before each repetition", r.clock->hold_us) : ""));
    if (r.clock && r.clock->sampled_reps > 0) out.push_back(who + clock_during_note(*r.clock, r.timing));
    return out;
}

}  // namespace kl
