// The values the workbook shares with its callers and panels: the window's command-line options,
// a job for the runner, and a card of the ladder strip as text ready to draw.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kl {
struct StoredRun;  // report/results_store.h
}  // namespace kl

namespace kl::gui {

// Command-line options of kernel-ladder (main.cpp parses them; the test hooks are TestOptions,
// gui/test_driver.h).
struct AppOptions {
    std::string lesson;                      // lesson id, folder or number to open
    int step = -1;                           // 1-based step to open
    std::vector<std::string> results_paths;  // results files shown besides assets/recorded
    bool no_recorded = false;                // leave assets/recorded out
    std::string compare_device;              // a second recorded device beside the first (part of its name)
    std::vector<std::string> params;         // NAME=VALUE: parameters of the step's rung set at start
    std::string
        view;  // tab to show: plots, sweep, errors, traffic, roofline, source, diff, ptx, questions, cards, exercise
    std::optional<bool> dark;  // theme override (not saved)
    bool no_runner = false;    // never start the runner (screenshots of recorded results)
    bool no_save = false;      // leave the saved settings alone (tests)
    double request_timeout_s = 120;
    int width = 0, height = 0;       // window size override
    bool plant_reveal_leak = false;  // test only: withhold the current step's figures alone (reveal_cache.h)
};

struct Job {
    enum class Kind { Rung, Ladder, Sweep } kind = Kind::Rung;
    std::string label;
    std::vector<uint64_t> requests;
    std::set<uint64_t> open;
    int done = 0, failed = 0;
    int skipped = 0;  // of done: rungs the runner skipped (sizes they cannot take)
    bool cancelled = false;
    std::chrono::steady_clock::time_point started;
};

// One card of the ladder strip, as text ready to draw (workbook_ladder_strip.cpp); its tooltip
// is written on hover.
struct StripCard {
    const StoredRun* run = nullptr;  // at these settings, else (elsewhere) the newest at any
    bool elsewhere = false;
    bool other_params = false;                     // measured at other parameters than the ones set
    std::string target;                            // "card:<rung id>" (scripted tests)
    std::string time, rate, chip, source, detail;  // detail: the error, or where it was measured
    std::string fit_title, fit_rate, fit_source, fit_detail;
    std::string needs;  // "needs sm_90 (Hopper): ..." when the live GPU cannot run the rung
    // Predict, then reveal: why the run's figures are hidden while a prediction about it waits
    // ("until step 5's prediction"); "" when they show.
    std::string withheld, fit_withheld;
    // [stopwatch] "events" or "span" of a card showing a figure ("" otherwise), and the word after its
    // time: "span", "no span" (asked for, not taken), or "" for the events
    std::string stopwatch, stopwatch_mark;
};

// The strip's cards' text, built again when the selection view changes and fitted again when the
// card width or the fonts change (not formatted every frame for every card).
struct StripState {
    uint64_t built_view = 0;  // SelectionView::version the cards were built from
    float fitted_w = -1;      // -1: fit again
    std::vector<StripCard> cards;
    // [tuned] the strip's default/tuned toggle: runs ask the runner for the settings `kladder
    // tune` stored for this GPU and source (RunRequest::tuned; not saved)
    bool tuned = false;
    // [stopwatch] "" or the one line saying the cards' figures mix stopwatches (model/stopwatch_label.h)
    std::string stopwatch_mixed;
    // [hold] "one hold for every rung of this run: 412 us, set by torch_gelu", from the runner's
    // answer to the last run of several rungs with a peer among them, for `hold_ladder`
    std::string hold_line, hold_ladder;
};

// What the last frame laid out, for the report: tests check that the step text keeps its share
// of a laptop's window and that the banner folds to a line (issue 38).
struct WindowLayout {
    float banner_lines = 0;  // the banner's height in text lines (it must not fill the window)
    float window_h = 0, step_text_h = 0, controls_h = 0;  // pixels
};

}  // namespace kl::gui
