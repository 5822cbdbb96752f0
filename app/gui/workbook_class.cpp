// Class mode drawn (class_window.h): Submit under the step's exercise, the "Class…" button with
// its popup, and the class window: per exercise the leaderboard by share of each device's roof,
// one by time per device, the report's two figures, the submissions not ranked and the files not
// merged, each with its one-line reason.
// [SECTION] index: submit / class button / class window
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "base/printable.h"
#include "gui/class_window.h"
#include "gui/plot_imgui.h"
#include "gui/widgets.h"
#include "plot/figure_scene.h"
#include "report/class_handout.h"

namespace kl::gui {

namespace {

void copy_class_field(char* dst, size_t size, const std::string& src) { std::snprintf(dst, size, "%s", src.c_str()); }

std::string class_number(double v, int digits) {
    char b[32];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}

void class_line(ImU32 color, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

}  // namespace

// [SECTION] Submit

void draw_submit_panel(ClassView& view, const SubmitContext& ctx, Settings& settings, bool* settings_dirty) {
    if (ctx.exercise.empty() || ctx.source.empty()) return;
    const Palette& pal = palette();
    ImGui::Spacing();
    section_label("SUBMIT TO YOUR CLASS");
    const bool known = !settings.class_learner.empty() && !settings.class_key.empty();
    if (known && !view.editing_identity) {
        ImGui::TextDisabled("As %s, signed with the class key %s", printable(settings.class_learner).c_str(),
                            printable(settings.class_key).c_str());
        ImGui::SameLine();
        if (ImGui::SmallButton("Change")) view.editing_identity = true;
        test_target("button:submit_change");
    } else {
        if (!view.name[0]) copy_class_field(view.name, sizeof view.name, settings.class_learner);
        if (!view.key[0]) copy_class_field(view.key, sizeof view.key, settings.class_key);
        ImGui::SetNextItemWidth(std::min(320.0f, ImGui::GetContentRegionAvail().x));
        ImGui::InputTextWithHint("##submit_name", "your name, as the class knows it", view.name, sizeof view.name);
        test_target("field:submit_name");
        ImGui::SetNextItemWidth(std::min(480.0f, ImGui::GetContentRegionAvail().x));
        ImGui::InputTextWithHint("##submit_key", "the class key file your instructor gave you", view.key,
                                 sizeof view.key);
        test_target("field:submit_key");
    }
    const bool running = view.submit_running();
    if (primary_button(running ? "Judging\xE2\x80\xA6" : "Submit", ImVec2(0, 0), !running)) {
        if (!known || view.editing_identity) {
            settings.class_learner = view.name;
            settings.class_key = view.key;
            *settings_dirty = true;
            view.editing_identity = settings.class_learner.empty() || settings.class_key.empty();
        }
        if (settings.class_learner.empty() || settings.class_key.empty())
            view.refuse_submit("Give your name and the class key file first; nothing was judged or written.");
        else if (!ctx.gpu && !ctx.no_gpu.empty())
            view.refuse_submit("Submit judges your kernel on this machine's GPU, and there is none (" + ctx.no_gpu +
                               "); nothing was judged or written.");
        else if (ctx.modified)
            view.refuse_submit("Save your edits first (Ctrl+S): the file on disk is what is judged.");
        else
            view.start_submit(ctx.exercise, ctx.source, settings.class_learner, settings.class_key);
    }
    test_target("button:submit");
    item_tooltip("Runs `kladder submit " + ctx.exercise +
                 "` on your file: the exercise's hidden checks on this GPU, timed beside the ladder's rungs, and a "
                 "submission signed with the class key to hand in");
    const std::optional<SubmitOutcome>& o = view.submit_outcome_shown();
    if (!o) return;
    class_line(o->accepted ? pal.good : pal.bad, o->line);
    for (const auto& c : o->checks) ImGui::BulletText("%s", c.c_str());
    for (const auto& f : o->findings) ImGui::BulletText("%s", f.c_str());
}

// [SECTION] Class button

float class_button_width() {
    return ImGui::CalcTextSize("Class\xE2\x80\xA6").x + 2 * ImGui::GetStyle().FramePadding.x + 6;
}

void draw_class_button(ClassView& view, Settings& settings, bool* settings_dirty, float w) {
    if (plain_button(view.open_running() ? "Opening\xE2\x80\xA6" : "Class\xE2\x80\xA6", ImVec2(w, 0))) {
        copy_class_field(view.folder, sizeof view.folder, settings.class_folder);
        copy_class_field(view.folder_key, sizeof view.folder_key, settings.class_key);
        ImGui::OpenPopup("##class_open");
    }
    test_target("button:class");
    item_tooltip("Open a folder of your class's submissions: verified and ranked as `kladder class merge` does");
    if (!ImGui::BeginPopup("##class_open")) return;
    ImGui::TextUnformatted("Open a class folder (instructor)");
    ImGui::TextDisabled("Every *.json of the folder is verified with the class key; nothing is written.");
    ImGui::TextUnformatted("Folder of submissions");
    ImGui::SetNextItemWidth(460);
    ImGui::InputTextWithHint("##class_folder", "the folder of submissions", view.folder, sizeof view.folder);
    test_target("field:class_folder");
    ImGui::TextUnformatted("Class key file");
    ImGui::SetNextItemWidth(460);
    ImGui::InputTextWithHint("##class_key", "the class key file", view.folder_key, sizeof view.folder_key);
    test_target("field:class_key");
    if (primary_button("Open", ImVec2(0, 0), !view.open_running())) {
        settings.class_folder = view.folder;
        if (settings.class_key.empty()) settings.class_key = view.folder_key;
        *settings_dirty = true;
        view.start_open(view.folder, view.folder_key);
        ImGui::CloseCurrentPopup();
    }
    test_target("button:class_open");
    ImGui::EndPopup();
}

// [SECTION] Class window

namespace {

void entries_table(const char* id, const std::vector<const ClassEntry*>& entries, bool with_device, bool with_roof) {
    const int columns = 4 + with_device + with_roof;
    if (!ImGui::BeginTable(id, columns, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH)) return;
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("000").x);
    ImGui::TableSetupColumn("learner");
    if (with_device) ImGui::TableSetupColumn("device");
    ImGui::TableSetupColumn("median us");
    ImGui::TableSetupColumn("GB/s");
    if (with_roof) ImGui::TableSetupColumn("% of its roof");
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < entries.size(); ++i) {
        const ClassEntry& e = *entries[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%zu", i + 1);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(printable(e.sub.learner).c_str());
        if (with_device) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(printable(e.device()).c_str());
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(class_number(e.median_us, 2).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(class_number(e.gbps, 0).c_str());
        if (with_roof) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(class_number(e.pct_roof, 1).c_str());
        }
    }
    ImGui::EndTable();
}

// The report's two figures of the exercise, laid out again when the size or the theme changes.
void draw_class_figures(ClassView& view, const ClassMerge& m, const std::string& ex, const Fonts& fonts, bool dark) {
    const float w = std::floor((ImGui::GetContentRegionAvail().x - 12 * fonts.scale) / 2), h = 280 * fonts.scale;
    if (w < 120) return;
    const std::string key = ex + "|" + std::to_string(int(w)) + "|" + std::to_string(int(h)) + (dark ? "d" : "l");
    if (view.figures.built_for != key) {
        const plot::Theme theme = screen_theme(dark, fonts.scale);
        const plot::MeasureText measure = imgui_measure(fonts.plot);
        view.figures.roof = plot::render_figure(report::class_roof_figure(m, ex), w, h, measure, theme);
        view.figures.times = plot::render_figure(report::class_times_figure(m, ex), w, h, measure, theme);
        view.figures.built_for = key;
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 at = ImGui::GetCursorScreenPos();
    draw_scene(dl, view.figures.roof, at, fonts.plot);
    draw_scene(dl, view.figures.times, ImVec2(at.x + w + 12 * fonts.scale, at.y), fonts.plot);
    test_target_rect("class:figures", at, ImVec2(at.x + 2 * w, at.y + h));
    ImGui::Dummy(ImVec2(2 * w, h));
}

void draw_exercise_boards(ClassView& view, const ClassMerge& m, const std::string& ex, const Fonts& fonts, bool dark) {
    const Palette& pal = palette();
    const auto ranked = m.leaderboard(ex);
    if (ranked.empty()) {
        ImGui::TextDisabled("No accepted submission for %s.", printable(ex).c_str());
    } else {
        draw_class_figures(view, m, ex, fonts, dark);
        ImGui::Spacing();
        ImGui::PushFont(fonts.bold);
        ImGui::TextUnformatted("Ranked by the share of each learner's own device roof");
        ImGui::PopFont();
        ImGui::TextDisabled(
            "the ideal time at the device's calibrated roof over the measured time: different GPUs compare");
        entries_table("##class_roof", ranked, true, true);
        for (const auto& board : m.device_leaderboards(ex)) {
            ImGui::Spacing();
            ImGui::PushFont(fonts.bold);
            ImGui::Text("%s, by time", printable(board.device).c_str());
            ImGui::PopFont();
            entries_table(("##class_device_" + board.device).c_str(), board.ranked, false, false);
        }
    }
    const auto unranked = m.not_ranked(ex);
    if (unranked.empty()) return;
    ImGui::Spacing();
    ImGui::PushFont(fonts.bold);
    ImGui::Text("Not ranked (%zu)", unranked.size());
    ImGui::PopFont();
    for (const ClassEntry* e : unranked)
        class_line(e->refused() ? pal.bad : pal.warn, printable(e->sub.learner) + " (" + printable(e->device()) + ", " +
                                                          e->file + "): " + printable(e->status()));
}

}  // namespace

void draw_class_window(ClassView& view, const Fonts& fonts, bool dark) {
    const OpenedClass* c = view.opened();
    if (!c || !view.window_open) return;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
                            ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x * 0.86f, vp->WorkSize.y * 0.86f), ImGuiCond_Appearing);
    if (!ImGui::Begin("Class results###class_window", &view.window_open, ImGuiWindowFlags_NoCollapse)) {
        ImGui::End();
        return;
    }
    const Palette& pal = palette();
    const float close_w = ImGui::CalcTextSize("Close").x + 2 * ImGui::GetStyle().FramePadding.x;
    ImGui::TextDisabled("%s", printable(c->folder).c_str());
    ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - close_w);
    if (plain_button("Close", ImVec2(close_w, 0))) view.window_open = false;
    test_target("button:class_close");
    if (!c->error.empty()) {
        class_line(pal.bad, c->error);
        ImGui::End();
        return;
    }
    const ClassMerge& m = c->merge;
    ImGui::TextWrapped(
        "%zu submissions verified with the class key %s; %zu files not merged. Every time was measured on the "
        "learner's own GPU: the signature shows the file was made with the class key and not changed since, not "
        "that the workbook or the GPU were genuine.",
        m.entries.size(), c->key_id.c_str(), m.problems.size());
    const std::vector<std::string> exercises = m.exercises();
    for (const std::string& ex : exercises) {
        if (ImGui::RadioButton(("Exercise " + printable(ex)).c_str(), view.exercise_shown == ex))
            view.exercise_shown = ex;
        test_target("class:exercise:" + ex);
        ImGui::SameLine();
    }
    ImGui::NewLine();
    ImGui::Separator();
    ImGui::BeginChild("##class_body");
    test_target_rect(
        "class:body", ImGui::GetWindowPos(),
        ImVec2(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x, ImGui::GetWindowPos().y + ImGui::GetWindowSize().y));
    if (!view.exercise_shown.empty()) draw_exercise_boards(view, m, view.exercise_shown, fonts, dark);
    if (!m.problems.empty()) {
        ImGui::Spacing();
        ImGui::PushFont(fonts.bold);
        ImGui::Text("Files not merged (%zu)", m.problems.size());
        ImGui::PopFont();
        for (const auto& p : m.problems) class_line(pal.bad, printable(p, kMessageChars));
    }
    ImGui::EndChild();
    ImGui::End();
}

}  // namespace kl::gui
