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
};

// What the last frame laid out, for the report: tests check that the step text keeps its share
// of a laptop's window and that the banner folds to a line (issue 38).
struct WindowLayout {
    float banner_lines = 0;  // the banner's height in text lines (it must not fill the window)
    float window_h = 0, step_text_h = 0, controls_h = 0;  // pixels
};

}  // namespace kl::gui
