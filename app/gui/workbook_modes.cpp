// Lesson 0's wrong numbers in the window: when the rung's run measured a measuring mistake on
// purpose (a step's `runner = { mode = ... }`, model/run_modes.h), one callout above the plot
// puts the mistaken figure beside the runner's own, with what the mistake measured.
#include <imgui.h>

#include <cstdio>

#include "gui/widgets.h"
#include "gui/workbook.h"
#include "model/run_modes.h"

namespace kl::gui {

namespace {
std::string time_text(double ms) {
    char b[48];
    if (ms < 1.0)
        std::snprintf(b, sizeof b, "%.1f \xC2\xB5s", ms * 1000.0);
    else
        std::snprintf(b, sizeof b, "%.3g ms", ms);
    return b;
}
}  // namespace

void Workbook::draw_mode_figure(const StoredRun* run) {
    if (!run || run->record.mode.empty() || !run->record.mode_timing || !run->record.timing) return;
    const RunRecord& r = run->record;
    const RunMode mode = parse_run_mode(r.mode).value_or(RunMode::Normal);
    begin_callout("##mode_figure");
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(palette().warn));
    ImGui::Text("Measured the wrong way (%s): %s", r.mode.c_str(), time_text(r.mode_timing->median_ms).c_str());
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::Text("   the runner's figure: %s", time_text(r.timing->median_ms).c_str());
    test_target("text:mode_figure");
    const double ratio = r.mode_timing->median_ms > 0 ? r.timing->median_ms / r.mode_timing->median_ms : 0;
    ImGui::TextDisabled("%s; ratio %.2fx%s", describe_run_mode(mode).c_str(), ratio, run->live ? "" : " (recorded)");
    end_callout(palette().warn, with_alpha(palette().warn, 0.08f));
}

}  // namespace kl::gui
