// The workbook view: one class owning the state of the whole window, drawn by panels that live
// in their own files (Tracy's View split). Each panel's state is one struct here; workbook.cpp
// lays the panels out and dispatches to them.
//
//   workbook.cpp               start, step selection, layout of the panels, keyboard, report
//   workbook_chrome.cpp        top bar, banner, status bar, log window, frame overlay
//   workbook_runs.cpp          jobs for the runner (run rung, ladder, sweep), runner events
//   workbook_navigator.cpp     lessons and steps with progress; broken lessons as error entries
//   workbook_step_text.cpp     the step's Markdown, "look at", predict-then-reveal question
//   workbook_ladder_strip.cpp  every rung of the ladder with its last result
//   workbook_params.cpp        parameter, size and dtype controls; run buttons; progress
//   workbook_plots.cpp         bars, sweeps, correctness, traffic, roofline; tooltips
//   workbook_export.cpp        figure and lesson export popups
//   workbook_source.cpp        rung source, diff against the previous rung, PTX
//   workbook_selfcheck.cpp     questions, flashcards, exercise
//   workbook_editor.cpp        the learner's rung: "Make it mine", the editor, compile marks, faults, Sanitize
//
// GPU work never runs here: it goes to the runner process (RunnerClient), polled every frame.
#pragma once
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "course/calculator.h"
#include "course/exercise.h"
#include "course/lesson.h"
#include "course/selection.h"
#include "gui/address_view.h"  // the Addresses tab
#include "gui/code_editor.h"
#include "gui/file_watch.h"
#include "gui/frame_stats.h"
#include "gui/class_view.h"        // Submit and the class folder (workbook_class.cpp)
#include "gui/learner_sanitize.h"  // and learner_compile.h, child_process.h, compile_diagnostics.h
#include "gui/line_diff.h"
#include "gui/markdown.h"
#include "gui/recorded_loader.h"
#include "gui/report_names.h"
#include "gui/reveal_cache.h"
#include "gui/runner_client.h"
#include "gui/settings.h"
#include "gui/ui_style.h"
#include "gui/workbook_types.h"
#include "model/device_info.h"
#include "model/manifest.h"
#include "plot/layout.h"
#include "plot/scene.h"

namespace kl {
class NumberSources;
class PredictionStore;
}  // namespace kl

namespace kl::gui {

class Workbook {
  public:
    Workbook(AppOptions options, Settings settings, Fonts fonts);
    ~Workbook();

    void frame();  // poll the runner, draw the whole window
    bool wants_to_quit() const { return quit_; }
    void request_quit() { quit_ = true; }
    // Every frame goes to frame_stats(); frames drawn while a job runs (a sweep, say) also to
    // job_frame_stats(), the figure the 60 fps promise is about.
    void record_frame(const FrameSample& sample);
    const FrameStats& frame_stats() const { return frame_stats_; }
    const FrameStats& job_frame_stats() const { return job_frame_stats_; }
    void set_renderer(std::string renderer) { renderer_ = std::move(renderer); }
    Settings& settings() { return settings_; }
    bool settings_dirty() const { return settings_dirty_; }
    void save_settings_now();
    bool theme_changed() { return std::exchange(theme_changed_, false); }
    void set_fonts(const Fonts& fonts);  // and lays out the plot and the strip again
    // Idle (redraw_gate.h): something moves and needs every frame; news came that needs one.
    bool animating() const;
    bool has_news();
    // Recorded results are read on a worker (recorded_loader.h); tests wait for it (test_driver.cpp).
    bool loading() const { return recorded_.running(); }
    void finish_loading();
    bool busy() const {
        return runner_.job.has_value() || lesson_export_running() || learner_.compile.running() || class_.busy();
    }
    // What the test driver (gui/test_driver.h) sees and does, no more than a reader could: start
    // a job as its button would (a sweep along the step's axis, else the rung's first parameter;
    // false with the reason when nothing started), watch the runner, read the log.
    bool run(Job::Kind kind, std::string* why_not);
    bool job_running() const { return runner_.job.has_value(); }
    bool runner_leaving() const { return runner_.awaiting_exit; }  // a fault was reported; it exits
    int runner_failures() const { return runner_.failures; }
    int results_received() const { return runner_.results_received; }
    int runner_pid() const { return runner_.client ? int(runner_.client->pid()) : -1; }
    bool ptx_pending() const;
    void log(const std::string& line, bool error = false);  // the runner and load log (error: shown)
    nlohmann::json report() const;                          // where the reader is, what the panels and the runner show
    nlohmann::json reveal_report() const;  // the plot's values and the figures waiting for a prediction
    const std::vector<std::string>& logged_errors() const { return logged_errors_; }

  private:
    // [SECTION] Data
    AppOptions options_;
    Settings settings_;
    bool settings_dirty_ = false;
    bool theme_changed_ = false;
    Fonts fonts_;
    std::vector<Ladder> ladders_;
    std::vector<std::string> ladder_errors_;
    std::vector<Lesson> lessons_;
    std::vector<LessonLoadError> lesson_errors_;
    ResultsStore store_;
    RecordedLoader recorded_;  // then poll_recorded() adds what it read to store_
    std::vector<std::string> results_errors_;
    WindowLayout laid_out_;  // by the last frame (report)
    FrameStats frame_stats_, job_frame_stats_;
    std::string renderer_;  // GL_RENDERER and surface: who drew the frames (report, overlay)
    bool quit_ = false;
    std::vector<std::string> logged_errors_;  // everything shown to the user as an error (report)

    // [SECTION] Current selection
    int lesson_ = -1;  // index into lessons_, -1: none
    int step_ = 0;
    const Ladder* ladder_ = nullptr;
    const Rung* rung_ = nullptr;
    Sizes sizes_;
    ParamValues params_;  // overrides the user or the step set (resolved on use)
    DType dtype_ = DType::F32;
    void select_lesson(int lesson, int step);
    void apply_step();
    void select_rung(const Rung* rung, bool keep_params);
    const Lesson* lesson() const {
        return lesson_ >= 0 && lesson_ < int(lessons_.size()) ? &lessons_[lesson_] : nullptr;
    }
    const LessonStep* step() const;
    const Ladder* find_ladder(const std::string& id) const;
    // The parameters `r` shows: the selection's for the selected rung, its defaults for the others.
    ParamValues params_for(const Rung& r) const;
    SelectionChoice choice() const;  // what the panels show, for the course layer to resolve
    // The device choices are resolved against: the live GPU, else the recorded device shown.
    std::optional<SelectionDevice> selection_device() const;
    // Why `r` cannot run at these sizes and parameters (refusal_at), "" when it can.
    std::string refusal_at(const Rung& r, const Sizes& sizes, const ParamValues& params);
    PlotContext plot_context(const Selection& selection) const;
    // What the strip, the plots and the controls read every frame, derived from the selection,
    // the store and the runner's device. selection_view() compares those inputs with the ones it
    // was built from (no allocation) and rebuilds only when one changed, instead of every panel
    // building a PlotContext and scanning the store every frame.
    struct SelectionView {
        // Built from:
        const Ladder* ladder = nullptr;
        const Rung* rung = nullptr;
        const LessonStep* step = nullptr;
        Sizes sizes;
        ParamValues overrides;
        DType dtype = DType::F32;
        std::string sweep_axis, runner_device, compare_device;
        uint64_t store_generation = 0, reveal_generation = 0, version = 0;  // version 0: never built
        bool gpu = false;
        int num_sms = 0;
        // Holds:
        Selection selection;                  // make_selection(choice(), selection_device())
        PlotContext ctx;                      // plot_context(selection)
        bool flops = false;                   // prefers_flops(ctx, store_)
        const StoredRun* library = nullptr;   // library_reference_run(store_, ctx) when flops
        const StoredRun* rung_run = nullptr;  // the rung's latest run at these settings, its parameters preferred
    } view_;
    const SelectionView& selection_view();
    // The ladder's library reference (cuBLAS, cuDNN) measured at a record's sizes and dtype, or nullptr.
    const StoredRun* library_run_for(const RunRecord& record) const;
    LessonProgress& progress();

    // [SECTION] Runner and jobs (workbook_runs.cpp)
    struct RunnerState {
        std::unique_ptr<RunnerClient> client;
        std::string unavailable;  // why no runner can be started
        bool hello = false, gpu = false;
        std::string device, no_gpu_reason;
        std::optional<DeviceInfo> device_info;  // the hello's device (exported results name it)
        std::optional<Calibration> calibration;
        int num_sms = 0;
        std::string device_arch;       // "sm_90"
        std::string status;            // one line for the status bar
        std::vector<std::string> log;  // what happened, newest last
        std::optional<Job> job;
        std::string last_error;  // shown in the controls panel until the next run
        std::string last_error_title;
        int results_received = 0, restarts_seen = 0, exits_seen = 0, failures = 0;
        bool awaiting_exit = false;  // a fault was reported; the runner is on its way out
        std::string stopwatch_note;  // [stopwatch] the hello's: why the span asked for is not taken
    } runner_;
    void draw_stopwatch_choice();  // [stopwatch] the status bar's choice, kept in settings_
    void draw_stopwatch_note();
    float stopwatch_choice_width() const;
    float status_right_width() const;
    void start_runner();
    void poll_runner();
    void on_runner_hello(const Hello& h);
    void on_runner_result(const RunnerEvent& e);
    void finish_job_if_answered();
    void run_rung();
    void run_ladder();
    void run_sweep();  // along the selection's sweep (params_ui_.sweep_axis)
    void cancel_job();
    // skip_unfit: one rung of a whole-ladder run (sizes it cannot take come back as a skip).
    // batch: [hold] the whole run the request belongs to (the runner holds its rungs as one).
    void submit_to(Job& job, const Rung& r, const ParamValues& params, const Sizes& sizes, bool skip_unfit = false,
                   const RunBatch* batch = nullptr);
    void start_job(Job job, const std::string& why_empty);  // why_empty: shown when it has no request
    RunRequest make_request(const Rung& r, const ParamValues& params, const Sizes& sizes) const;

    // [SECTION] Start (workbook.cpp)
    void load_content();       // ladders, lessons; results started on the loader
    void poll_recorded();      // results parsed: into the store, errors logged, the step's device bound
    void open_first_step();    // --lesson, --step, --param, else where the reader left off
    void apply_view_option();  // --view

    // [SECTION] Layout (workbook.cpp) and the window's furniture (workbook_chrome.cpp)
    void draw_panels();
    void draw_lower_panels(ImVec2 at, float right_w, float lower_h);
    void draw_right_tabs();
    void draw_top_bar();
    void draw_banner();
    void draw_status_bar();
    void draw_log_window();
    void draw_frame_overlay();
    void handle_keys();
    bool show_log_ = false;

    // [SECTION] Panels
    struct NavigatorState {
        std::string filter;
    } nav_;
    void draw_navigator();
    void draw_navigator_steps(const Lesson& l, float w, float badge);

    struct StepTextState {
        const LessonStep* parsed_for = nullptr;
        uint64_t store_generation = 0;          // bound numbers are resolved again when runs arrive
        std::string look_at, question, answer;  // the step's fields with bound numbers filled in
        std::vector<std::string> unresolved;    // bindings of the step that resolved to nothing (the report)
        md::Document doc;
        bool answer_shown = false;
        bool scroll_to_top = false;
    } text_;
    void draw_step_text();
    void draw_markdown(const md::Document& doc);
    void resolve_step_text(const LessonStep& st);  // workbook_bound.cpp
    // Bound numbers (workbook_bound.cpp): the sources, rebuilt when runs arrive, and `text`
    // with its bindings filled in as plain text (cached; `text` itself when it has none).
    struct BoundState {
        std::shared_ptr<NumberSources> numbers;  // shared_ptr: NumberSources is only declared here
        uint64_t generation = 0;
        std::map<std::string, std::string> plain;
    } bound_;
    const NumberSources& numbers();
    const std::string& bound(const std::string& text);
    // Predict, then reveal (workbook_predict.cpp): the learner's predictions, kept in the XDG
    // data folder (read at first use, written only when the learner keeps or resets one).
    struct PredictState {
        std::shared_ptr<PredictionStore> store;
        double input = 0;
        const LessonStep* input_for = nullptr;
        bool changing = false;
        const LessonStep* revealed = nullptr;  // "Show the measurements" without a prediction
    } predict_;
    // Until a prediction is kept (or its measurements asked for) what gives it away waits (course/reveal.h).
    // Every panel asks this cached gate (gui/reveal_cache.h): the step's text and plot, and the runs of this
    // and every later uncommitted predict step (strip, bars, sweeps, tooltips, log, rung sources).
    const LessonRevealGate& reveal_gate();
    RevealCache reveal_;
    bool measurements_folded() { return reveal_gate().current().withholds_plot(); }
    void reveal_measurements(const LessonStep* st);  // nullptr: folds them again
    bool draw_plot_fold();
    std::string withheld_why(const RunRecord& run) { return reveal_gate().placeholder(run); }
    PredictionStore& predictions();
    void draw_prediction(const LessonStep& st);
    void draw_prediction_verdict(const LessonStep& st, double kept, const std::string& unit, const std::string& at);

    void draw_ladder_strip();
    void draw_strip_without_ladder();
    void draw_tuned_toggle();  // [tuned] the strip's default/tuned toggle
    void draw_strip_card_text(const Rung& r, const StripCard& card, ImVec2 p, ImVec2 q, bool usable);
    void draw_learner_card_mark(ImDrawList* dl, ImVec2 p, ImVec2 q);
    float learner_tag_width() const;
    void draw_learner_bar_marks(ImVec2 origin);  // workbook_plots.cpp
    nlohmann::json learner_report() const;       // workbook_editor.cpp
    float strip_card_height() const { return 98 * fonts_.scale; }
    float strip_card_min_width() const { return 150 * fonts_.scale; }
    float strip_min_width() const;
    const Rung* strip_scrolled_to_ = nullptr;                 // the strip scrolls to the selected rung once
    StripState strip_;                                        // workbook_types.h
    const std::vector<StripCard>& strip_cards(float text_w);  // text_w: the width of a card's text

    struct ParamsState {
        std::string sweep_axis;  // what Sweep varies
        bool counters = false;   // ask the runner for a hardware-counters pass (not saved)
    } params_ui_;
    void draw_params();  // workbook_params.cpp, with the five below
    void draw_rung_title(const Rung& r);
    void draw_run_bar(const Rung& r, const std::string& problem);
    void draw_last_error();
    void draw_param_widget(const Rung& r, const ParamSpec& spec, const ParamValues& current, bool values_ok,
                           float label_w, float widget_w);
    void draw_size_widgets(const Rung& r, float label_w, float widget_w);

    struct PlotsState {
        // The figure shown, as export would ask for it: its kind (the tab), metric and sweep
        // axis (params_ui_.sweep_axis); drawn by report::build_figure, the builder export uses.
        FigureRequest request;
        // The metric chosen for each kind (by the learner or a step), kept while another kind is
        // shown; a kind without an entry shows its default (figure_vocabulary.h).
        std::map<PlotKind, Metric> chosen;
        struct Built {                            // what `built` shows
            uint64_t view_version = 0;            // SelectionView::version: the data and the selection
            PlotKind plot = PlotKind::Occupancy;  // never built for the occupancy view
            std::optional<Metric> metric;
            std::string axis;
            bool operator==(const Built& o) const {
                return view_version == o.view_version && plot == o.plot && metric == o.metric && axis == o.axis;
            }
        } built_for;
        BuiltFigure built;
        plot::Figure shown;  // built.figure as laid out (short labels when needed)
        plot::Layout layout;
        plot::Scene scene;
        float built_w = 0, built_h = 0;
        bool built_dark = true;
        std::string export_message;
    } plots_;
    void draw_plots();
    // The metric choice of `kind` (when it has several) drawn; returns the metric to show.
    std::optional<Metric> metric_choice(PlotKind kind, const SelectionView& view);
    void draw_plot_canvas(float width, float height);

    // [SECTION] Devices, resources and occupancy (workbook_occupancy.cpp)
    std::string compare_device_;  // a second recorded device the rung bars show beside the first
    std::string chosen_device_;   // the recorded device the reader picked; steps naming none keep it
    // What the occupancy view and the slider marks compute with: the selection's device, the
    // kernel's registers and static shared memory (the newest run of the rung that recorded
    // them) and the block and dynamic shared memory of its geometry bound to that device.
    struct OccupancyInputs {
        std::string why_not;  // set when nothing can be computed
        DeviceInfo device;
        std::string device_from, entry, when;  // SelectionDevice::from; the kernel, its launch's `when` or ""
        Scope scope;                           // sizes and parameters (what to change: shrink_advice)
        int regs = 0, threads = 0;
        int64_t static_smem = 0, dynamic_smem = 0;
        bool measured = false;    // regs and static smem come from a run
        ParamValues measured_at;  // that run's parameters
        std::string measured_on;  // and device
    };
    OccupancyInputs occupancy_inputs(const Rung& r, const ParamValues& params);
    // The newest run of `r` that recorded resources for kernel `entry`, at `params` if there is one (cached until
    // the store changes: the sliders ask for every value every frame).
    const StoredRun* measured_run(const Rung& r, const ParamValues& params, const std::string& entry) const;
    struct OccupancyCache {
        uint64_t generation = 0;
        std::map<std::string, const StoredRun*> runs;
    };
    mutable OccupancyCache occupancy_cache_;
    // Why these parameters could not launch on that device (occupancy.h), or "".
    std::string predicted_launch_refusal(const Rung& r, const ParamValues& params);
    // "needs sm_90 (Hopper): ..." when the live GPU cannot run the rung, else "".
    std::string arch_refusal_here(const Rung& r) const;
    std::string refused_values(const Rung& r, const ParamSpec& spec, const ParamValues& current);
    void draw_occupancy();
    void draw_occupancy_trend(const Rung& r, const ParamValues& params, const OccupancyInputs& in);
    void draw_device_compare();
    void bind_step_device(const LessonStep* s);  // the one device shown: the GPU, the step's, the picked
    void draw_plot_tooltip(const ImVec2& origin);
    // [calculator] lesson 12's calculator (workbook_calculator.cpp), for a step with tool = "calculator"
    struct CalculatorState {
        CalculatorInputs inputs;
        bool defaults_set = false;
        std::string rate_source, peak_source;  // where the default rates came from
    } calc_;
    void draw_calculator();
    // [modes] the figure a run's measuring mistake gave, beside the runner's (workbook_modes.cpp)
    void draw_mode_figure(const StoredRun* run);
    // [timeline] the rung's kernels on a timeline and the SM clock (workbook_timeline.cpp)
    void draw_run_timeline(const StoredRun* run);
    void set_calculator_defaults();

    // [SECTION] Export (workbook_export.cpp): one figure, or a whole lesson with its handout
    struct ExportState {
        // Page, shared by both: size in points, PNG pixels per point, print or screen colours.
        float width_pt = 468, height_pt = 288, png_scale = 2;
        int theme = 0;                                          // 0 print (white), 1 screen (dark, larger text)
        bool formats[4] = {true, true, true, true};             // svg, pdf, png, csv
        char figure_folder[512] = "", lesson_folder[512] = "";  // empty until the popup first opens
        std::string lesson_folder_for;                          // lesson id the folder was prefilled for
        std::future<std::pair<bool, std::string>> lesson_job;   // (ok, one-line outcome)
        std::string lesson_message;
        bool lesson_failed = false;
    } export_;
    void draw_figure_export_popup();
    void draw_lesson_export_popup();
    void export_current_figure();
    void start_lesson_export();
    void poll_lesson_export();
    bool lesson_export_running() const { return export_.lesson_job.valid(); }
    ResultsFile results_snapshot() const;  // every run the store holds, as one results file

    struct SourceState {
        int tab = 0;  // 0 source, 1 diff, 2 ptx
        std::string loaded_path;
        std::vector<std::string> lines;
        std::string load_error;
        std::string diff_key;
        std::vector<DiffLine> diff;
        std::string diff_title;
        std::string ptx_key;
        std::shared_future<std::pair<std::string, std::string>> ptx;  // (ptx, error)
        ChildCancel ptx_cancel;  // after `ptx`: destroyed first, so closing never waits on the child
        bool ptx_shown = false;  // the PTX view was drawn this frame (else a running child is ended)
        std::string ptx_lines_key;
        std::vector<std::string> ptx_lines;
    } source_;
    void stop_ptx();
    std::string ptx_status() const;  // for the report: none, compiling, cancelled, error or ready
    void draw_source();
    void draw_code_lines(const std::vector<std::string>& lines, bool ptx);
    void draw_diff();
    void draw_ptx();

    struct SelfCheckState {
        int tab = 0, card = 0;  // tab: 0 questions, 1 flashcards, 2 exercise
        bool flipped = false;
        std::vector<int> order;  // shuffled card order
        std::string order_for;
        md::Document exercise;
        const Lesson* exercise_for = nullptr;
    } selfcheck_;
    void draw_selfcheck();
    void draw_questions();
    void draw_flashcards();
    void draw_exercise();

    // [SECTION] The learner's rung (workbook_editor.cpp)
    struct LearnerState {
        std::string ladder, rung, title, forked_from, path;  // the rung open in the editor
        CodeEditor editor;
        FileWatch watch;
        std::vector<CompileDiagnostic> diagnostics;  // of the last compile
        std::vector<EditorMark> marks;               // the diagnostics with a line, for the gutter
        std::vector<int> shown_marks;                // the lines the gutter drew marks on (report)
        std::set<uint64_t> requests;                 // run requests of the learner's rung in flight
        std::string message, outcome;                // message: saved, reloaded, errors; outcome: the last run
        bool message_error = false, outcome_error = false, pending_run = false;  // pending: after the job
        LearnerCompile compile;    // without a GPU: NVRTC's messages all the same (learner_compile.h)
        LearnerSanitize sanitize;  // Sanitize: compute-sanitizer's findings (learner_sanitize.h)
        char find[128] = "";
        bool find_open = false, focus_find = false, find_missed = false;
        std::optional<StepExercise> exercise;  // the step exercise it was forked for (workbook_exercise.cpp)
        Sizes exercise_sizes;
        int exercise_hints_shown = 0;  // the exercise's hints revealed so far, one more per click
        std::string goal_summary;      // as last shown (report)
    } learner_;
    ClassView class_;  // Submit for the step's exercise, and a class folder opened (workbook_class.cpp)
    void start_exercise(const StepExercise& ex);
    bool submit_exercise_runs(const Rung& mine);
    std::optional<GoalVerdict> exercise_verdict() const;
    void draw_exercise_goal();
    void draw_step_exercise_offer();
    Ladder* mutable_ladder(const std::string& id);
    void reload_learner_rungs(const std::string& ladder_id, bool quiet = false);
    void make_it_mine(const Rung& r, const std::string& starter_path = "");
    void open_learner_rung(const Rung& r);
    void on_learner_record(const RunnerEvent& e, const RunRecord& rec);
    void on_learner_failure(uint64_t request_id, const std::string& message);
    std::vector<CompileDiagnostic> learner_diagnostics(const RunnerEvent& e, const RunRecord& rec) const;
    void set_learner_diagnostics(std::vector<CompileDiagnostic> ds);  // and the gutter's marks of the open file
    void save_learner();
    void run_learner();
    void poll_learner_file();
    void open_in_my_editor();
    void draw_learner();
    void draw_learner_empty();
    void draw_learner_toolbar();
    void draw_learner_find();
    void draw_learner_diagnostics(float height);
    void draw_learner_params(const Rung& r);
    void handle_learner_keys();
    AddressViewState address_view_;  // the Addresses tab (address_view.h)
    int right_tab_ = 0;              // 0 plots, 1 source, 2 self-check, 3 mine (the learner's rung), 4 addresses
    int pending_right_tab_ = -1;     // selected on the next frame (--view)
    bool view_forced_ = false;       // --view given: steps do not change the plot tab
    int frames_drawn_ = 0;
    std::string status_frame_text_;  // "frame 0.52 ms, p99 0.76 ms", refreshed every 30 frames
    int status_frame_text_at_ = 0;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};
}  // namespace kl::gui
