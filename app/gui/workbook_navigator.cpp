// The navigator: every lesson with its steps and the reader's progress; lessons that failed to
// load are listed as error entries with their message, and the rest of the workbook works.
#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/paths.h"
#include "gui/widgets.h"
#include "gui/workbook.h"

namespace kl::gui {

namespace {

// A thin progress bar under a lesson title.
void progress_line(float fraction, ImU32 fill, ImU32 track, float height) {
    ImVec2 p = ImGui::GetCursorScreenPos();
    float w = ImGui::GetContentRegionAvail().x;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, ImVec2(p.x + w, p.y + height), track, height);
    if (fraction > 0) dl->AddRectFilled(p, ImVec2(p.x + w * std::min(1.0f, fraction), p.y + height), fill, height);
    ImGui::Dummy(ImVec2(w, height));
}

// One callout per file that could not be loaded. Messages are cut at 400 characters: a
// hostile file must not fill the panel.
void draw_load_problems(const Palette& pal, const Fonts& fonts, const std::vector<LessonLoadError>& lesson_errors,
                        const std::vector<std::string>& ladder_errors, const std::vector<std::string>& results_errors) {
    if (lesson_errors.empty() && ladder_errors.empty() && results_errors.empty()) return;
    section_label("COULD NOT LOAD");
    ImGui::Spacing();
    auto error_entry = [&](const std::string& name, const std::string& message) {
        begin_callout(name.c_str());
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.bad));
        ImGui::PushFont(fonts.bold);
        ImGui::TextUnformatted(("\xE2\x9A\xA0 " + name).c_str());
        ImGui::PopFont();
        ImGui::PopStyleColor();
        ImGui::PushFont(fonts.small);
        std::string shown = message.size() > 400 ? message.substr(0, 400) + "..." : message;
        ImGui::TextWrapped("%s", shown.c_str());
        ImGui::PopFont();
        end_callout(pal.bad, with_alpha(pal.bad, 0.10f));
    };
    // Ladders first: a lesson that names a ladder whose manifest failed fails because of it.
    for (const auto& e : ladder_errors) {
        // "<path>/kernels/<ladder>/ladder.toml:13: ..." -> "ladder <ladder>"
        std::string name = "ladder";
        size_t k = e.find("/kernels/");
        if (k != std::string::npos) name = "ladder " + e.substr(k + 9, e.find('/', k + 9) - (k + 9));
        error_entry(name, e);
    }
    for (const auto& e : lesson_errors) error_entry(e.folder.substr(e.folder.find_last_of('/') + 1), e.message);
    for (const auto& e : results_errors) {
        // "<path>/x.json: runs[0].timing: ..." -> "results x.json"
        std::string file = e.substr(0, e.find(": "));
        error_entry("results " + file.substr(file.find_last_of('/') + 1), e);
    }
    ImGui::Spacing();
}

}  // namespace

void Workbook::draw_navigator() {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    // What failed to load comes first, where it is seen at once: one bad lesson folder, ladder
    // manifest or results file is named with its message, and the rest of the workbook works.
    draw_load_problems(pal, fonts_, lesson_errors_, ladder_errors_, results_errors_);
    section_label("LESSONS");
    ImGui::Spacing();

    for (int li = 0; li < int(lessons_.size()); ++li) {
        const Lesson& l = lessons_[li];
        // The appendix apart, under its own label: its live steps need a newer GPU than the core's.
        if (l.appendix() && (li == 0 || !lessons_[li - 1].appendix())) {
            ImGui::Spacing();
            section_label("APPENDIX");
            ImGui::Spacing();
        }
        ImGui::PushID(li);
        bool current = li == lesson_;
        auto pit = settings_.progress.find(l.id);
        int visited = pit == settings_.progress.end() ? 0 : int(pit->second.visited_steps.size());
        int answered = pit == settings_.progress.end() ? 0 : int(pit->second.answers.size());
        int steps = int(l.steps.size());

        // Lesson header: number badge, title; clicking opens it.
        ImVec2 start = ImGui::GetCursorScreenPos();
        float w = ImGui::GetContentRegionAvail().x;
        ImGui::PushStyleColor(ImGuiCol_Header, ImGui::ColorConvertU32ToFloat4(current ? pal.highlight : 0));
        std::string label = "##lesson";
        float title_h = ImGui::GetFontSize() * 2.6f;
        if (ImGui::Selectable(label.c_str(), current, ImGuiSelectableFlags_None, ImVec2(w, title_h))) {
            if (!current) select_lesson(li, 0);
        }
        test_target("lesson:" + l.id);
        ImGui::PopStyleColor();
        item_tooltip(l.summary);
        ImDrawList* dl = ImGui::GetWindowDrawList();
        float badge = ImGui::GetFontSize() * 1.55f;
        ImVec2 bc(start.x + badge * 0.5f + 4 * s, start.y + title_h * 0.5f);
        dl->AddCircleFilled(bc, badge * 0.5f, current ? pal.accent : pal.panel_alt, 24);
        dl->AddCircle(bc, badge * 0.5f, current ? pal.accent : pal.border, 24, 1.0f);
        std::string num = std::to_string(l.number);
        ImVec2 ns = ImGui::CalcTextSize(num.c_str());
        dl->AddText(fonts_.bold, fonts_.bold->FontSize, ImVec2(bc.x - ns.x * 0.5f, bc.y - ns.y * 0.5f),
                    current ? IM_COL32_WHITE : pal.text, num.c_str());
        float tx = start.x + badge + 12 * s;
        ImFont* tf = current ? fonts_.bold : fonts_.body;
        float max_w = start.x + w - tx - 4 * s;
        std::string title = fit_text(tf, l.title, max_w);
        dl->AddText(tf, tf->FontSize, ImVec2(tx, start.y + title_h * 0.5f - ImGui::GetFontSize() * 0.95f), pal.text,
                    title.c_str());
        std::string sub = std::to_string(visited) + " of " + std::to_string(steps) + " steps";
        if (l.appendix()) sub = "appendix, needs " + l.needs + " \xC2\xB7 " + sub;
        if (!l.checks.empty())
            sub += " \xC2\xB7 " + std::to_string(answered) + "/" + std::to_string(l.checks.size()) + " checks";
        dl->AddText(fonts_.small, fonts_.small->FontSize,
                    ImVec2(tx, start.y + title_h * 0.5f + ImGui::GetFontSize() * 0.12f), pal.muted, sub.c_str());

        ImGui::SetCursorScreenPos(ImVec2(tx, ImGui::GetCursorScreenPos().y));
        progress_line(steps ? float(visited) / float(steps) : 0.0f, pal.good, pal.panel_alt, 3 * s);

        if (current) draw_navigator_steps(l, w, badge);
        ImGui::Dummy(ImVec2(0, 6 * s));
        ImGui::PopID();
    }

    if (lessons_.empty() && lesson_errors_.empty()) {
        ImGui::TextWrapped("No lessons found under %s.", lessons_dir().c_str());
    }
}

// The current lesson's steps under its header: a dot (here, seen, not yet), the number and title,
// and whether this GPU can run the step live.
void Workbook::draw_navigator_steps(const Lesson& l, float w, float badge) {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    const int li = lesson_;
    const int steps = int(l.steps.size());
    auto pit = settings_.progress.find(l.id);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImGui::Spacing();
    for (int si = 0; si < steps; ++si) {
        const LessonStep& st = l.steps[si];
        ImGui::PushID(si);
        bool here = si == step_;
        bool seen = pit != settings_.progress.end() && pit->second.visited_steps.count(si);
        ImVec2 p = ImGui::GetCursorScreenPos();
        float indent = badge * 0.5f + 4 * s;
        ImGui::SetCursorScreenPos(ImVec2(p.x + indent, p.y));
        std::string item = "##step";
        ImGui::PushStyleColor(ImGuiCol_Header, ImGui::ColorConvertU32ToFloat4(pal.accent_soft));
        if (ImGui::Selectable(item.c_str(), here, 0, ImVec2(w - indent, ImGui::GetFontSize() * 1.45f)))
            select_lesson(li, si);
        test_target("step:" + std::to_string(si + 1));
        ImGui::PopStyleColor();
        // Whether the learner's GPU can run the step live (a rung for a newer GPU cannot).
        std::string recorded_only;
        if (!st.rung.empty())
            if (const Ladder* sl = find_ladder(st.ladder))
                if (const Rung* sr = sl->find_rung(st.rung)) recorded_only = arch_refusal_here(*sr);
        if (!st.rung.empty())
            item_tooltip(st.title + "\nruns " + st.ladder + " / " + st.rung +
                         (recorded_only.empty()
                              ? ""
                              : "\nRecorded results only on this GPU (" + runner_.device_arch + "): " + recorded_only));
        ImVec2 a = ImGui::GetItemRectMin();
        float cy = a.y + ImGui::GetItemRectSize().y * 0.5f;
        float r = ImGui::GetFontSize() * 0.26f;
        ImVec2 c(a.x + r + 6 * s, cy);
        if (here)
            dl->AddCircleFilled(c, r, pal.accent, 12);
        else if (seen)
            dl->AddCircleFilled(c, r, pal.good, 12);
        else
            dl->AddCircle(c, r, pal.faint, 12, 1.5f);
        std::string text =
            std::to_string(si + 1) + "  " + st.title + (recorded_only.empty() ? "" : "  (recorded only)");
        ImFont* f = here ? fonts_.bold : fonts_.body;
        float avail_w = w - indent - 2 * r - 18 * s;
        std::string shown = fit_text(f, text, avail_w);
        dl->AddText(f, f->FontSize, ImVec2(c.x + r + 8 * s, cy - ImGui::GetFontSize() * 0.5f),
                    here ? pal.text : pal.muted, shown.c_str());
        ImGui::PopID();
    }
}

}  // namespace kl::gui
