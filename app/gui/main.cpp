// kernel-ladder: the Kernel Ladder workbook (Dear ImGui + GLFW + OpenGL 3).
// The loop follows ImGui's example_glfw_opengl3/main.cpp; the numbered comments match its steps
// (the ImGui context is made before the window here: the surface starts ImGui's platform backend).
// The window itself is behind gui/surface.h: a GLFW window, or with --headless an off-screen
// framebuffer on an EGL context (no display needed; docs/gui.md).
//
//   kernel-ladder                                    open where you left off (lesson 1 the first time)
//   kernel-ladder --lesson 2 --step 4                open a step
//   kernel-ladder --screenshot out.png --lesson 1 --step 3 [--results R.json] [--view source]
//                                                    render a few frames, save a PNG, exit
//   kernel-ladder --headless --run sweep --exit-when-idle --report R.json
//                                                    no window: draw off screen on the GPU, time frames
// Exit codes: 0 ok, 2 bad command line or no window could be opened, 3 a screenshot failed.
#include <GL/gl.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <stb_image_write.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>
#include <vector>

#include "engine/lesson.h"
#include "engine/paths.h"
#include "plot/file_write.h"
#include "gui/script_player.h"
#include "gui/surface.h"
#include "gui/ui_style.h"
#include "gui/widgets.h"
#include "gui/workbook.h"

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
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
    kl::plot::WriteResult written = kl::plot::write_file_atomically(path, png);
    if (!written) {
        *error = written.error;
        return false;
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace kl::gui;
    // [0] Command line
    AppOptions opt;
    CLI::App app{"kernel-ladder: the Kernel Ladder workbook"};
    app.add_option("--lesson", opt.lesson, "lesson to open: id, folder name or number");
    app.add_option("--step", opt.step, "step to open (1-based)")->check(CLI::PositiveNumber);
    app.add_option("--screenshot", opt.screenshot_path, "render a few frames, save this PNG, exit");
    app.add_option("--results", opt.results_paths, "results file(s) to show besides assets/recorded (repeatable)");
    app.add_flag("--no-recorded", opt.no_recorded, "do not load assets/recorded (show only --results and live runs)");
    app.add_option("--param", opt.params, "set a parameter of the step's rung, e.g. --param VPT=8 (repeatable)");
    app.add_option("--compare-device", opt.compare_device,
                   "show a second recorded device's bars beside the first's, e.g. --compare-device H200");
    app.add_option("--frames", opt.frames, "frames to render before the screenshot (default 6)")
        ->check(CLI::Range(2, 100000));
    app.add_option(
        "--view", opt.view,
        "tab to show: bars, sweep, errors, traffic, roofline, occupancy, source, diff, ptx, questions, cards, "
        "exercise");
    std::string theme;
    app.add_option("--theme", theme, "dark or light (not saved)")->check(CLI::IsMember({"dark", "light"}));
    app.add_flag("--no-runner", opt.no_runner, "do not start the GPU runner (show recorded results only)");
    app.add_flag("--no-save", opt.no_save, "do not read or write the saved settings");
    app.add_option(
        "--size",
        [&](CLI::results_t r) {
            return std::sscanf(r[0].c_str(), "%dx%d", &opt.width, &opt.height) == 2 && opt.width >= 320 &&
                   opt.height >= 240;
        },
        "window size, e.g. 1600x960");
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
    float hover_x = -1, hover_y = -1;
    app.add_option(
        "--hover", [&](CLI::results_t r) { return std::sscanf(r[0].c_str(), "%f,%f", &hover_x, &hover_y) == 2; },
        "screenshots: put the mouse at X,Y (window pixels) to show a tooltip; otherwise it stays outside");
    std::string script_path;
    app.add_option("--script", script_path,
                   "test hook: play scripted keys and clicks (see app/gui/script_player.h), then exit");
    bool list_steps = false;
    app.add_flag("--list-steps", list_steps,
                 "print each lesson's id and number of steps (tab-separated), then exit; no window");
    app.add_option("--request-timeout", opt.request_timeout_s,
                   "seconds a rung may run before the runner is stopped (default 120)");
    bool headless = false;
    app.add_flag("--headless", headless,
                 "no window: draw off screen through EGL on the GPU (or Mesa); needs --screenshot, --exit-when-idle, "
                 "--max-seconds or --script");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    if (!theme.empty()) opt.dark = theme == "dark";
    if (list_steps) {
        // For scripts (tests/gui/screenshot_all.sh): what the workbook would show, no window needed.
        std::vector<std::string> ladder_errors;
        std::vector<kl::LessonLoadError> lesson_errors;
        auto ladders = kl::load_all_ladders(kl::kernels_dir(), &ladder_errors);
        auto lessons = kl::load_all_lessons(kl::lessons_dir(), ladders, &lesson_errors);
        for (const auto& l : lessons) std::printf("%s\t%zu\n", l.id.c_str(), l.steps.size());
        for (const auto& e : ladder_errors) std::fprintf(stderr, "kernel-ladder: %s\n", e.c_str());
        for (const auto& e : lesson_errors)
            std::fprintf(stderr, "kernel-ladder: lesson %s: %s\n", e.folder.c_str(), e.message.c_str());
        return ladder_errors.empty() && lesson_errors.empty() ? 0 : 2;
    }
    bool screenshot_mode = !opt.screenshot_path.empty();
    if (headless && !screenshot_mode && !opt.exit_when_idle && opt.max_seconds <= 0 && script_path.empty()) {
        std::fprintf(stderr,
                     "kernel-ladder: --headless has no window to close: add --screenshot, --exit-when-idle, "
                     "--max-seconds or --script\n");
        return 2;
    }

    std::string settings_warning;
    Settings settings = opt.no_save ? Settings{} : load_settings(settings_path(), &settings_warning);
    if (!settings_warning.empty()) std::fprintf(stderr, "kernel-ladder: %s\n", settings_warning.c_str());
    if (opt.dark) settings.dark = *opt.dark;

    // [2] Setup Dear ImGui context (before the surface: its platform backend needs one); we save
    //     the layout ourselves.
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;

    // [1] Setup window, or the off-screen surface
    const char* glsl_version = "#version 330 core";
    SurfaceOptions surface_options;
    surface_options.width = opt.width ? opt.width : settings.window_width;
    surface_options.height = opt.height ? opt.height : settings.window_height;
    surface_options.vsync = !screenshot_mode;
    std::string surface_error;
    std::unique_ptr<Surface> surface =
        headless ? open_headless(surface_options, &surface_error) : open_window(surface_options, &surface_error);
    if (!surface) {
        std::fprintf(stderr, "kernel-ladder: %s\n", surface_error.c_str());
        ImGui::DestroyContext();
        return 2;
    }
    if (headless) std::printf("kernel-ladder: headless, drawn by %s\n", surface->renderer().c_str());

    // [3] Style and fonts, at the monitor's content scale (HiDPI) times the reader's zoom.
    float content_scale = surface->content_scale();
    float scale = content_scale * settings.zoom;
    apply_theme(settings.dark, scale);
    Fonts fonts = load_fonts(scale);
    if (!fonts.dejavu) std::fprintf(stderr, "kernel-ladder: %s\n", fonts.note.c_str());

    // [4] Setup platform/renderer backends
    ImGui_ImplOpenGL3_Init(glsl_version);

    ScriptPlayer script;
    if (!script_path.empty()) {
        std::string error;
        if (!script.load(script_path, &error)) {
            std::fprintf(stderr, "kernel-ladder: --script: %s\n", error.c_str());
            return 2;
        }
        set_test_targets_enabled(true);
    }

    int exit_code = 0;
    {
        Workbook workbook(opt, settings, fonts);
        workbook.set_renderer(surface->renderer());
        using Clock = std::chrono::steady_clock;
        auto last_frame = Clock::now();
        auto last_save = Clock::now();
        auto started = Clock::now();
        int frames = 0, frames_since_ready = 0;
        bool screenshot_taken = false;

        // [5] Main loop
        while (!surface->should_close() && !workbook.wants_to_quit()) {
            FrameSample sample;
            auto events_start = Clock::now();
            surface->poll_events();
            sample.events_ms = ms_since(events_start);
            // Sleep while minimized, as the ImGui example does.
            if (surface->minimized()) {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                continue;
            }
            if (workbook.theme_changed()) {
                // A new zoom or theme: rebuild the style and the font atlas between frames.
                Settings& s = workbook.settings();
                float new_scale = content_scale * s.zoom;
                apply_theme(s.dark, new_scale);
                if (new_scale != fonts.scale) {
                    io.Fonts->Clear();
                    fonts = load_fonts(new_scale);
                    ImGui_ImplOpenGL3_DestroyFontsTexture();
                    ImGui_ImplOpenGL3_CreateFontsTexture();
                    workbook.set_fonts(fonts);
                }
            }
            auto build_start = Clock::now();

            // [6] Start the Dear ImGui frame
            ImGui_ImplOpenGL3_NewFrame();
            surface->new_imgui_frame();
            // Screenshots do not depend on where the display's pointer happens to be.
            if (screenshot_mode) io.MousePos = hover_x >= 0 ? ImVec2(hover_x, hover_y) : ImVec2(-FLT_MAX, -FLT_MAX);
            if (!script_path.empty()) {
                script.apply(io, workbook.busy());
                clear_test_targets();  // this frame records what is on screen now
            }
            ImGui::NewFrame();
            workbook.frame();

            // [7] Rendering
            ImGui::Render();
            sample.build_ms = ms_since(build_start);
            auto render_start = Clock::now();
            int display_w, display_h;
            surface->framebuffer_size(&display_w, &display_h);
            glViewport(0, 0, display_w, display_h);
            ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
            glClearColor(bg.x, bg.y, bg.z, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
            ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
            sample.render_ms = ms_since(render_start);
            auto other_start = Clock::now();

            ++frames;
            if (std::string shot; !script_path.empty() && script.take_screenshot(&shot)) {
                std::string error;
                if (!save_screenshot(shot, surface->read_buffer(), display_w, display_h, &error))
                    std::fprintf(stderr, "kernel-ladder: script shot: %s\n", error.c_str());
            }
            if (!script_path.empty() && script.done() && !screenshot_mode) workbook.request_quit();
            if (screenshot_mode && !screenshot_taken) {
                // Wait for the start job (if any), then a few frames so that layout settles.
                frames_since_ready = workbook.idle_for_screenshot() ? frames_since_ready + 1 : 0;
                if (frames_since_ready >= opt.frames) {
                    std::string error;
                    if (!save_screenshot(opt.screenshot_path, surface->read_buffer(), display_w, display_h, &error)) {
                        std::fprintf(stderr, "kernel-ladder: screenshot: %s\n", error.c_str());
                        exit_code = 3;
                    }
                    screenshot_taken = true;
                    if (!opt.exit_when_idle || workbook.idle_for_screenshot()) workbook.request_quit();
                }
            }
            if (opt.exit_when_idle && !screenshot_mode && workbook.idle_for_screenshot() && frames > 3)
                workbook.request_quit();
            if (opt.max_seconds > 0 &&
                std::chrono::duration<double>(Clock::now() - started).count() > opt.max_seconds) {
                std::fprintf(stderr, "kernel-ladder: --max-seconds reached\n");
                workbook.request_quit();
            }
            sample.other_ms = ms_since(other_start);
            auto swap_start = Clock::now();
            surface->present();
            sample.swap_ms = ms_since(swap_start);
            sample.work_ms = ms_since(events_start);

            // Without vsync (Xvfb, --headless) cap the loop so it does not spin: frames start
            // 15.5 ms apart. Not 16.7: a sleep may overshoot by up to ~1 ms on a busy machine
            // (measured on the GPU machine during sweeps, docs/gui.md), and a frame that lands
            // after the 60 Hz deadline is a dropped frame. With vsync the swap waits instead and
            // this sleep does not happen.
            constexpr double kPacedFrameMs = 15.5;
            auto now = Clock::now();
            double frame_ms = std::chrono::duration<double, std::milli>(now - last_frame).count();
            if (!screenshot_mode && frame_ms < kPacedFrameMs) {
                std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(kPacedFrameMs - frame_ms));
                now = Clock::now();
                frame_ms = std::chrono::duration<double, std::milli>(now - last_frame).count();
            }
            last_frame = now;
            sample.interval_ms = frame_ms;
            if (frames > 2) workbook.record_frame(sample);

            // Progress and layout are saved a few seconds after they change, and at exit.
            if (workbook.settings_dirty() && now - last_save > std::chrono::seconds(3)) {
                int w, h;
                surface->window_size(&w, &h);
                if (!opt.width) workbook.settings().window_width = w, workbook.settings().window_height = h;
                workbook.save_settings_now();
                last_save = now;
            }
        }
        if (!opt.width && !screenshot_mode && !headless) {
            int w, h;
            surface->window_size(&w, &h);
            workbook.settings().window_width = w;
            workbook.settings().window_height = h;
        }
        const FrameStats& fs = workbook.frame_stats();
        // One line, every stage: "build p50/p99 ..., swap ..., interval ..." (docs/gui.md reads it).
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
            std::printf(
                "kernel-ladder: %zu frames during jobs; ms: work p50 %.2f p99 %.2f; interval p50 %.2f p99 %.2f\n",
                js.count(), js.percentile(FrameStats::Work, 50), js.percentile(FrameStats::Work, 99),
                js.percentile(FrameStats::Interval, 50), js.percentile(FrameStats::Interval, 99));
        if (!opt.report_path.empty()) {
            nlohmann::json report = workbook.report();
            if (!script_path.empty())
                report["script"] = {
                    {"errors", script.errors()}, {"played", script.done_lines()}, {"finished", script.done()}};
            std::ofstream out(opt.report_path);
            out << report.dump(1) << "\n";
            if (!out) std::fprintf(stderr, "kernel-ladder: cannot write %s\n", opt.report_path.c_str());
        }
        for (const auto& e : workbook.logged_errors())
            std::fprintf(stderr, "kernel-ladder: error shown: %s\n", e.c_str());
        for (const auto& e : script.errors()) std::fprintf(stderr, "kernel-ladder: script: %s\n", e.c_str());
        if (!script.errors().empty() && exit_code == 0) exit_code = 3;
    }

    // [8] Cleanup (mirrors setup)
    ImGui_ImplOpenGL3_Shutdown();
    surface->shutdown_imgui_backend();
    ImGui::DestroyContext();
    surface.reset();
    return exit_code;
}
