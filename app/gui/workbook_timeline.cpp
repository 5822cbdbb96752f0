// A rung's kernels on a timeline in the window: the traced repetition's kernels (CUPTI start and
// end, model/timeline.h) as boxes on one lane with the gaps between them, the kernels' summed
// time beside the event time, and the SM clock around the timing (flagged when it dropped).
// Shown above the plot when the rung's run carries them.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "course/bound_kernels.h"
#include "gui/widgets.h"
#include "gui/workbook.h"
#include "model/timing_notes.h"

namespace kl::gui {

namespace {

std::string us_text(double us) {
    char b[48];
    if (us < 1000)
        std::snprintf(b, sizeof b, "%.2f \xC2\xB5s", us);
    else
        std::snprintf(b, sizeof b, "%.3g ms", us / 1000);
    return b;
}

void draw_clock_line(const ClockReport& c, const std::optional<TimingStats>& sustained) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(c.throttled ? palette().bad : palette().muted));
    ImGui::Text("SM clock %.0f MHz before timing, %.0f after (rated %.0f)%s", c.before_mhz, c.after_mhz, c.rated_mhz,
                c.throttled ? ": THROTTLED, the times are slower than this GPU can run" : "");
    ImGui::PopStyleColor();
    item_tooltip(
        "Measured by a probe kernel (clock64 cycles over the GPU's nanosecond timer) right before and after "
        "the timed repetitions. Flagged below 75% of the rated clock or 10% below the clock before timing, "
        "as nvbench does.");
    if (c.sampled_reps == 0) return;  // recorded before the clock was sampled through the repetitions
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().muted), "%s", clock_during_note(c, sustained).c_str());
    item_tooltip(
        "The stopwatch's hold, the short wait queued before each timed repetition, counts SM cycles over "
        "nanoseconds: the clock right before that repetition. A repetition below 98% of the rated clock is slow. "
        "Sustained is the median of all repetitions (the figure everywhere else); burst, the median of the "
        "repetitions at full clock, when there are at least five.");
}

// A few kernels are listed under the lane by name (as lessons bind them, course/bound_kernels.h),
// with their own time and the gap before each: what a narrow box shows only on hover.
void draw_kernel_list(const Timeline& t, ImFont* small) {
    constexpr size_t kListedAtMost = 6;
    if (t.kernels.size() > kListedAtMost) return;
    ImGui::PushFont(small);
    double prev_end = 0;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
        const KernelSpan& k = t.kernels[i];
        const std::string gap = i == 0 ? std::string() : ", " + us_text(k.start_us - prev_end) + " after the previous";
        ImGui::TextDisabled("%zu  %s  %s%s", i + 1, short_kernel_name(k.name).c_str(), us_text(k.duration_us()).c_str(),
                            gap.c_str());
        prev_end = std::max(prev_end, k.end_us);
    }
    ImGui::PopFont();
}

}  // namespace

void Workbook::draw_run_timeline(const StoredRun* run) {
    if (!run) return;
    const RunRecord& r = run->record;
    if (r.clock) draw_clock_line(*r.clock, r.timing);
    if (!r.timeline || r.timeline->kernels.empty()) {
        // A rung of several kernels whose shown run was not traced: said, not left blank (and
        // never another device's trace in its place).
        if (rung_ && rung_->id == r.rung && rung_->launches.size() > 1 && !run->live)
            ImGui::TextDisabled("Kernels' timeline: not recorded for this device (this run was not traced)");
        return;
    }
    const Timeline& t = *r.timeline;
    ImGui::Text("%d kernels: their own time %s, events %s; span %s, gaps %s", t.launches,
                us_text(t.kernel_sum_ms * 1e3).c_str(), us_text(t.event_ms * 1e3).c_str(),
                us_text(t.span_ms * 1e3).c_str(), us_text(t.gap_ms * 1e3).c_str());
    item_tooltip(
        "One repetition traced after timing with CUPTI's activity records (the profiler's clock). The events "
        "bracket the same repetition; the gaps are time between kernels when none ran.");
    test_target("text:timeline");
    const float s = fonts_.scale;
    const float width = ImGui::GetContentRegionAvail().x, height = std::max(22 * s, ImGui::GetTextLineHeight() + 6 * s);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, ImVec2(p.x + width, p.y + height), palette().panel_alt);
    const double span_us = std::max(t.span_ms * 1e3, 1e-3);
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const KernelSpan* hovered = nullptr;
    for (size_t i = 0; i < t.kernels.size(); ++i) {
        const KernelSpan& k = t.kernels[i];
        const float x0 = p.x + float(k.start_us / span_us) * width;
        const float x1 = std::max(x0 + 1.0f, p.x + float(k.end_us / span_us) * width);
        const ImU32 fill = i % 2 ? palette().accent : mix(palette().accent, palette().text, 0.25f);
        dl->AddRectFilled(ImVec2(x0, p.y + 2 * s), ImVec2(x1, p.y + height - 2 * s), fill);
        if (x1 - x0 > 24 * s) {  // its name inside the box, cut at the box's edge
            dl->PushClipRect(ImVec2(x0 + 3 * s, p.y), ImVec2(x1 - 3 * s, p.y + height), true);
            dl->AddText(ImVec2(x0 + 4 * s, p.y + (height - ImGui::GetTextLineHeight()) / 2), palette().panel,
                        short_kernel_name(k.name).c_str());
            dl->PopClipRect();
        }
        if (mouse.x >= x0 && mouse.x <= x1 && mouse.y >= p.y && mouse.y <= p.y + height) hovered = &k;
    }
    ImGui::Dummy(ImVec2(width, height));
    if (hovered)
        ImGui::SetTooltip("%s\nstart %s, end %s, %s", hovered->name.c_str(), us_text(hovered->start_us).c_str(),
                          us_text(hovered->end_us).c_str(), us_text(hovered->duration_us()).c_str());
    if (int(t.kernels.size()) < t.launches)
        ImGui::TextDisabled("first %zu of %d kernels drawn", t.kernels.size(), t.launches);
    // The list only where it leaves the plot its room (at 1280 x 720 the names are in the boxes).
    const float list_h = float(t.kernels.size()) * ImGui::GetTextLineHeightWithSpacing();
    if (ImGui::GetContentRegionAvail().y - list_h > 320 * s) draw_kernel_list(t, fonts_.small);
}

}  // namespace kl::gui
