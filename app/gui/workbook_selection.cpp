// What the window has selected: the lesson and step, the rung, the learner's overrides; the course
// layer resolves them (course/selection.h) into the view every panel draws from.
#include <algorithm>

#include "base/errors.h"
#include "gui/workbook.h"

namespace kl::gui {

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
    if (auto d = parse_dtype(s->dtype)) dtype_ = *d;  // checked when the lesson loaded
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
    const bool dtype_ok = std::find(rung_->dtypes.begin(), rung_->dtypes.end(), dtype_) != rung_->dtypes.end();
    if (!dtype_ok && !rung_->dtypes.empty()) dtype_ = rung_->dtypes.front();
    if (!params_ui_.sweep_axis.empty() && !rung_->find_param(params_ui_.sweep_axis) &&
        !sizes_.count(params_ui_.sweep_axis))
        params_ui_.sweep_axis.clear();
}

ParamValues Workbook::params_for(const Rung& r) const {
    return defaults_with(r, rung_ && r.id == rung_->id ? params_ : ParamValues{});
}

SelectionChoice Workbook::choice() const {
    SelectionChoice c;
    c.ladder = ladder_;
    c.rung = rung_;
    c.sizes = sizes_;
    c.overrides = params_;
    c.dtype = dtype_;
    c.sweep_axis = params_ui_.sweep_axis;
    c.step = step();
    return c;
}

std::optional<SelectionDevice> Workbook::selection_device() const {
    std::optional<DeviceInfo> gpu, recorded;
    if (runner_.gpu) gpu = runner_.device_info;
    for (const auto& src : store_.sources())
        if (src.device == store_.preferred_device() && src.device_info &&
            (!recorded || (src.device_info->has_limits && !recorded->has_limits)))
            recorded = src.device_info;
    return pick_selection_device(gpu, recorded);
}

std::string Workbook::refusal_at(const Rung& r, const Sizes& sizes, const ParamValues& params) {
    if (!ladder_) return "";
    return kl::refusal_at(*ladder_, r, sizes, params, dtype_, selection_view().selection.device);
}

PlotContext Workbook::plot_context(const Selection& selection) const {
    PlotContext c;
    c.ladder = ladder_;
    c.sizes = sizes_;
    c.dtype = to_string(dtype_);
    c.rung = rung_;
    c.params = selection.params;
    // The step's tied axes, while the sweep runs along its axis.
    if (const LessonStep* st = step(); st && st->sweep_axis == params_ui_.sweep_axis) c.tie = st->sweep_tie;
    c.calibration = store_.calibration();
    c.device = store_.preferred_device();  // the one device every run and roof of the plot is from
    if (compare_device_ != c.device) c.compare_device = compare_device_;
    return c;
}

const Workbook::SelectionView& Workbook::selection_view() {
    SelectionView& v = view_;
    const LessonStep* st = step();
    const uint64_t reveal_generation = (reveal_gate(), reveal_.generation);  // what the strip and plots withhold
    if (v.version && v.ladder == ladder_ && v.rung == rung_ && v.sizes == sizes_ && v.overrides == params_ &&
        v.dtype == dtype_ && v.sweep_axis == params_ui_.sweep_axis && v.step == st &&
        v.store_generation == store_.generation() && v.gpu == runner_.gpu && v.runner_device == runner_.device &&
        v.num_sms == runner_.num_sms && v.compare_device == compare_device_ && v.reveal_generation == reveal_generation)
        return v;
    v.reveal_generation = reveal_generation;
    v.compare_device = compare_device_;
    v.ladder = ladder_;
    v.rung = rung_;
    v.sizes = sizes_;
    v.overrides = params_;
    v.dtype = dtype_;
    v.sweep_axis = params_ui_.sweep_axis;
    v.step = st;
    v.store_generation = store_.generation();
    v.gpu = runner_.gpu;
    v.runner_device = runner_.device;
    v.num_sms = runner_.num_sms;
    ++v.version;
    v.selection = make_selection(choice(), selection_device());
    v.ctx = plot_context(v.selection);
    v.flops = prefers_flops(v.ctx, store_);
    v.library = v.flops ? library_reference_run(store_, v.ctx) : nullptr;
    v.rung_run =
        ladder_ && rung_ ? store_.latest(ladder_->id, rung_->id, sizes_, to_string(dtype_), &v.ctx.params) : nullptr;
    return v;
}

}  // namespace kl::gui
