#include "gui/test_driver.h"

#include <GL/gl.h>
#include <signal.h>
#include <sys/stat.h>
#include <stb_image_write.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <vector>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/printable.h"
#include "gui/widgets.h"
#include "gui/workbook.h"

namespace kl::gui {

namespace {

// Writes a file the driver was asked for (a screenshot, the report) through the one atomic
// writer, base/atomic_file. A device or FIFO given as the path is refused, never replaced (as
// root, renaming over /dev/null would replace the device node): the writer refuses those itself
// once issue 13's writers are merged into it; until then this check keeps a test run harmless.
bool write_output(const std::string& path, const std::string& bytes, std::string* error) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        *error = "cannot write '" + path + "': it is not a regular file; not replaced";
        return false;
    }
    try {
        write_file_atomically(path, bytes);
    } catch (const Error& e) {
        *error = e.what();
        return false;
    }
    return true;
}

// Reads the buffer just rendered (back buffer or off-screen) and writes it as a PNG.
bool save_screenshot(const std::string& path, unsigned read_buffer, int width, int height, std::string* error) {
    std::vector<unsigned char> pixels(size_t(width) * size_t(height) * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(read_buffer);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    // OpenGL rows run bottom-up; PNG rows top-down. Alpha is forced opaque.
    std::vector<unsigned char> flipped(pixels.size());
    size_t stride = size_t(width) * 4;
    for (int y = 0; y < height; ++y)
        std::copy_n(&pixels[size_t(height - 1 - y) * stride], stride, &flipped[size_t(y) * stride]);
    for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;
    // Encoded in memory, then written by the one atomic writer: a full disk or a missing folder
    // is an error (exit 3), never a truncated PNG left behind with exit 0.
    std::string png;
    auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
    };
    if (!stbi_write_png_to_func(append, &png, width, height, 4, flipped.data(), int(stride)) || png.empty()) {
        *error = "cannot encode " + path;
        return false;
    }
    return write_output(path, png, error);
}

// One line, every stage: "build p50/p99 ..., swap ..., interval ..." (docs/gui.md reads it).
void print_frame_summary(const Workbook& workbook) {
    const FrameStats& fs = workbook.frame_stats();
    std::string stages;
    for (int i = 0; i < FrameStats::kStages; ++i) {
        auto st = FrameStats::Stage(i);
        char part[96];
        std::snprintf(part, sizeof part, "%s%s p50 %.2f p99 %.2f", i ? "; " : "", FrameStats::stage_name(st),
                      fs.percentile(st, 50), fs.percentile(st, 99));
        stages += part;
    }
    std::printf("kernel-ladder: %zu frames; ms: %s\n", fs.count(), stages.c_str());
    const FrameStats& js = workbook.job_frame_stats();
    if (js.count() > 0)
        std::printf("kernel-ladder: %zu frames during jobs; ms: work p50 %.2f p99 %.2f; interval p50 %.2f p99 %.2f\n",
                    js.count(), js.percentile(FrameStats::Work, 50), js.percentile(FrameStats::Work, 99),
                    js.percentile(FrameStats::Interval, 50), js.percentile(FrameStats::Interval, 99));
}

}  // namespace

void add_test_options(CLI::App& app, TestOptions& opt) {
    app.add_option("--screenshot", opt.screenshot_path, "render a few frames, save this PNG, exit");
    app.add_option("--frames", opt.frames, "frames to render before the screenshot (default 6)")
        ->check(CLI::Range(2, 100000));
    app.add_option(
        "--hover",
        [&opt](CLI::results_t r) { return std::sscanf(r[0].c_str(), "%f,%f", &opt.hover_x, &opt.hover_y) == 2; },
        "screenshots: put the mouse at X,Y (window pixels) to show a tooltip; otherwise it stays outside");
    app.add_option("--run", opt.run_on_start, "test hook: start a job at once (rung, ladder or sweep)")
        ->check(CLI::IsMember({"rung", "ladder", "sweep"}));
    app.add_option("--run-for", opt.run_for_s,
                   "test hook: start the --run job again as it ends, until this many seconds have passed")
        ->check(CLI::Range(0.0, 3600.0));
    app.add_option("--kill-runner-after", opt.kill_runner_after,
                   "test hook: SIGKILL the runner after this many results");
    app.add_option("--max-seconds", opt.max_seconds, "test hook: leave after this many seconds");
    app.add_flag("--exit-when-idle", opt.exit_when_idle, "test hook: leave when the --run job is over");
    app.add_option("--report", opt.report_path, "test hook: write a JSON report of what happened here");
    app.add_option("--state-file", opt.state_path,
                   "test hook: write the window's state (JSON: idle, frames drawn, lesson, step, runner) each time "
                   "it goes idle or wakes, and at exit");
    app.add_option("--script", opt.script_path,
                   "test hook: play scripted keys and clicks (see app/gui/script_player.h), then exit");
}

bool TestDriver::load(std::string* error) {
    if (options_.script_path.empty()) return true;
    if (!script_.load(options_.script_path, error)) return false;
    set_test_targets_enabled(true);
    return true;
}

void TestDriver::before_frame(ImGuiIO& io, Workbook& workbook) {
    // Screenshots do not depend on where the display's pointer happens to be.
    if (screenshot_mode())
        io.MousePos = options_.hover_x >= 0 ? ImVec2(options_.hover_x, options_.hover_y) : ImVec2(-FLT_MAX, -FLT_MAX);
    // Scripts start once the recorded results are in (read on a worker at start): "wait 5" and
    // a click on a card mean the same on a loaded machine as on an idle one.
    if (!options_.script_path.empty() && workbook.loading()) {
        io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
        clear_test_targets();
    } else if (!options_.script_path.empty()) {
        // Busy for `wait_idle`: a job, or the PTX the Source panel is waiting for.
        script_.apply(io,
                      {workbook.busy() || workbook.ptx_pending(), workbook.job_running(), workbook.results_received()});
        clear_test_targets();  // this frame records what is on screen now
    }
    const std::string& what = options_.run_on_start;
    if (what.empty() || (start_job_submitted_ && !start_job_again(workbook))) return;
    if (!start_job_submitted_) start_job_time_ = Clock::now();
    start_job_submitted_ = true;
    ++start_jobs_;
    Job::Kind kind = what == "rung" ? Job::Kind::Rung : what == "ladder" ? Job::Kind::Ladder : Job::Kind::Sweep;
    if (std::string why; !workbook.run(kind, &why))
        workbook.log("--run " + what + ": nothing was started (" + why + ")", true);
}

void TestDriver::between_frames(Workbook& workbook) {
    leave_when_out_of_time(workbook);
    // The main loop waited and nothing came: the redraw gate is closed (nothing animates, the
    // recorded results are in, no settle frames are left, no news). Said once per idle period.
    if (!options_.state_path.empty() && !idle_reported_ && !workbook.wants_to_quit()) {
        idle_reported_ = true;
        ++idle_periods_;
        write_state(workbook, true);
    }
}

void TestDriver::after_render(Workbook& workbook, unsigned read_buffer, int width, int height) {
    ++frames_;
    if (idle_reported_) {  // awake again: the file no longer says idle
        idle_reported_ = false;
        write_state(workbook, false);
    }
    kill_runner_hook(workbook);
    if (std::string shot; script_.take_screenshot(&shot)) {
        std::string error;
        if (!save_screenshot(shot, read_buffer, width, height, &error))
            std::fprintf(stderr, "kernel-ladder: script shot: %s\n", error.c_str());
    }
    if (std::string path; script_.take_report(&path)) {  // `report FILE`: the state at this point
        std::string error;
        if (!write_output(path, workbook.report().dump(1) + "\n", &error))
            std::fprintf(stderr, "kernel-ladder: script report: %s\n", error.c_str());
    }
    leave_when_done(workbook, read_buffer, width, height);
}

bool TestDriver::settled(const Workbook& workbook) const {
    if (workbook.ptx_pending() || workbook.loading()) return false;
    if (options_.run_on_start.empty()) return true;
    // After a fault, "over" includes seeing the runner leave (the window must outlive it).
    return start_job_submitted_ && !workbook.job_running() && !workbook.runner_leaving() && !start_job_again(workbook);
}

// --run-for: time is left and the last job ended cleanly.
bool TestDriver::start_job_again(const Workbook& workbook) const {
    if (options_.run_for_s <= 0 || !start_job_submitted_ || workbook.job_running() || workbook.runner_failures() > 0)
        return false;
    return std::chrono::duration<double>(Clock::now() - start_job_time_).count() < options_.run_for_s;
}

// --kill-runner-after N: the runner is killed the hard way, as a crash would, in the frame the
// Nth result arrives (the runner is then busy with the next request of the job).
void TestDriver::kill_runner_hook(Workbook& workbook) {
    int results = workbook.results_received();
    bool new_result = results > results_seen_;
    results_seen_ = results;
    if (options_.kill_runner_after < 0 || killed_runner_ || !new_result || results < options_.kill_runner_after) return;
    killed_runner_ = true;
    int pid = workbook.runner_pid();
    workbook.log("test hook: sending SIGKILL to the runner (pid " + std::to_string(pid) + ")");
    if (pid > 0) ::kill(pid, SIGKILL);
}

void TestDriver::leave_when_done(Workbook& workbook, unsigned read_buffer, int width, int height) {
    if (!options_.script_path.empty() && script_.done() && !screenshot_mode()) workbook.request_quit();
    if (screenshot_mode() && !screenshot_taken_) {
        // Wait for the start job (if any), then a few frames so that layout settles.
        frames_since_ready_ = settled(workbook) ? frames_since_ready_ + 1 : 0;
        if (frames_since_ready_ >= options_.frames) {
            std::string error;
            if (!save_screenshot(options_.screenshot_path, read_buffer, width, height, &error)) {
                std::fprintf(stderr, "kernel-ladder: screenshot: %s\n", error.c_str());
                exit_code_ = 3;
            }
            screenshot_taken_ = true;
            if (!options_.exit_when_idle || settled(workbook)) workbook.request_quit();
        }
    }
    if (options_.exit_when_idle && !screenshot_mode() && settled(workbook) && frames_ > 3) workbook.request_quit();
    leave_when_out_of_time(workbook);
}

void TestDriver::leave_when_out_of_time(Workbook& workbook) {
    if (options_.max_seconds > 0 && !workbook.wants_to_quit() &&
        std::chrono::duration<double>(Clock::now() - started_).count() > options_.max_seconds) {
        std::fprintf(stderr, "kernel-ladder: --max-seconds reached\n");
        workbook.request_quit();
    }
}

// Tests wait for this instead of sleeping (tests/gui/window_state.py): "idle" is the window's
// own word that it has nothing left to do, whatever the machine's load. `frames` counts every
// frame drawn since start, so a test can count the frames of an interval that starts at idle.
void TestDriver::write_state(const Workbook& workbook, bool idle, bool exited) {
    const nlohmann::json report = workbook.report();
    const nlohmann::json state = {{"idle", idle},
                                  {"exited", exited},
                                  {"frames", frames_},
                                  {"idle_periods", idle_periods_},
                                  {"loading", workbook.loading()},
                                  {"busy", workbook.busy()},
                                  {"lesson", report["state"]["lesson"]},
                                  {"step", report["state"]["step"]},
                                  {"runner", {{"hello", report["runner"]["hello"]}, {"gpu", report["runner"]["gpu"]}}},
                                  {"errors_shown", report["errors_shown"]}};
    if (std::string error; !write_output(options_.state_path, state.dump() + "\n", &error)) {
        std::fprintf(stderr, "kernel-ladder: --state-file: %s\n", error.c_str());
        exit_code_ = 3;
    }
}

int TestDriver::finish(Workbook& workbook) {
    workbook.finish_loading();  // a run that ended early reports the recorded results all the same
    print_frame_summary(workbook);
    if (!options_.state_path.empty()) write_state(workbook, false, /*exited=*/true);
    if (!options_.report_path.empty()) {
        nlohmann::json report = workbook.report();
        report["frames_drawn"] = frames_;  // every frame, the first two included (cf. "frames")
        report["runner"]["killed_by_test"] = killed_runner_;
        report["runner"]["start_jobs"] = start_jobs_;
        report["first_frame"] = {{"cpu_ms", first_frame_.first}, {"wall_ms", first_frame_.second}};
        if (!options_.script_path.empty())
            report["script"] = {
                {"errors", script_.errors()}, {"played", script_.done_lines()}, {"finished", script_.done()}};
        if (std::string error; !write_output(options_.report_path, report.dump(1) + "\n", &error)) {
            std::fprintf(stderr, "kernel-ladder: --report: %s\n", error.c_str());
            if (exit_code_ == 0) exit_code_ = 3;
        }
    }
    for (const auto& e : workbook.logged_errors())
        std::fprintf(stderr, "kernel-ladder: error shown: %s\n", printable(e, kMessageChars).c_str());
    for (const auto& e : script_.errors())
        std::fprintf(stderr, "kernel-ladder: script: %s\n", printable(e, kMessageChars).c_str());
    if (!script_.errors().empty() && exit_code_ == 0) exit_code_ = 3;
    return exit_code_;
}

}  // namespace kl::gui
