// The controls under the step text: the rung's parameters (only values the manifest allows can
// be picked; constraints between parameters are checked and explained), the problem size and
// dtype, the run buttons, a progress bar with Cancel, and the last error.
// [SECTION] index: panel / run bar / parameter widgets / size widgets
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "base/errors.h"
#include "gui/widgets.h"
#include "gui/workbook.h"
#include "model/operation.h"
#include "plot/ticks.h"

namespace kl::gui {

namespace {

std::string constraints_text(const Rung& r) {
    std::string t;
    for (const auto& c : r.constraints) t += "\n\xE2\x80\xA2 " + c.message + "   (" + c.expr.text() + ")";
    return t;
}

}  // namespace

// "1024 (registers), 2048 (threads)": the values of `spec` the device could not launch with
// the other parameters as set; "" when all can (or nothing is known about the kernel yet).
std::string Workbook::refused_values(const Rung& r, const ParamSpec& spec, const ParamValues& current) {
    std::vector<int64_t> allowed = spec.allowed();
    if (allowed.size() > 32) return "";
    std::string out;
    for (int64_t v : allowed) {
        ParamValues trial = current;
        trial[spec.name] = v;
        const Resolution at = resolve_at(*ladder_, r, sizes_, trial, dtype_, selection_view().selection.device);
        if (!at.refusal.empty() && !at.refused_by_device) continue;  // a constraint: not a device's refusal
        std::string why = predicted_launch_refusal(r, trial);
        if (!why.empty())
            out += (out.empty() ? "" : ", ") + std::to_string(v) + " (" + why.substr(0, why.find(':')) + ")";
    }
    return out;
}

// [SECTION] Panel

void Workbook::draw_params() {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    if (!ladder_ || !rung_) {
        section_label("CONTROLS");
        ImGui::Spacing();
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.muted));
        ImGui::TextWrapped("Nothing to run in this step. Use the arrows (or Left / Right) to move through the lesson.");
        ImGui::PopStyleColor();
        return;
    }
    const Rung& r = *rung_;
    const std::string problem = selection_view().selection.refusal;
    draw_rung_title(r);
    draw_run_bar(r, problem);
    if (!runner_.last_error.empty()) draw_last_error();
    ImGui::Dummy(ImVec2(0, 2 * s));
    ImGui::Separator();
    ImGui::Dummy(ImVec2(0, 2 * s));

    // Parameters, then sizes and dtype, in aligned rows.
    // Labels as wide as the longest name (ROWS_PER_THREAD), in the code font they are shown in.
    float label_w = 56 * s;
    auto widen = [&](const std::string& name) {
        label_w =
            std::max(label_w, fonts_.mono->CalcTextSizeA(fonts_.mono->FontSize, FLT_MAX, 0, name.c_str()).x + 14 * s);
    };
    for (const auto& p : r.params) widen(p.name);
    for (const auto& [axis, v] : sizes_) widen(axis);
    float widget_w = std::max(120 * s, ImGui::GetContentRegionAvail().x - label_w - 40 * s);
    ParamValues current = params_for(r);
    // The values as set break a constraint: every parameter shows in red.
    const bool values_ok = refusal_at(r, sizes_, current).empty();
    // A teaching rung's pinned lab switches are not the learner's to set (its lab twin varies them).
    for (const auto& spec : r.params)
        if (!spec.pinned) draw_param_widget(r, spec, current, values_ok, label_w, widget_w);
    if (r.free_params() == 0) { ImGui::TextDisabled("This rung has no parameters to set."); }
    if (std::string need = arch_refusal_here(r); !need.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.warn));
        ImGui::TextWrapped("This GPU (%s) cannot run this rung: %s. The plots show its recorded results.",
                           runner_.device_arch.c_str(), need.c_str());
        ImGui::PopStyleColor();
    } else if (std::string cannot = predicted_launch_refusal(r, current); !cannot.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.bad));
        ImGui::TextWrapped("\xE2\x9A\xA0 These values cannot launch (predicted from the measured registers): %s",
                           cannot.c_str());
        ImGui::PopStyleColor();
    }
    draw_size_widgets(r, label_w, widget_w);
    // dtype
    if (r.dtypes.size() > 1 || ladder_->dtypes.size() > 1) {
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted("dtype");
        ImGui::SameLine(label_w);
        ImGui::SetNextItemWidth(110 * s);
        if (ImGui::BeginCombo("##dtype", to_string(dtype_).c_str())) {
            for (DType x : r.dtypes)
                if (ImGui::Selectable(to_string(x).c_str(), x == dtype_)) dtype_ = x;
            ImGui::EndCombo();
        }
    } else {
        ImGui::TextDisabled("dtype %s (the only one this rung offers)", to_string(dtype_).c_str());
    }

    if (!problem.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.bad));
        ImGui::TextWrapped("\xE2\x9A\xA0 %s", problem.c_str());
        ImGui::PopStyleColor();
        if (!r.constraints.empty()) item_tooltip("Constraints of this rung:" + constraints_text(r));
    }
}

// Title line: which rung the controls act on, and the way back to what the step sets.
void Workbook::draw_rung_title(const Rung& r) {
    const float s = fonts_.scale;
    section_label("RUNG");
    ImGui::SameLine();
    // The title is cut (whole in its tooltip) to end before the help mark and the step button: at
    // 1280 x 720 a long one ran under "Reset to step" (issue 38).
    const LessonStep* st = step();
    const float button_x = ImGui::GetWindowContentRegionMax().x - 120 * s;
    float room =
        (st && !st->rung.empty() ? button_x : ImGui::GetWindowContentRegionMax().x) - ImGui::GetCursorPosX() - 8 * s;
    if (!r.idea.empty()) room -= ImGui::CalcTextSize("(?)").x + ImGui::GetStyle().ItemSpacing.x;
    ImGui::PushFont(fonts_.bold);
    const std::string title = fit_text(fonts_.bold, r.title, std::max(room, 40 * s));
    ImGui::TextUnformatted(title.c_str());
    ImGui::PopFont();
    if (title != r.title) item_tooltip(r.title);
    if (!r.idea.empty()) {
        ImGui::SameLine();
        help_marker(r.idea.c_str());
    }
    if (st && st->rung == r.id) {
        ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - 120 * s);
        if (ImGui::SmallButton("Reset to step")) apply_step();
        item_tooltip("Back to the rung, parameters and sizes this step sets.");
    } else if (st && !st->rung.empty()) {
        ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - 120 * s);
        if (ImGui::SmallButton("Back to step")) apply_step();
    }
    ImGui::Spacing();
}

// [SECTION] Run bar

// Run rung, Run ladder, Sweep and its axis, Counters; while a job runs its progress and Cancel,
// otherwise why live runs are not possible.
void Workbook::draw_run_bar(const Rung& r, const std::string& problem) {
    const float s = fonts_.scale;
    bool busy = runner_.job.has_value();
    bool can_run = runner_.client && !busy && !(runner_.hello && !runner_.gpu);
    std::string why_not = !runner_.client ? (runner_.unavailable.empty() ? "live runs are off" : runner_.unavailable)
                          : runner_.hello && !runner_.gpu ? "no GPU: " + runner_.no_gpu_reason
                          : busy                          ? "a job is running"
                                                          : "";
    if (primary_button("\xE2\x96\xB6  Run rung", ImVec2(0, 0), can_run && problem.empty())) run_rung();
    test_target("button:run_rung");
    item_tooltip(why_not.empty() ? "Check against the reference, then time this rung at these settings (R)."
                                 : "Cannot run: " + why_not);
    ImGui::SameLine();
    if (plain_button("Run ladder", ImVec2(0, 0), can_run)) run_ladder();
    test_target("button:run_ladder");
    item_tooltip("Every rung of the ladder at these sizes; each at its own defaults except this one (L).");
    ImGui::SameLine();
    // Sweep axis: the step's, or any size axis or parameter.
    std::vector<std::string> axes;
    for (const auto& [k, v] : sizes_) axes.push_back(k);
    for (const auto& p : r.params)
        if (!p.pinned) axes.push_back(p.name);
    if (params_ui_.sweep_axis.empty() && !axes.empty()) params_ui_.sweep_axis = axes.front();
    if (plain_button("Sweep", ImVec2(0, 0), can_run)) {
        run_sweep();
        plots_.request.plot = PlotKind::Sweep;
    }
    test_target("button:sweep");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {  // the values are listed only when asked for
        const std::vector<int64_t>& preview = selection_view().selection.sweep.values;
        std::string list;
        for (size_t i = 0; i < preview.size(); ++i)
            list += (i ? ", " : "") + plot::format_fixed(double(preview[i]), 0, true);
        item_tooltip("Run this rung at each value of " + params_ui_.sweep_axis + ": " + list + " (S).");
    }
    ImGui::SameLine(0, 4 * s);
    ImGui::SetNextItemWidth(90 * s);
    if (ImGui::BeginCombo("##sweep_axis", params_ui_.sweep_axis.c_str())) {
        for (const auto& a : axes)
            if (ImGui::Selectable(a.c_str(), a == params_ui_.sweep_axis)) params_ui_.sweep_axis = a;
        ImGui::EndCombo();
    }
    item_tooltip("What Sweep varies");
    // Beside the run buttons when it fits, else on the next line.
    float counters_w =
        ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize("Counters").x;
    ImGui::SameLine();
    bool counters_own_line = ImGui::GetContentRegionAvail().x < counters_w;
    if (counters_own_line) ImGui::NewLine();
    ImGui::Checkbox("Counters", &params_ui_.counters);
    test_target("checkbox:counters");
    item_tooltip(
        "Also read hardware counters (DRAM and L2 bytes, coalescing, bank conflicts, occupancy) for each run: "
        "a separate replay pass after timing, several passes per rung, so runs take longer. "
        "The timings are never touched by it.\n\nWhere counters cannot be read (no permission, no CUPTI, "
        "a virtualized GPU) the run says why: in the log and in the plot's tooltip.");
    if (busy) {
        const Job& j = *runner_.job;
        float fraction = j.requests.empty() ? 0.0f : float(j.done + j.failed) / float(j.requests.size());
        char overlay[160];
        std::snprintf(overlay, sizeof overlay, "%d of %zu  \xC2\xB7  %s", j.done + j.failed, j.requests.size(),
                      j.label.c_str());
        ImGui::ProgressBar(fraction, ImVec2(ImGui::GetContentRegionAvail().x - 100 * s, 0), overlay);
        ImGui::SameLine();
        if (ImGui::Button("Cancel", ImVec2(-1, 0))) cancel_job();
        test_target("button:cancel");
        item_tooltip("Stop now: the runner is stopped and a fresh one starts for the next run (Esc).");
    } else if (!why_not.empty() && why_not != "a job is running") {
        if (counters_own_line) ImGui::SameLine();  // share the checkbox's line
        ImGui::AlignTextToFramePadding();
        ImGui::PushFont(fonts_.small);
        ImGui::TextDisabled("Live runs: %s", why_not.c_str());
        ImGui::PopFont();
    }
}

void Workbook::draw_last_error() {
    const Palette& pal = palette();
    ImGui::Spacing();
    begin_callout("##last_error");
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.bad));
    ImGui::PushFont(fonts_.bold);
    ImGui::TextUnformatted(runner_.last_error_title.empty() ? "Error" : runner_.last_error_title.c_str());
    ImGui::PopFont();
    ImGui::PopStyleColor();
    ImGui::TextWrapped("%s", runner_.last_error.c_str());
    if (ImGui::SmallButton("Dismiss")) runner_.last_error.clear();
    ImGui::SameLine();
    if (ImGui::SmallButton("Show log")) show_log_ = true;
    end_callout(pal.bad, with_alpha(pal.bad, 0.10f));
}

// [SECTION] Parameter widgets

// One parameter: a combo over an explicit list, else a slider over the valid values of a range;
// values that break a constraint or could not launch are marked, and the tooltip says why.
void Workbook::draw_param_widget(const Rung& r, const ParamSpec& spec, const ParamValues& current, bool values_ok,
                                 float label_w, float widget_w) {
    const Palette& pal = palette();
    ImGui::PushID(spec.name.c_str());
    std::vector<int64_t> allowed = spec.allowed();
    int64_t value = current.count(spec.name) ? current.at(spec.name) : spec.default_value;
    int index = 0;
    for (int i = 0; i < int(allowed.size()); ++i)
        if (allowed[i] == value) index = i;
    ImGui::AlignTextToFramePadding();
    ImGui::PushFont(fonts_.mono);
    ImGui::TextUnformatted(spec.name.c_str());
    ImGui::PopFont();
    ImGui::SameLine(label_w);
    if (!values_ok) ImGui::PushStyleColor(ImGuiCol_FrameBg, ImGui::ColorConvertU32ToFloat4(with_alpha(pal.bad, 0.35f)));
    ImGui::SetNextItemWidth(widget_w);
    bool changed = false;
    std::string shown = plot::format_fixed(double(value), 0, true);
    if (allowed.empty()) {
        ImGui::TextDisabled("no valid value");
    } else if (!spec.values.empty() && allowed.size() <= 12) {
        // An explicit list: a combo; values that would break a constraint are marked.
        if (ImGui::BeginCombo("##value", shown.c_str())) {
            for (int i = 0; i < int(allowed.size()); ++i) {
                ParamValues trial = current;
                trial[spec.name] = allowed[i];
                std::string why = refusal_at(r, sizes_, trial);
                std::string cannot = why.empty() ? predicted_launch_refusal(r, trial) : "";
                std::string item = plot::format_fixed(double(allowed[i]), 0, true) +
                                   (!why.empty()      ? "   (breaks a constraint)"
                                    : !cannot.empty() ? "   (cannot launch: " + cannot.substr(0, cannot.find(':')) + ")"
                                                      : "");
                if (why.empty()) why = cannot;
                if (ImGui::Selectable(item.c_str(), i == index)) {
                    index = i;
                    changed = true;
                }
                if (!why.empty()) item_tooltip(why);
            }
            ImGui::EndCombo();
        }
    } else {
        // A range: a slider over the valid values only (so 48 can never be picked when pow2).
        std::string fmt;
        for (char c : shown) fmt += c == '%' ? std::string("%%") : std::string(1, c);
        if (ImGui::SliderInt("##value", &index, 0, int(allowed.size()) - 1, fmt.c_str(), ImGuiSliderFlags_AlwaysClamp))
            changed = true;
    }
    if (!values_ok) ImGui::PopStyleColor();
    // Values of this parameter the device could not launch (the other values as set).
    const std::string refused = refused_values(r, spec, current);
    std::string tip = spec.help.empty() ? spec.name : spec.name + ": " + spec.help;
    tip += "\nAllowed: " + spec.describe_allowed() + ".  Default: " + std::to_string(spec.default_value) + ".";
    if (!r.constraints.empty()) tip += "\n\nConstraints of this rung:" + constraints_text(r);
    if (!refused.empty()) tip += "\n\nCannot launch on this device: " + refused;
    item_tooltip(tip);
    if (changed && index >= 0 && index < int(allowed.size())) params_[spec.name] = allowed[index];
    ImGui::SameLine();
    help_marker(tip.c_str());
    if (!refused.empty() && spec.values.empty()) {  // sliders: the marks under the slider
        ImGui::SetCursorPosX(label_w);
        ImGui::PushFont(fonts_.small);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().bad), "\xE2\x9C\x95 cannot launch: %s",
                           refused.c_str());
        ImGui::PopFont();
    }
    ImGui::PopID();
}

// [SECTION] Size widgets

void Workbook::draw_size_widgets(const Rung& r, float label_w, float widget_w) {
    const float s = fonts_.scale;
    const Operation* op = find_operation(r.operation);
    for (auto& [axis, value] : sizes_) {
        ImGui::PushID(("size_" + axis).c_str());
        int64_t lo = 1, hi = int64_t(1) << 40;
        std::string what = "elements";
        if (op)
            for (const auto& a : op->size_axes())
                if (a.name == axis) lo = a.min, hi = a.max, what = a.description;
        ImGui::AlignTextToFramePadding();
        ImGui::PushFont(fonts_.mono);
        ImGui::TextUnformatted(axis.c_str());
        ImGui::PopFont();
        ImGui::SameLine(label_w);
        if (ImGui::Button("\xC3\xB7"
                          "2") &&
            value / 2 >= lo)
            value /= 2;
        item_tooltip("Halve " + axis);
        ImGui::SameLine(0, 4 * s);
        ImGui::SetNextItemWidth(std::max(110 * s, widget_w * 0.45f));
        int64_t v = value;
        if (ImGui::InputScalar("##size", ImGuiDataType_S64, &v, nullptr, nullptr, "%lld",
                               ImGuiInputTextFlags_EnterReturnsTrue))
            value = std::clamp(v, lo, hi);
        test_target("input:size:" + axis);
        ImGui::SameLine(0, 4 * s);
        if (ImGui::Button("\xC3\x97"
                          "2") &&
            value <= hi / 2)
            value *= 2;
        item_tooltip("Double " + axis);
        ImGui::SameLine();
        ImGui::TextDisabled("%s  %s", format_size_value(value).c_str(), what.c_str());
        ImGui::PopID();
    }
}

}  // namespace kl::gui
