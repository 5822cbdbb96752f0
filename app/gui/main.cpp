// kernel-ladder: the Kernel Ladder workbook (Dear ImGui + GLFW + OpenGL 3).
// The loop follows ImGui's example_glfw_opengl3/main.cpp; the numbered comments match its steps
// (the ImGui context is made before the window here: the surface starts ImGui's platform backend).
// The window itself is behind gui/surface.h: a GLFW window, or with --headless an off-screen
// framebuffer on an EGL context (no display needed; docs/gui.md). What tests do (screenshots,
// scripted input, jobs at start, the report) is gui/test_driver.h, called at three points of a
// frame and once at the end.
//
//   kernel-ladder                                    open where you left off (lesson 1 the first time)
//   kernel-ladder --lesson 2 --step 4                open a step
//   kernel-ladder --screenshot out.png --lesson 1 --step 3 [--results R.json] [--view source]
//                                                    render a few frames, save a PNG, exit
//   kernel-ladder --headless --run sweep --exit-when-idle --report R.json
//                                                    no window: draw off screen on the GPU, time frames
// Exit codes: 0 ok, 2 bad command line or no window could be opened, 3 a screenshot, the report
// or a script failed.
#include <GL/gl.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>

#include "base/paths.h"
#include "base/printable.h"
#include "course/lesson.h"
#include "gui/redraw_gate.h"
#include "gui/surface.h"
#include "gui/test_driver.h"
#include "gui/ui_style.h"
#include "gui/workbook.h"
#include "model/manifest_load.h"

namespace {

using namespace kl::gui;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// CPU time of the whole process since exec (every thread; the loader's work included).
double process_cpu_ms() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

struct CommandLine {
    AppOptions app;
    TestOptions test;
    bool list_steps = false;
    bool headless = false;
};

// Fills `cl`; returns -1 to go on, else the exit code (0 after --help, 2 for a bad command line).
int parse_command_line(int argc, char** argv, CommandLine* cl) {
    AppOptions& opt = cl->app;
    CLI::App app{"kernel-ladder: the Kernel Ladder workbook"};
    app.add_option("--lesson", opt.lesson, "lesson to open: id, folder name or number");
    app.add_option("--step", opt.step, "step to open (1-based)")->check(CLI::PositiveNumber);
    app.add_option("--results", opt.results_paths, "results file(s) to show besides assets/recorded (repeatable)");
    app.add_flag("--no-recorded", opt.no_recorded, "do not load assets/recorded (show only --results and live runs)");
    app.add_option("--param", opt.params, "set a parameter of the step's rung, e.g. --param VPT=8 (repeatable)");
    app.add_option("--compare-device", opt.compare_device,
                   "show a second recorded device's bars beside the first's, e.g. --compare-device H200");
    app.add_option(
        "--view", opt.view,
        "tab to show: bars, sweep, errors, traffic, roofline, occupancy, source, diff, ptx, questions, cards, "
        "exercise, addresses");
    std::string theme;
    app.add_option("--theme", theme, "dark or light (not saved)")->check(CLI::IsMember({"dark", "light"}));
    app.add_flag("--no-runner", opt.no_runner, "do not start the GPU runner (show recorded results only)");
    app.add_flag("--plant-reveal-leak", opt.plant_reveal_leak,
                 "test hook: withhold only the current step's predicted figures (the reveal walk must fail)")
        ->group("");
    app.add_flag("--no-save", opt.no_save, "do not read or write the saved settings");
    app.add_option(
        "--size",
        [&](CLI::results_t r) {
            return std::sscanf(r[0].c_str(), "%dx%d", &opt.width, &opt.height) == 2 && opt.width >= 320 &&
                   opt.height >= 240;
        },
        "window size, e.g. 1600x960");
    app.add_option("--request-timeout", opt.request_timeout_s,
                   "seconds a rung may run before the runner is stopped (default 120)");
    app.add_flag("--list-steps", cl->list_steps,
                 "print each lesson's id and number of steps (tab-separated), then exit; no window");
    app.add_flag("--headless", cl->headless,
                 "no window: draw off screen through EGL on the GPU (or Mesa); needs --screenshot, --exit-when-idle, "
                 "--max-seconds or --script");
    add_test_options(app, cl->test);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int code = app.exit(e);
        return code == 0 ? 0 : 2;
    }
    if (!theme.empty()) opt.dark = theme == "dark";
    if (cl->headless && !cl->test.ends_by_itself()) {
        std::fprintf(stderr,
                     "kernel-ladder: --headless has no window to close: add --screenshot, --exit-when-idle, "
                     "--max-seconds or --script\n");
        return 2;
    }
    return -1;
}

// --list-steps, for scripts (tests/gui/screenshot_all.sh): what the workbook would show, no window.
int list_steps() {
    std::vector<std::string> ladder_errors;
    std::vector<kl::LessonLoadError> lesson_errors;
    auto ladders = kl::load_all_ladders(kl::kernels_dir(), &ladder_errors);
    auto lessons = kl::load_all_lessons(kl::lessons_dir(), ladders, &lesson_errors);
    for (const auto& l : lessons) std::printf("%s\t%zu\n", l.id.c_str(), l.steps.size());
    for (const auto& e : ladder_errors)
        std::fprintf(stderr, "kernel-ladder: %s\n", kl::printable(e, kl::kMessageChars).c_str());
    for (const auto& e : lesson_errors)
        std::fprintf(stderr, "kernel-ladder: lesson %s: %s\n", kl::printable(e.folder).c_str(),
                     kl::printable(e.message, kl::kMessageChars).c_str());
    return ladder_errors.empty() && lesson_errors.empty() ? 0 : 2;
}

// The saved settings (none with --no-save), a warning when they could not be read, --theme on top.
Settings saved_settings(const AppOptions& opt) {
    std::string warning;
    Settings settings = opt.no_save ? Settings{} : load_settings(settings_path(), &warning);
    if (!warning.empty())
        std::fprintf(stderr, "kernel-ladder: %s\n", kl::printable(warning, kl::kMessageChars).c_str());
    if (opt.dark) settings.dark = *opt.dark;
    return settings;
}

// The window at the size asked for or last used, or the off-screen surface; nullptr (and one
// line on stderr) when neither opens.
std::unique_ptr<Surface> open_surface(const CommandLine& cl, const Settings& settings, bool screenshot) {
    SurfaceOptions options;
    options.width = cl.app.width ? cl.app.width : settings.window_width;
    options.height = cl.app.height ? cl.app.height : settings.window_height;
    options.vsync = !screenshot;
    std::string error;
    std::unique_ptr<Surface> surface = cl.headless ? open_headless(options, &error) : open_window(options, &error);
    if (!surface)
        std::fprintf(stderr, "kernel-ladder: %s\n", error.c_str());
    else if (cl.headless)
        std::printf("kernel-ladder: headless, drawn by %s\n", surface->renderer().c_str());
    return surface;
}

// A new zoom or theme: the style again, and the font atlas when the scale changed (between frames).
void apply_new_theme(Workbook& workbook, float content_scale, Fonts* fonts) {
    const Settings& s = workbook.settings();
    float scale = content_scale * s.zoom;
    apply_theme(s.dark, scale);
    if (scale == fonts->scale) return;
    ImGui::GetIO().Fonts->Clear();
    *fonts = load_fonts(scale);
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    workbook.set_fonts(*fonts);
}

// Clears to the window background and issues ImGui's draw lists; the framebuffer size comes back.
void render_draw_data(Surface& surface, int* width, int* height) {
    surface.framebuffer_size(width, height);
    glViewport(0, 0, *width, *height);
    ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    glClearColor(bg.x, bg.y, bg.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

// Without vsync (Xvfb, --headless) the loop is capped so it does not spin: frames start 15.5 ms
// apart. Not 16.7: a sleep may overshoot by up to ~1 ms on a busy machine (measured on the GPU
// machine during sweeps, docs/gui.md), and a frame that lands after the 60 Hz deadline is a
// dropped frame. With vsync the swap waits instead and this sleep does not happen. Returns the
// interval since the previous frame started, and moves `last_frame` to now.
double pace_frame(Clock::time_point* last_frame, bool paced) {
    constexpr double kPacedFrameMs = 15.5;
    double frame_ms = ms_since(*last_frame);
    if (paced && frame_ms < kPacedFrameMs) {
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(kPacedFrameMs - frame_ms));
        frame_ms = ms_since(*last_frame);
    }
    *last_frame = Clock::now();
    return frame_ms;
}

// Steps [6] and [7] of ImGui's example: one frame built, rendered, handed to the test driver and
// presented, each stage timed into `sample`.
void draw_frame(Surface& surface, Workbook& workbook, TestDriver& driver, const RunQueueDelay& run_queue,
                FrameSample* sample) {
    auto build_start = Clock::now();
    const double waited_before = run_queue.ms();

    // [6] Start the Dear ImGui frame
    ImGui_ImplOpenGL3_NewFrame();
    surface.new_imgui_frame();
    driver.before_frame(ImGui::GetIO(), workbook);
    ImGui::NewFrame();
    workbook.frame();

    // [7] Rendering
    ImGui::Render();
    sample->build_ms = ms_since(build_start);
    sample->build_wait_ms = std::min(sample->build_ms, run_queue.ms() - waited_before);
    auto render_start = Clock::now();
    int display_w, display_h;
    render_draw_data(surface, &display_w, &display_h);
    sample->render_ms = ms_since(render_start);
    auto other_start = Clock::now();
    driver.after_render(workbook, surface.read_buffer(), display_w, display_h);
    sample->other_ms = ms_since(other_start);
    auto swap_start = Clock::now();
    surface.present();
    sample->swap_ms = ms_since(swap_start);
    sample->work_ms = ms_since(build_start) + sample->events_ms;
}

// Progress and layout are saved a few seconds after they change (and at exit), with the window
// size unless --size fixed it.
void save_settings_if_due(Workbook& workbook, Surface& surface, bool remember_size, Clock::time_point* last_save) {
    if (!workbook.settings_dirty() || Clock::now() - *last_save <= std::chrono::seconds(3)) return;
    if (remember_size) surface.window_size(&workbook.settings().window_width, &workbook.settings().window_height);
    workbook.save_settings_now();
    *last_save = Clock::now();
}

}  // namespace

int main(int argc, char** argv) {
    const auto main_start = Clock::now();
    // [0] Command line, saved settings, test hooks
    CommandLine cl;
    if (int code = parse_command_line(argc, argv, &cl); code >= 0) return code;
    if (cl.list_steps) return list_steps();
    const AppOptions& opt = cl.app;
    TestDriver driver(cl.test);
    if (std::string error; !driver.load(&error)) {
        std::fprintf(stderr, "kernel-ladder: --script: %s\n", error.c_str());
        return 2;
    }
    Settings settings = saved_settings(opt);

    // [2] Setup Dear ImGui context (before the surface: its platform backend needs one); we save
    //     the layout ourselves.
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;

    // [1] Setup window, or the off-screen surface
    const char* glsl_version = "#version 330 core";
    std::unique_ptr<Surface> surface = open_surface(cl, settings, driver.screenshot_mode());
    if (!surface) {
        ImGui::DestroyContext();
        return 2;
    }

    // [3] Style and fonts, at the monitor's content scale (HiDPI) times the reader's zoom.
    float content_scale = surface->content_scale();
    apply_theme(settings.dark, content_scale * settings.zoom);
    Fonts fonts = load_fonts(content_scale * settings.zoom);
    if (!fonts.dejavu) std::fprintf(stderr, "kernel-ladder: %s\n", fonts.note.c_str());

    // [4] Setup platform/renderer backends
    ImGui_ImplOpenGL3_Init(glsl_version);

    int exit_code = 0;
    {
        Workbook workbook(opt, settings, fonts);
        workbook.set_renderer(surface->renderer());
        const bool remember_size = !opt.width && !driver.screenshot_mode() && !cl.headless;
        auto last_frame = Clock::now(), last_save = Clock::now();
        int frames = 0;
        const RunQueueDelay run_queue;  // this (the UI) thread's

        // [5] Main loop; every stage of a frame is timed (frame_stats.h). Idle, it draws nothing.
        RedrawGate gate;
        const bool every_frame = cl.headless || driver.draws_every_frame();
        while (!surface->should_close() && !workbook.wants_to_quit()) {
            if (!gate.wait_for_news(*surface, workbook, every_frame)) {
                // Nothing new: no frame. The loop still saves settings and keeps --max-seconds.
                save_settings_if_due(workbook, *surface, remember_size, &last_save);
                driver.between_frames(workbook);
                last_frame = Clock::now();  // the sleep is not a frame interval
                continue;
            }
            FrameSample sample;
            sample.events_ms = gate.events_ms();
            if (workbook.theme_changed()) apply_new_theme(workbook, content_scale, &fonts);
            draw_frame(*surface, workbook, driver, run_queue, &sample);
            if (frames == 0) driver.first_frame_presented(process_cpu_ms(), ms_since(main_start));
            sample.interval_ms = pace_frame(&last_frame, !driver.screenshot_mode());
            if (++frames > 2) workbook.record_frame(sample);
            save_settings_if_due(workbook, *surface, remember_size, &last_save);
        }
        if (remember_size) surface->window_size(&workbook.settings().window_width, &workbook.settings().window_height);
        exit_code = driver.finish(workbook);
    }

    // [8] Cleanup (mirrors setup)
    ImGui_ImplOpenGL3_Shutdown();
    surface->shutdown_imgui_backend();
    ImGui::DestroyContext();
    surface.reset();
    return exit_code;
}
