// What tests and scripts do to the window from outside, kept out of the product: the command-line
// test hooks (--screenshot, --script, --run, --kill-runner-after, --report ...), the screenshot
// writer and the JSON report of what happened. main.cpp's loop calls the four methods of
// TestDriver at fixed points of every frame and otherwise knows nothing of tests; the Workbook
// offers the driver only what a reader could do or see (start a job, is it busy, the runner log).
// docs/gui.md ("Driving the window") describes the options and the report.
#pragma once
#include <imgui.h>

#include <chrono>
#include <string>

#include "gui/script_player.h"

namespace CLI {
class App;
}

namespace kl::gui {

class Workbook;

struct TestOptions {
    std::string screenshot_path;       // render, save a PNG, exit
    int frames = 6;                    // frames rendered after the window settles, before the screenshot
    float hover_x = -1, hover_y = -1;  // screenshots: the mouse there (window pixels), else outside
    std::string script_path;           // scripted keys and clicks (script_player.h), then exit
    std::string run_on_start;          // rung | ladder | sweep: a job started at once
    double run_for_s = 0;              // start that job again as it ends, until this long has passed
    int kill_runner_after = -1;        // results received before the runner is killed (once)
    double max_seconds = 0;            // leave after this long (0: never)
    bool exit_when_idle = false;       // leave once the start job is done (and a screenshot taken)
    std::string report_path;           // JSON report of what happened (tests read it)
    std::string state_path;            // the window's state, rewritten as it goes idle and wakes
    // Something ends the run without a person closing the window (--headless needs one).
    bool ends_by_itself() const {
        return !screenshot_path.empty() || exit_when_idle || max_seconds > 0 || !script_path.empty();
    }
};

// Adds the test hooks to the command line, writing into `options`.
void add_test_options(CLI::App& app, TestOptions& options);

class TestDriver {
  public:
    explicit TestDriver(TestOptions options) : options_(std::move(options)) {}
    // Reads the script, if any; false with *error ("cannot read x.txt") otherwise.
    bool load(std::string* error);
    // A screenshot run: no vsync, no frame pacing, no window size saved, the mouse held still.
    bool screenshot_mode() const { return !options_.screenshot_path.empty(); }
    // Screenshots, scripts and --run count and drive frames: the window draws every frame for
    // them instead of waiting for input (redraw_gate.h). --max-seconds alone leaves it idle.
    bool draws_every_frame() const {
        return screenshot_mode() || !options_.script_path.empty() || !options_.run_on_start.empty() ||
               options_.exit_when_idle || options_.kill_runner_after >= 0;
    }
    // The first frame is on screen: the process's CPU time since exec (all threads) and the
    // wall time since main(), for the report's "first_frame" (docs/gui.md, "Start-up").
    void first_frame_presented(double cpu_ms, double wall_ms) { first_frame_ = {cpu_ms, wall_ms}; }
    // While the window draws nothing (idle): --max-seconds is still kept, and --state-file says
    // the window is idle the first time in a row this is called.
    void between_frames(Workbook& workbook);
    // Between the platform backend's NewFrame and ImGui::NewFrame: this frame's scripted or fixed
    // input, and the --run job started (again).
    void before_frame(ImGuiIO& io, Workbook& workbook);
    // After the frame is rendered, before it is presented: screenshots of the buffer just drawn
    // (`read_buffer`, width x height), the runner killed, the window asked to leave.
    void after_render(Workbook& workbook, unsigned read_buffer, int width, int height);
    // After the loop: the frame-time summary on stdout, the report file, the errors shown on
    // stderr. Returns the exit code: 0, or 3 when a screenshot, the report or the script failed.
    int finish(Workbook& workbook);

  private:
    bool settled(const Workbook& workbook) const;  // nothing pending; the start job is over
    bool start_job_again(const Workbook& workbook) const;
    void kill_runner_hook(Workbook& workbook);
    void leave_when_done(Workbook& workbook, unsigned read_buffer, int width, int height);
    void leave_when_out_of_time(Workbook& workbook);
    void write_state(const Workbook& workbook, bool idle, bool exited = false);

    TestOptions options_;
    ScriptPlayer script_;
    using Clock = std::chrono::steady_clock;
    Clock::time_point started_ = Clock::now();
    int frames_ = 0, frames_since_ready_ = 0;
    bool screenshot_taken_ = false;
    std::pair<double, double> first_frame_{-1, -1};  // CPU ms, wall ms
    int exit_code_ = 0;
    // --run and --run-for
    bool start_job_submitted_ = false;
    int start_jobs_ = 0;
    Clock::time_point start_job_time_;
    // --kill-runner-after
    bool killed_runner_ = false;
    int results_seen_ = 0;
    // --state-file: whether the file last said idle, and how many times it said so
    bool idle_reported_ = false;
    int idle_periods_ = 0;
};

}  // namespace kl::gui
