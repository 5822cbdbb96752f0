// [SECTION] index: construction / selection / frame and layout / top bar / banner / status bar /
//                  keyboard / settings and report
#include "gui/workbook.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "engine/errors.h"
#include "engine/runner.h"
#include "engine/paths.h"
#include "gui/widgets.h"

namespace kl::gui {

// [SECTION] Construction

Workbook::Workbook(AppOptions options, Settings settings, Fonts fonts)
    : options_(std::move(options)), settings_(std::move(settings)), fonts_(std::move(fonts)) {
    ladders_ = load_all_ladders(kernels_dir(), &ladder_errors_);
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

    // Where to start: the command line, else where the reader left off, else lesson 1 (or the first).
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

    if (!options_.no_runner)
        start_runner();
    else
        runner_.status = "live runs off (--no-runner)";
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
        ParamValues p = resolve_params(*rung_, params_);
        if (auto broken = broken_constraint(*rung_, sizes_, p)) return *broken;
        RunOptions o;
        o.sizes = sizes_;
        o.params = params_;
        o.dtype = parse_dtype(dtype_);
        resolve_problem(*ladder_, *rung_, o);
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
    handle_keys();
    ++frames_drawn_;
    if (!options_.run_on_start.empty() && (!start_job_submitted_ || start_job_again())) {
        if (!start_job_submitted_) start_job_time_ = std::chrono::steady_clock::now();
        start_job_submitted_ = true;
        ++start_jobs_;
        const std::string& what = options_.run_on_start;
        if (what == "rung")
            run_rung();
        else if (what == "ladder")
            run_ladder();
        else if (what == "sweep")
            run_sweep(params_ui_.sweep_axis.empty() && rung_ && !rung_->params.empty() ? rung_->params.front().name
                                                                                       : params_ui_.sweep_axis);
        if (!runner_.job)
            log("--run " + what + ": nothing was started (" +
                    (runner_.last_error.empty() ? "no runner or no rung" : runner_.last_error) + ")",
                true);
    }

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

    // Panels are placed at absolute positions, so that item spacing never adds up:
    //   navigator | strip (full width)
    //             | step text   | plots / source / self-check
    //             | controls    |
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

    float y2 = top.y + strip_h + gap;
    float lower_h = body_h - strip_h - gap;
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
    if (ImGui::BeginTabBar("##right_tabs")) {
        const char* names[] = {"Plots", "Source", "Self-check"};
        for (int i = 0; i < 3; ++i) {
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
                else
                    draw_selfcheck();
                ImGui::EndTabItem();
            }
        }
        ImGui::EndTabBar();
        if (frames_drawn_ > 2) pending_right_tab_ = -1;
    }
    ImGui::EndChild();

    ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + body_h + gap * 0.5f));
    draw_status_bar();
    ImGui::End();

    if (show_log_) draw_log_window();
    if (settings_.show_frame_overlay) {
        ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - 16 * s, io.DisplaySize.y - 40 * s), ImGuiCond_Always,
                                ImVec2(1, 1));
        ImGui::SetNextWindowBgAlpha(0.96f);
        ImGui::Begin("##frame_overlay", nullptr,
                     ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                         ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                         ImGuiWindowFlags_NoNav);
        // Every stage of the frame, so a slow interval can be blamed (docs/gui.md).
        ImGui::TextDisabled("ms          p50      p99      max");
        for (int i = 0; i < FrameStats::kStages; ++i) {
            auto st = FrameStats::Stage(i);
            ImGui::Text("%-8s %7.2f  %7.2f  %7.2f", FrameStats::stage_name(st), frame_stats_.percentile(st, 50),
                        frame_stats_.percentile(st, 99), frame_stats_.percentile(st, 100));
        }
        ImGui::Text("%zu frames, %.0f fps now", frame_stats_.count(), io.Framerate);
        if (job_frame_stats_.count() > 0)
            ImGui::Text("during jobs: work p99 %.2f, interval p99 %.2f (%zu frames)",
                        job_frame_stats_.percentile(FrameStats::Work, 99),
                        job_frame_stats_.percentile(FrameStats::Interval, 99), job_frame_stats_.count());
        ImGui::TextDisabled("%s", renderer_.c_str());
        ImGui::TextDisabled("F12 hides this");
        ImGui::End();
    }
}

// [SECTION] Top bar

void Workbook::draw_top_bar() {
    const float s = fonts_.scale;
    const Palette& pal = palette();
    ImGui::PushFont(fonts_.h2);
    ImGui::TextUnformatted("Kernel Ladder");
    ImGui::PopFont();
    ImGui::SameLine(0, 18 * s);
    const Lesson* l = lesson();
    const LessonStep* st = step();
    float y = ImGui::GetCursorPosY();
    ImGui::SetCursorPosY(y + (fonts_.h2->FontSize - ImGui::GetFontSize()) * 0.5f);
    // The breadcrumb gets what the buttons on the right leave; long titles end in an ellipsis.
    float bw = 118 * s;
    float export_w = ImGui::CalcTextSize("Export lesson\xE2\x80\xA6").x + 2 * ImGui::GetStyle().FramePadding.x + 6 * s;
    float buttons_w = export_w + 2 * bw + 96 * s + 40 * s + 5 * ImGui::GetStyle().ItemSpacing.x;
    float room = ImGui::GetWindowContentRegionMax().x - buttons_w - ImGui::GetCursorPosX();
    if (l) {
        std::string where = "Lesson " + std::to_string(l->number) + " \xC2\xB7 " + l->title;
        std::string here =
            st ? "Step " + std::to_string(step_ + 1) + " of " + std::to_string(l->steps.size()) + ": " + st->title : "";
        float sep_w = ImGui::CalcTextSize("  \xE2\x80\xBA  ").x;
        float here_w = fonts_.bold->CalcTextSizeA(fonts_.bold->FontSize, FLT_MAX, 0, here.c_str()).x;
        float where_room = std::max(room * 0.35f, room - here_w - sep_w);
        where = fit_text(fonts_.body, where, where_room);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.muted));
        ImGui::TextUnformatted(where.c_str());
        ImGui::PopStyleColor();
        if (st) {
            ImGui::SameLine(0, 0);
            ImGui::TextDisabled("  \xE2\x80\xBA  ");
            ImGui::SameLine(0, 0);
            ImGui::PushFont(fonts_.bold);
            float left = ImGui::GetWindowContentRegionMax().x - buttons_w - ImGui::GetCursorPosX();
            ImGui::TextUnformatted(fit_text(fonts_.bold, here, left).c_str());
            ImGui::PopFont();
        }
    } else {
        ImGui::TextDisabled("no lessons loaded");
    }

    // Right side: export lesson, previous / next, theme, help.
    float right = ImGui::GetWindowContentRegionMax().x;
    ImGui::SameLine(right - buttons_w + ImGui::GetStyle().ItemSpacing.x);
    ImGui::SetCursorPosY(y);
    if (plain_button(lesson_export_running() ? "Exporting\xE2\x80\xA6" : "Export lesson\xE2\x80\xA6",
                     ImVec2(export_w, 0), l != nullptr))
        ImGui::OpenPopup("##export_lesson");
    test_target("button:export_lesson");
    item_tooltip(
        "Every figure of this lesson and a handout (Markdown and HTML) into a folder, as `kladder export-lesson` "
        "writes them");
    draw_lesson_export_popup();
    ImGui::SameLine();
    bool has_prev = l && step_ > 0, has_next = l && step_ + 1 < int(l->steps.size());
    if (plain_button("\xE2\x97\x80  Previous", ImVec2(bw, 0), has_prev)) select_lesson(lesson_, step_ - 1);
    test_target("button:previous");
    item_tooltip("Previous step (Left arrow)");
    ImGui::SameLine();
    if (primary_button("Next  \xE2\x96\xB6", ImVec2(bw, 0), has_next)) select_lesson(lesson_, step_ + 1);
    test_target("button:next");
    item_tooltip("Next step (Right arrow)");
    ImGui::SameLine();
    if (ImGui::Button(settings_.dark ? "Light theme" : "Dark theme", ImVec2(96 * s, 0))) {
        settings_.dark = !settings_.dark;
        theme_changed_ = true;
        settings_dirty_ = true;
    }
    test_target("button:theme");
    ImGui::SameLine();
    ImGui::Button("?", ImVec2(40 * s, 0));
    item_tooltip(
        "Keys: Left / Right: previous / next step.  R: run this rung.  L: run the whole ladder.  "
        "S: sweep.  Esc: cancel.  F12: frame-time overlay.  Ctrl +/-: zoom.\n\n"
        "Data: " +
        data_root() + "\nSettings: " + settings_path() + "\nFonts: " + fonts_.note);
    ImGui::Dummy(ImVec2(0, 2 * s));
}

// [SECTION] Banner

void Workbook::draw_banner() {
    const Palette& pal = palette();
    if (runner_.gpu) return;  // live runs: the device is in the status bar
    std::string text;
    std::vector<std::string> measured;
    for (const auto& src : store_.sources()) {
        std::string date = src.created.substr(0, 10);
        std::string item = (src.device.empty() ? std::string("an unnamed device") : src.device) + " on " +
                           (date.empty() ? "an unknown date" : date);
        if (std::find(measured.begin(), measured.end(), item) == measured.end()) measured.push_back(item);
    }
    std::string why = !runner_.no_gpu_reason.empty() ? "No GPU: " + runner_.no_gpu_reason + "."
                      : !runner_.unavailable.empty() ? "Live runs unavailable: " + runner_.unavailable + "."
                      : options_.no_runner           ? "Live runs off."
                      : runner_.hello                ? ""
                                                     : "Starting the GPU runner\xE2\x80\xA6";
    if (!measured.empty()) {
        std::string list;
        for (size_t i = 0; i < measured.size(); ++i)
            list += (i ? (i + 1 == measured.size() ? " and " : ", ") : "") + measured[i];
        text = why + (why.empty() ? "" : "  ") + "Showing recorded results measured on " + list + ".";
    } else {
        text = why + (why.empty() ? "" : "  ") +
               "No recorded results are installed: the lessons read, but plots stay empty until a GPU runs them.";
    }
    for (const auto& e : results_errors_) text += "  " + e;
    ImGui::Spacing();
    begin_callout("##banner");
    ImGui::PushFont(fonts_.bold);
    ImGui::TextUnformatted(measured.empty() ? "No results to show" : "Recorded results");
    ImGui::PopFont();
    ImGui::SameLine();
    ImGui::TextWrapped("%s", text.c_str());
    end_callout(pal.warn, with_alpha(pal.warn, 0.13f));
}

// [SECTION] Status bar

void Workbook::draw_status_bar() {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    ImGui::PushFont(fonts_.small);
    ImVec2 p = ImGui::GetCursorScreenPos();
    float r = 4.5f * s;
    ImU32 dot = runner_.job ? pal.accent : runner_.gpu ? pal.good : runner_.hello ? pal.warn : pal.faint;
    ImGui::Dummy(ImVec2(2 * r + 4 * s, ImGui::GetFontSize()));
    ImGui::GetWindowDrawList()->AddCircleFilled(ImVec2(p.x + r + 2 * s, p.y + ImGui::GetFontSize() * 0.55f), r, dot);
    ImGui::SameLine();
    ImGui::TextUnformatted(runner_.status.c_str());
    ImGui::SameLine();
    // Percentiles copy and partly sort the last 4,096 samples: refreshed every 30 frames (twice a
    // second), not on every frame they describe.
    if (frames_drawn_ - status_frame_text_at_ >= 30 || status_frame_text_.empty()) {
        char text[64];
        std::snprintf(text, sizeof text, "frame %.2f ms, p99 %.2f ms", frame_stats_.build_percentile(50),
                      frame_stats_.build_percentile(99));
        status_frame_text_ = text;
        status_frame_text_at_ = frames_drawn_;
    }
    const std::string& right = status_frame_text_;
    float rw = ImGui::CalcTextSize(right.c_str()).x + 70 * s;
    ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX() + 10 * s, ImGui::GetWindowContentRegionMax().x - rw));
    ImGui::TextDisabled("%s", right.c_str());
    item_tooltip("Time to build one frame (median and 99th percentile of the last frames). F12 shows the overlay.");
    ImGui::SameLine();
    if (ImGui::SmallButton("Log")) show_log_ = !show_log_;
    ImGui::PopFont();
}

void Workbook::draw_log_window() {
    const float s = fonts_.scale;
    ImGui::SetNextWindowSize(ImVec2(760 * s, 360 * s), ImGuiCond_FirstUseEver);
    if (!ImGui::Begin("Runner and load log", &show_log_, ImGuiWindowFlags_NoSavedSettings)) {
        ImGui::End();
        return;
    }
    if (runner_.client) {
        if (ImGui::Button("Restart runner")) {
            runner_.client->kill_runner();
            log("runner restart requested");
        }
        ImGui::SameLine();
    }
    if (ImGui::Button("Clear")) runner_.log.clear();
    ImGui::Separator();
    ImGui::BeginChild("##log_lines", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::PushFont(fonts_.mono);
    for (const auto& line : runner_.log) ImGui::TextUnformatted(line.c_str());
    if (ImGui::GetScrollY() >= ImGui::GetScrollMaxY()) ImGui::SetScrollHereY(1.0f);
    ImGui::PopFont();
    ImGui::EndChild();
    ImGui::End();
}

// [SECTION] Keyboard

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

// [SECTION] Settings and report

void Workbook::save_settings_now() {
    if (options_.no_save) return;
    try {
        save_settings(settings_path(), settings_);
        settings_dirty_ = false;
    } catch (const Error& e) { log(std::string("settings: ") + e.what()); }
}

void Workbook::log(const std::string& line, bool error) {
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "[%7.2f s] ", t);
    runner_.log.push_back(stamp + line);
    if (runner_.log.size() > 2000) runner_.log.erase(runner_.log.begin(), runner_.log.begin() + 500);
    if (error) logged_errors_.push_back(line);
}

bool Workbook::idle_for_screenshot() const {
    if (ptx_pending()) return false;
    if (options_.run_on_start.empty()) return true;
    // After a fault, "over" includes seeing the runner leave (the window must outlive it).
    return start_job_submitted_ && !runner_.job && !runner_.awaiting_exit && !start_job_again();
}

bool Workbook::start_job_again() const {
    if (options_.run_for_s <= 0 || !start_job_submitted_ || runner_.job || runner_.failures > 0) return false;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_job_time_).count() <
           options_.run_for_s;
}

nlohmann::json Workbook::report() const {
    nlohmann::json j;
    j["frames"] = frame_stats_.count();
    j["renderer"] = renderer_;
    nlohmann::json during_jobs = {{"frames", job_frame_stats_.count()}};
    for (int i = 0; i < FrameStats::kStages; ++i) {
        auto st = FrameStats::Stage(i);
        std::string key = std::string("frame_") + FrameStats::stage_name(st) + "_ms";
        j[key] = {{"p50", frame_stats_.percentile(st, 50)},
                  {"p99", frame_stats_.percentile(st, 99)},
                  {"max", frame_stats_.percentile(st, 100)}};
        during_jobs[key] = {{"p50", job_frame_stats_.percentile(st, 50)},
                            {"p99", job_frame_stats_.percentile(st, 99)},
                            {"max", job_frame_stats_.percentile(st, 100)}};
    }
    j["frames_during_jobs"] = during_jobs;
    j["runner"] = {{"hello", runner_.hello},
                   {"gpu", runner_.gpu},
                   {"device", runner_.device},
                   {"no_gpu_reason", runner_.no_gpu_reason},
                   {"results", runner_.results_received},
                   {"failures", runner_.failures},
                   {"exits", runner_.exits_seen},
                   {"restarts", runner_.client ? runner_.client->restarts() : 0},
                   {"killed_by_test", runner_.killed_by_hook},
                   {"last_error", runner_.last_error},
                   {"job_active", runner_.job.has_value()},
                   {"start_jobs", start_jobs_}};
    j["errors_shown"] = logged_errors_;
    j["log"] = runner_.log;
    j["lessons"] = lessons_.size();
    nlohmann::json le = nlohmann::json::array();
    for (const auto& e : lesson_errors_) le.push_back({{"folder", e.folder}, {"message", e.message}});
    j["lesson_errors"] = le;
    j["ladder_errors"] = ladder_errors_;
    j["results_errors"] = results_errors_;
    int live = 0;
    for (const auto& r : store_.runs()) live += r.live;
    j["live_results"] = live;
    // Where the reader is and what the panels show (scripted tests check it).
    const Lesson* l = lesson();
    nlohmann::json answers = nlohmann::json::object();
    if (l && settings_.progress.count(l->id))
        for (const auto& [q, a] : settings_.progress.at(l->id).answers) answers[std::to_string(q + 1)] = a;
    j["state"] = {{"lesson", l ? l->id : ""},
                  {"step", step_ + 1},
                  {"ladder", ladder_ ? ladder_->id : ""},
                  {"rung", rung_ ? rung_->id : ""},
                  {"params", rung_ ? nlohmann::json(resolved_params(*rung_)) : nlohmann::json::object()},
                  {"dark", settings_.dark},
                  {"right_tab", right_tab_},
                  {"plots_tab", static_cast<int>(plots_.request.plot)},
                  {"source_tab", source_.tab},
                  {"selfcheck_tab", selfcheck_.tab},
                  {"card", selfcheck_.card + 1},
                  {"card_flipped", selfcheck_.flipped},
                  {"step_answer_shown", text_.answer_shown},
                  {"answers", answers},
                  {"navigator_width", settings_.navigator_width},
                  {"frame_overlay", settings_.show_frame_overlay},
                  {"zoom", settings_.zoom},
                  {"font_scale", fonts_.scale}};
    return j;
}

}  // namespace kl::gui
