// [SECTION] index: construction / selection / frame and layout / keyboard and jobs (settings, the
// log and the report: workbook_report.cpp; the top bar, banner and status bar: workbook_chrome.cpp)
#include "gui/workbook.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "engine/errors.h"
#include "engine/run_plan.h"
#include "engine/paths.h"
#include "gui/widgets.h"

namespace kl::gui {

// [SECTION] Construction

Workbook::Workbook(AppOptions options, Settings settings, Fonts fonts)
    : options_(std::move(options)), settings_(std::move(settings)), fonts_(std::move(fonts)) {
    load_content();
    open_first_step();
    apply_view_option();
    if (!options_.no_runner)
        start_runner();
    else
        runner_.status = "live runs off (--no-runner)";
}

// Ladders, lessons and results, each failure logged (the navigator and the banner show them).
void Workbook::load_content() {
    ladders_ = load_all_ladders(kernels_dir(), &ladder_errors_);
    for (auto& L : ladders_) reload_learner_rungs(L.id, true);  // the learner's rungs from the workspace
    lessons_ = load_all_lessons(lessons_dir(), ladders_, &lesson_errors_);
    for (const auto& e : ladder_errors_) log("ladder manifest: " + e);
    for (const auto& e : lesson_errors_) log("lesson " + e.folder + ": " + e.message);

    // Recorded results (assets/recorded) first, then any --results files on top of them.
    if (!options_.no_recorded) {
        store_.load_recorded_dir(assets_dir() + "/recorded", &results_errors_);
        for (const auto& e : results_errors_) log("recorded results: " + e);
    }
    for (const auto& p : options_.results_paths) {
        try {
            store_.load_recorded_file(p);
        } catch (const Error& e) {
            results_errors_.push_back(e.what());
            log(std::string("--results: ") + e.what(), true);
        }
    }

    // --compare-device: a second recorded GPU beside the first in the rung bars.
    for (const auto& d : store_.recorded_devices())
        if (!options_.compare_device.empty() && compare_device_.empty() &&
            d.find(options_.compare_device) != std::string::npos)
            compare_device_ = d;
    if (!options_.compare_device.empty() && compare_device_.empty())
        log("--compare-device: no recorded results from a device named like '" + options_.compare_device + "'", true);
}

// Where to start: the command line, else where the reader left off, else lesson 1 (or the first).
void Workbook::open_first_step() {
    int lesson = -1, step = 0;
    auto find_lesson = [&](const std::string& key) {
        for (size_t i = 0; i < lessons_.size(); ++i) {
            const Lesson& l = lessons_[i];
            std::string folder = l.dir.substr(l.dir.find_last_of('/') + 1);
            if (l.id == key || folder == key || std::to_string(l.number) == key) return int(i);
        }
        return -1;
    };
    if (!options_.lesson.empty()) {
        lesson = find_lesson(options_.lesson);
        if (lesson < 0) log("--lesson: no lesson '" + options_.lesson + "'", true);
        step = std::max(0, options_.step - 1);
    } else if (!settings_.lesson_id.empty()) {
        lesson = find_lesson(settings_.lesson_id);
        step = settings_.step;
    }
    if (lesson < 0) lesson = find_lesson("1");
    if (lesson < 0 && !lessons_.empty()) lesson = 0;
    if (lesson >= 0) select_lesson(lesson, step);
    // --param NAME=VALUE: as if the reader had set it (screenshots of a setting no step makes).
    for (const auto& a : options_.params) {
        const size_t eq = a.find('=');
        const Rung* r = rung_;
        try {
            if (eq == std::string::npos || !r || !r->find_param(a.substr(0, eq))) throw InputError("");
            params_[a.substr(0, eq)] = std::stoll(a.substr(eq + 1));
        } catch (const std::exception&) {
            log("--param: '" + a + "' is not NAME=VALUE for a parameter of the step's rung", true);
        }
    }
    if (options_.step > 0 && lesson >= 0 && options_.step > int(lessons_[lesson].steps.size()))
        log("--step: lesson " + lessons_[lesson].id + " has " + std::to_string(lessons_[lesson].steps.size()) +
                " steps",
            true);
}

// --view: the tab shown first; steps then leave the plot tab alone.
void Workbook::apply_view_option() {
    const std::string& v = options_.view;
    // The plot tabs by their names in the figure vocabulary ("plots" and "correctness" as well).
    if (auto kind = plot_kind_from_name(v == "plots" ? "bars" : v == "correctness" ? "errors" : v))
        right_tab_ = 0, plots_.request.plot = *kind;
    else if (v == "source")
        right_tab_ = 1, source_.tab = 0;
    else if (v == "diff")
        right_tab_ = 1, source_.tab = 1;
    else if (v == "ptx")
        right_tab_ = 1, source_.tab = 2;
    else if (v == "questions")
        right_tab_ = 2, selfcheck_.tab = 0;
    else if (v == "cards")
        right_tab_ = 2, selfcheck_.tab = 1;
    else if (v == "exercise")
        right_tab_ = 2, selfcheck_.tab = 2;
    else if (!v.empty())
        log("--view: unknown view '" + v + "'", true);
    view_forced_ = !v.empty();
    if (view_forced_) pending_right_tab_ = right_tab_;
}

Workbook::~Workbook() {
    if (!options_.no_save) save_settings_now();
}

// [SECTION] Selection

const LessonStep* Workbook::step() const {
    const Lesson* l = lesson();
    if (!l || step_ < 0 || step_ >= int(l->steps.size())) return nullptr;
    return &l->steps[step_];
}

const Ladder* Workbook::find_ladder(const std::string& id) const {
    for (const auto& l : ladders_)
        if (l.id == id) return &l;
    return nullptr;
}

LessonProgress& Workbook::progress() {
    static LessonProgress none;
    const Lesson* l = lesson();
    return l ? settings_.progress[l->id] : none;
}

void Workbook::select_lesson(int lesson, int step) {
    if (lesson < 0 || lesson >= int(lessons_.size())) return;
    lesson_ = lesson;
    int n = int(lessons_[lesson].steps.size());
    step_ = std::clamp(step, 0, std::max(0, n - 1));
    settings_.lesson_id = lessons_[lesson].id;
    settings_.step = step_;
    if (n > 0) progress().visited_steps.insert(step_);
    settings_dirty_ = true;
    apply_step();
}

void Workbook::apply_step() {
    const LessonStep* s = step();
    text_.answer_shown = false;
    text_.scroll_to_top = true;
    if (!s || s->ladder.empty()) {
        ladder_ = nullptr;
        rung_ = nullptr;
        return;
    }
    ladder_ = find_ladder(s->ladder);
    if (!ladder_) {
        rung_ = nullptr;
        return;
    }
    sizes_.clear();
    for (const auto& [k, v] : ladder_->default_sizes) sizes_[k] = v;
    for (const auto& [k, v] : s->sizes) sizes_[k] = v;
    const Rung* r =
        s->rung.empty() ? (ladder_->rungs.empty() ? nullptr : &ladder_->rungs.front()) : ladder_->find_rung(s->rung);
    params_ = s->params;
    bind_step_device(s);
    select_rung(r, true);
    if (!s->dtype.empty()) dtype_ = s->dtype;
    params_ui_.sweep_axis = s->sweep_axis;
    if (!view_forced_) {
        // The step's figure in the figure vocabulary (checked when the lesson loaded): its kind,
        // else the sweep when it names a sweep axis, else the rung bars.
        plots_.request.plot = s->plot_kind ? *s->plot_kind : s->sweep_axis.empty() ? PlotKind::Bars : PlotKind::Sweep;
        // Sweeps and traffic start from their defaults (a size sweep reads best as time on log
        // axes, a parameter sweep as throughput); the bars keep the learner's choice.
        plots_.chosen.erase(PlotKind::Sweep);
        plots_.chosen.erase(PlotKind::Traffic);
        // The metric the step's point needs (lesson.toml `metric`), wherever it fits.
        if (s->plot_metric)
            for (const PlotKindInfo& k : plot_kinds())
                if (metric_fits(k.kind, *s->plot_metric)) plots_.chosen[k.kind] = *s->plot_metric;
    }
}

void Workbook::select_rung(const Rung* rung, bool keep_params) {
    rung_ = rung;
    if (!keep_params) params_.clear();
    if (!rung_) return;
    // Keep only overrides this rung knows; the dtype must be one it supports.
    for (auto it = params_.begin(); it != params_.end();)
        it = rung_->find_param(it->first) ? std::next(it) : params_.erase(it);
    bool dtype_ok = false;
    for (DType d : rung_->dtypes) dtype_ok |= to_string(d) == dtype_;
    if (!dtype_ok && !rung_->dtypes.empty()) dtype_ = to_string(rung_->dtypes.front());
    if (!params_ui_.sweep_axis.empty() && !rung_->find_param(params_ui_.sweep_axis) &&
        !sizes_.count(params_ui_.sweep_axis))
        params_ui_.sweep_axis.clear();
}

ParamValues Workbook::resolved_params(const Rung& r) const {
    ParamValues out;
    for (const auto& p : r.params) out[p.name] = p.default_value;
    if (rung_ && r.id == rung_->id)
        for (const auto& [k, v] : params_)
            if (r.find_param(k)) out[k] = v;
    return out;
}

std::string Workbook::constraint_problem() const {
    if (!ladder_ || !rung_) return "";
    try {
        // The engine's one resolution, as the runner will do it: what it refuses is shown here.
        RunOptions o;
        o.sizes = sizes_;
        o.params = params_;
        o.dtype = parse_dtype(dtype_);
        resolve_run(*ladder_, *rung_, o, runner_.num_sms);
    } catch (const Error& e) { return e.what(); }
    return "";
}

std::optional<std::string> Workbook::broken_constraint(const Rung& r, const Sizes& sizes,
                                                       const ParamValues& params) const {
    auto d = parse_dtype(dtype_);
    try {
        check_constraints(r, make_scope(sizes, params, d ? *d : DType::F32, runner_.num_sms));
    } catch (const Error& e) { return std::string(e.what()); }
    return std::nullopt;
}

PlotContext Workbook::plot_context() const {
    PlotContext c;
    c.ladder = ladder_;
    c.sizes = sizes_;
    c.dtype = dtype_;
    c.rung = rung_;
    if (rung_) c.params = resolved_params(*rung_);
    // The step's tied axes, while the sweep runs along its axis.
    if (const LessonStep* st = step(); st && st->sweep_axis == params_ui_.sweep_axis) c.tie = st->sweep_tie;
    c.calibration = store_.calibration();
    if (runner_.gpu)
        c.device = runner_.device;
    else
        c.device = store_.preferred_device();
    if (compare_device_ != c.device) c.compare_device = compare_device_;
    return c;
}

const Workbook::SelectionView& Workbook::selection_view() {
    SelectionView& v = view_;
    if (v.version && v.ladder == ladder_ && v.rung == rung_ && v.sizes == sizes_ && v.overrides == params_ &&
        v.dtype == dtype_ && v.store_generation == store_.generation() && v.gpu == runner_.gpu &&
        v.runner_device == runner_.device && v.num_sms == runner_.num_sms && v.compare_device == compare_device_)
        return v;
    v.compare_device = compare_device_;
    v.ladder = ladder_;
    v.rung = rung_;
    v.sizes = sizes_;
    v.overrides = params_;
    v.dtype = dtype_;
    v.store_generation = store_.generation();
    v.gpu = runner_.gpu;
    v.runner_device = runner_.device;
    v.num_sms = runner_.num_sms;
    ++v.version;
    v.ctx = plot_context();
    v.flops = prefers_flops(v.ctx, store_);
    v.library = v.flops ? library_reference_run(store_, v.ctx) : nullptr;
    v.rung_run = ladder_ && rung_ ? store_.latest(ladder_->id, rung_->id, sizes_, dtype_, &v.ctx.params) : nullptr;
    v.problem = constraint_problem();
    return v;
}

// [SECTION] Frame and layout

void Workbook::frame() {
    poll_runner();
    poll_learner_file();
    handle_keys();
    ++frames_drawn_;

    ImGuiIO& io = ImGui::GetIO();
    const float s = fonts_.scale;
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(10 * s, 8 * s));
    ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                             ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                             ImGuiWindowFlags_NoScrollWithMouse;
    ImGui::Begin("##workbook", nullptr, flags);
    ImGui::PopStyleVar();

    draw_top_bar();
    draw_banner();
    draw_panels();
    draw_status_bar();
    ImGui::End();

    if (show_log_) draw_log_window();
    if (settings_.show_frame_overlay) draw_frame_overlay();
}

// Panels are placed at absolute positions, so that item spacing never adds up:
//   navigator | strip (full width)
//             | step text   | plots / source / self-check
//             | controls    |
// The status bar goes below them.
void Workbook::draw_panels() {
    const float s = fonts_.scale;
    const float gap = 8 * s;
    const float status_h = fonts_.small->FontSize + 6 * s;
    ImVec2 avail = ImGui::GetContentRegionAvail();
    ImVec2 top = ImGui::GetCursorScreenPos();
    float body_h = std::max(100.0f, avail.y - status_h - gap);

    float nav_w = std::clamp(settings_.navigator_width * s, 160 * s, avail.x * 0.45f);
    ImGui::SetCursorScreenPos(top);
    ImGui::BeginChild("##navigator", ImVec2(nav_w, body_h), true);
    draw_navigator();
    ImGui::EndChild();
    ImGui::SetCursorScreenPos(ImVec2(top.x + nav_w, top.y));
    float nav_setting = settings_.navigator_width * s;
    bool nav_moved = splitter("##split_nav", true, gap, body_h, &nav_setting, 160 * s, avail.x * 0.45f);
    test_target("splitter:navigator");
    if (nav_moved) {
        settings_.navigator_width = nav_setting / s;
        settings_dirty_ = true;
    }

    float x1 = top.x + nav_w + gap;
    float right_w = avail.x - nav_w - gap;
    float strip_h =
        2 * ImGui::GetStyle().WindowPadding.y + ImGui::GetTextLineHeightWithSpacing() + strip_card_height() + 4 * s;
    if (ladder_ && strip_min_width() > right_w - 2 * ImGui::GetStyle().WindowPadding.x)
        strip_h += ImGui::GetStyle().ScrollbarSize;  // long ladders scroll sideways
    ImGui::SetCursorScreenPos(ImVec2(x1, top.y));
    ImGui::BeginChild("##strip", ImVec2(right_w, strip_h), true,
                      ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
    draw_ladder_strip();
    ImGui::EndChild();

    draw_lower_panels(ImVec2(x1, top.y + strip_h + gap), right_w, body_h - strip_h - gap);

    ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + body_h + gap * 0.5f));
}

// Below the strip: the step text over the controls on the left, the tabbed panel on the right.
void Workbook::draw_lower_panels(ImVec2 at, float right_w, float lower_h) {
    const float s = fonts_.scale;
    const float gap = 8 * s;
    const float x1 = at.x, y2 = at.y;
    float text_w = std::clamp(right_w * settings_.text_fraction, 260 * s, right_w - 320 * s);
    float controls_h = std::clamp(settings_.controls_height * s, 120 * s, lower_h * 0.7f);
    if (!rung_) controls_h = std::min(controls_h, 96 * s);  // nothing to run: give the text the room
    ImGui::SetCursorScreenPos(ImVec2(x1, y2));
    ImGui::BeginChild("##step_text", ImVec2(text_w, lower_h - controls_h - gap), true);
    draw_step_text();
    ImGui::EndChild();
    test_target("panel:step_text");
    ImGui::SetCursorScreenPos(ImVec2(x1, y2 + lower_h - controls_h - gap));
    float ch = settings_.controls_height * s;
    if (splitter("##split_controls", false, gap, text_w, &ch, 120 * s, lower_h * 0.7f, -1.0f)) {
        settings_.controls_height = ch / s;
        settings_dirty_ = true;
    }
    ImGui::SetCursorScreenPos(ImVec2(x1, y2 + lower_h - controls_h));
    ImGui::BeginChild("##controls", ImVec2(text_w, controls_h), true);
    draw_params();
    ImGui::EndChild();
    ImGui::SetCursorScreenPos(ImVec2(x1 + text_w, y2));
    float tw = text_w;
    if (splitter("##split_text", true, gap, lower_h, &tw, 260 * s, right_w - 320 * s)) {
        settings_.text_fraction = tw / right_w;
        settings_dirty_ = true;
    }
    ImGui::SetCursorScreenPos(ImVec2(x1 + text_w + gap, y2));
    ImGui::BeginChild("##right", ImVec2(right_w - text_w - gap, lower_h), true);
    draw_right_tabs();
    ImGui::EndChild();
}

void Workbook::draw_right_tabs() {
    if (ImGui::BeginTabBar("##right_tabs")) {
        const char* names[] = {"Plots", "Source", "Self-check", "Mine"};
        for (int i = 0; i < 4; ++i) {
            ImGuiTabItemFlags f = pending_right_tab_ == i ? ImGuiTabItemFlags_SetSelected : 0;
            bool open = ImGui::BeginTabItem(names[i], nullptr, f);
            test_target(std::string("tab:") + names[i]);
            if (open) {
                right_tab_ = i;
                ImGui::Spacing();
                if (i == 0)
                    draw_plots();
                else if (i == 1)
                    draw_source();
                else if (i == 2)
                    draw_selfcheck();
                else
                    draw_learner();
                ImGui::EndTabItem();
            }
        }
        ImGui::EndTabBar();
        if (frames_drawn_ > 2) pending_right_tab_ = -1;
    }
    if (!source_.ptx_shown) stop_ptx();
    source_.ptx_shown = false;
}

// [SECTION] Keyboard and jobs

void Workbook::handle_keys() {
    ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput) return;
    bool ctrl = io.KeyCtrl;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow)) && !ctrl) {
        if (const Lesson* l = lesson(); l && step_ + 1 < int(l->steps.size())) select_lesson(lesson_, step_ + 1);
    }
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow)) && !ctrl) {
        if (lesson() && step_ > 0) select_lesson(lesson_, step_ - 1);
    }
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape)) && runner_.job) cancel_job();
    // GLFW key codes equal the upper-case ASCII letters; the glfw backend fills io.KeysDown with them.
    if (!ctrl && ImGui::IsKeyPressed('R', false) && rung_ && !runner_.job) run_rung();
    if (!ctrl && ImGui::IsKeyPressed('L', false) && ladder_ && !runner_.job) run_ladder();
    if (!ctrl && ImGui::IsKeyPressed('S', false) && rung_ && !runner_.job && !params_ui_.sweep_axis.empty())
        run_sweep(params_ui_.sweep_axis);
    if (ImGui::IsKeyPressed(301 /* GLFW_KEY_F12 */, false)) {
        settings_.show_frame_overlay = !settings_.show_frame_overlay;
        settings_dirty_ = true;
    }
    if (ctrl && (ImGui::IsKeyPressed('=', false) || ImGui::IsKeyPressed(334 /* keypad + */, false))) {
        settings_.zoom = std::min(2.5f, settings_.zoom + 0.1f);
        theme_changed_ = settings_dirty_ = true;
    }
    if (ctrl && (ImGui::IsKeyPressed('-', false) || ImGui::IsKeyPressed(333 /* keypad - */, false))) {
        settings_.zoom = std::max(0.6f, settings_.zoom - 0.1f);
        theme_changed_ = settings_dirty_ = true;
    }
}

bool Workbook::run(Job::Kind kind, std::string* why_not) {
    if (kind == Job::Kind::Rung)
        run_rung();
    else if (kind == Job::Kind::Ladder)
        run_ladder();
    else
        run_sweep(params_ui_.sweep_axis.empty() && rung_ && !rung_->params.empty() ? rung_->params.front().name
                                                                                   : params_ui_.sweep_axis);
    if (runner_.job) return true;
    *why_not = runner_.last_error.empty() ? "no runner or no rung" : runner_.last_error;
    return false;
}

}  // namespace kl::gui
