// [stopwatch] How the window, the figures and the handouts name the stopwatch that timed a figure
// (issue 36, "One clock"; gpu/span_stopwatch.h measures, results.h records). Figures of two
// stopwatches are not comparable (the events add the launch's front end, about 1-1.5 us a
// repetition on the H200: docs/tuning/timing.md), so a table or plot that mixes them says so in
// one line. No CUDA: the window links it.
#pragma once
#include <string>
#include <vector>

#include "model/results.h"

namespace kl {

constexpr const char* kStopwatchEvents = "events";
constexpr const char* kStopwatchSpan = "span";

// The record's stopwatch name: "span", else "events" (also for files before 2026-12-01, which
// carry none).
std::string stopwatch_of(const RunRecord& r);
// "CUDA events" or "GPU span (CUPTI)" for a stopwatch name; the name itself for anything else.
std::string stopwatch_label(const std::string& name);
// True for "events" and "span" (what KL_STOPWATCH, settings and the protocol accept).
bool is_stopwatch_name(const std::string& name);
// The tooltip's lines for a timed record: "timed by GPU span (CUPTI); CUDA events of the same
// repetitions 36.10 us (+3.2%)", then "stopwatch note: ..." when the record has one, then the hold
// ("held 412 us before each repetition") when recorded. Empty for an untimed record.
std::vector<std::string> stopwatch_lines(const RunRecord& r);
// For the timed ones among `runs`: "" when they share one stopwatch; else one line naming how
// many each has and that they are not comparable.
std::string mixed_stopwatch_line(const std::vector<const RunRecord*>& runs);
// A caption's part: the one stopwatch the timed runs share ("CUDA events", "GPU span (CUPTI)"),
// the mixed line when they do not share one, "" when none is timed.
std::string stopwatch_caption(const std::vector<const RunRecord*>& runs);

}  // namespace kl
