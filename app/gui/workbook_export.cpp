// Export from the window: the figure on screen (SVG, PDF, PNG, CSV; format, page size, theme and
// folder chosen in a popup) and a whole lesson with its handout, written in the background with
// the same code as `kladder export-lesson` (report/lesson_export.h).
// [SECTION] index: folders and page options / figure export / lesson export
#include <imgui.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <future>

#include "base/errors.h"
#include "base/paths.h"
#include "gui/widgets.h"
#include "gui/workbook.h"
#include "model/results_json.h"
#include "plot/cairo_export.h"
#include "plot/figure_scene.h"
#include "report/figure_request.h"
#include "report/figure_withhold.h"
#include "report/handout_results.h"
#include "report/lesson_export.h"

namespace kl::gui {

namespace {

std::string home_folder(const std::string& name) {
    const char* home = std::getenv("HOME");
    return (std::filesystem::path(home && *home ? home : "/tmp") / name).string();
}

void copy_to(char* buf, size_t size, const std::string& text) { std::snprintf(buf, size, "%s", text.c_str()); }

// "~/x" -> "$HOME/x": the folder fields are typed by people.
std::string expand_home(std::string path) {
    while (!path.empty() && (path.back() == ' ' || path.back() == '/')) path.pop_back();
    if (path == "~" || path.rfind("~/", 0) == 0) path = home_folder("") + path.substr(path.size() > 1 ? 2 : 1);
    return path;
}

// The export look: print (white, for paper), or screen (the workbook's dark colours with text a
// quarter larger, for slides; `kladder export --theme screen` draws the same).
plot::ExportOptions page_options(float width_pt, float height_pt, float png_scale, int theme) {
    plot::ExportOptions o;
    o.width_pt = width_pt;
    o.height_pt = height_pt;
    o.png_scale = png_scale;
    o.theme = theme == 1 ? plot::slide_theme() : plot::print_theme();
    return o;
}

// Page size, PNG scale and theme: the same controls in both popups.
void page_controls(float* width_pt, float* height_pt, float* png_scale, int* theme, float s) {
    const char* themes[] = {"Print (white, for paper)", "Screen (dark, larger text, for slides)"};
    ImGui::SetNextItemWidth(300 * s);
    ImGui::Combo("Theme", theme, themes, 2);
    ImGui::SetNextItemWidth(90 * s);
    ImGui::InputFloat("##width", width_pt, 0, 0, "%.0f");
    *width_pt = std::clamp(*width_pt, 72.0f, 7200.0f);
    ImGui::SameLine(0, 4 * s);
    ImGui::TextUnformatted("\xC3\x97");
    ImGui::SameLine(0, 4 * s);
    ImGui::SetNextItemWidth(90 * s);
    ImGui::InputFloat("Size (pt)", height_pt, 0, 0, "%.0f");
    *height_pt = std::clamp(*height_pt, 72.0f, 7200.0f);
    item_tooltip("Page size in points (72 per inch). 468 \xC3\x97 288 is 6.5 \xC3\x97 4 in: a text column.");
    ImGui::SetNextItemWidth(90 * s);
    ImGui::InputFloat("PNG pixels per point", png_scale, 0, 0, "%.2f");
    *png_scale = std::clamp(*png_scale, 0.25f, 16.0f);
    ImGui::SameLine();
    ImGui::TextDisabled("= %.0f \xC3\x97 %.0f px, %.0f dpi", *width_pt * *png_scale, *height_pt * *png_scale,
                        72 * *png_scale);
}

}  // namespace

ResultsFile Workbook::results_snapshot() const {
    ResultsFile f;
    f.created = iso_now_utc();
    f.tool = "kernel-ladder (workbook)";
    f.command = "Export lesson";
    f.calibration = store_.calibration();
    bool live = false;
    for (const auto& run : store_.runs()) {
        f.runs.push_back(run.record);
        live = live || run.live;
    }
    if (live && runner_.device_info) f.device = runner_.device_info;  // the runner's own description of its GPU
    if (!f.device) {
        // Recorded results only: name the device when every file names the same one.
        std::string name, created;
        bool same = true;
        for (const auto& src : store_.sources()) {
            if (!name.empty() && src.device != name) same = false;
            name = src.device;
            created = std::max(created, src.created);
        }
        if (same && !name.empty()) {
            DeviceInfo d;
            d.name = name;
            f.device = d;
        }
        if (!live && !created.empty()) f.created = created;
    }
    return f;
}

void Workbook::draw_figure_export_popup() {
    const float s = fonts_.scale;
    if (!ImGui::BeginPopup("##export_figure")) return;
    if (!export_.figure_folder[0])
        copy_to(export_.figure_folder, sizeof export_.figure_folder, home_folder("kernel-ladder-figures"));
    ImGui::PushFont(fonts_.bold);
    ImGui::TextUnformatted("Export this figure");
    ImGui::PopFont();
    ImGui::TextDisabled("%s", plots_.built.figure.title.c_str());
    ImGui::Spacing();
    const char* names[] = {"SVG", "PDF", "PNG", "CSV"};
    for (int i = 0; i < 4; ++i) {
        if (i) ImGui::SameLine();
        ImGui::Checkbox(names[i], &export_.formats[i]);
    }
    ImGui::SameLine();
    ImGui::TextDisabled("(CSV: the numbers behind it)");
    page_controls(&export_.width_pt, &export_.height_pt, &export_.png_scale, &export_.theme, s);
    ImGui::SetNextItemWidth(520 * s);
    ImGui::InputText("Folder", export_.figure_folder, sizeof export_.figure_folder);
    test_target("input:export_folder");
    item_tooltip(
        "Created if missing. The results the figure was drawn from are written beside it (NAME.results.json).");
    ImGui::Spacing();
    bool any = export_.formats[0] || export_.formats[1] || export_.formats[2] || export_.formats[3];
    if (primary_button("Export", ImVec2(120 * s, 0), any)) {
        export_current_figure();
        ImGui::CloseCurrentPopup();
    }
    test_target("button:export_go");
    ImGui::SameLine();
    if (ImGui::Button("Close")) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
}

void Workbook::export_current_figure() {
    std::string dir =
        expand_home(export_.figure_folder[0] ? export_.figure_folder : home_folder("kernel-ladder-figures"));
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const plot::Figure& f = plots_.built.figure;
    std::string base = (std::filesystem::path(dir) / f.id()).string();
    plot::ExportOptions page = page_options(export_.width_pt, export_.height_pt, export_.png_scale, export_.theme);
    std::string written, failed;
    const plot::ExportFormat formats[] = {plot::ExportFormat::Svg, plot::ExportFormat::Pdf, plot::ExportFormat::Png,
                                          plot::ExportFormat::Csv};
    for (int i = 0; i < 4; ++i) {
        if (!export_.formats[i]) continue;
        std::string ext = plot::format_name(formats[i]);
        plot::WriteResult r = plot::export_figure(f, base + "." + ext, formats[i], page);
        if (r.ok())
            written += (written.empty() ? "" : ", ") + ext;
        else
            failed += (failed.empty() ? "" : "; ") + r.error;
    }
    if (failed.empty()) {
        // A figure never travels without the numbers it was drawn from (as with `kladder export`),
        // and those never give away what the figure leaves empty while a prediction waits.
        try {
            ResultsFile results = results_snapshot();
            results.command = "Export figure";
            const int left_out =
                report::withhold_results(results, [this](const RunRecord& r) { return withheld_why(r); });
            save_results(base + ".results.json", results);
            written += ", results.json";
            if (left_out) written += " (" + std::to_string(left_out) + " runs left out until predicted)";
        } catch (const Error& e) { failed = e.what(); }
    }
    plots_.export_message = failed.empty() ? "Exported " + written + " to " + base + ".*" : "Export failed: " + failed;
    log(plots_.export_message, !failed.empty());
}

// [SECTION] Export lesson

void Workbook::draw_lesson_export_popup() {
    const float s = fonts_.scale;
    poll_lesson_export();
    const Lesson* l = lesson();
    if (!ImGui::BeginPopup("##export_lesson")) return;
    if (l && export_.lesson_folder_for != l->id) {
        copy_to(export_.lesson_folder, sizeof export_.lesson_folder, home_folder("kernel-ladder-export/" + l->id));
        export_.lesson_folder_for = l->id;
    }
    ImGui::PushFont(fonts_.bold);
    ImGui::TextUnformatted("Export lesson");
    ImGui::PopFont();
    if (l) ImGui::TextDisabled("Lesson %d: %s", l->number, l->title.c_str());
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 560 * s);
    ImGui::TextWrapped(
        "Every figure the lesson's steps show (SVG, PDF, PNG), the results they were drawn from, and a handout "
        "(handout.md, handout.html, handout.pdf), drawn from the results loaded now, live runs included. "
        "Same output as `kladder export-lesson`.");
    ImGui::PopTextWrapPos();
    ImGui::Spacing();
    page_controls(&export_.width_pt, &export_.height_pt, &export_.png_scale, &export_.theme, s);
    ImGui::SetNextItemWidth(520 * s);
    ImGui::InputText("Folder", export_.lesson_folder, sizeof export_.lesson_folder);
    test_target("input:lesson_folder");
    item_tooltip(
        "Created if its parent exists (the parent is created too). Files of an earlier export there are replaced.");
    ImGui::Spacing();
    bool running = lesson_export_running();
    if (primary_button(running ? "Exporting\xE2\x80\xA6" : "Export lesson", ImVec2(160 * s, 0),
                       l && !running && export_.lesson_folder[0]))
        start_lesson_export();
    test_target("button:export_lesson_go");
    ImGui::SameLine();
    if (ImGui::Button("Close")) ImGui::CloseCurrentPopup();
    if (!export_.lesson_message.empty()) {
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + 560 * s);
        ImGui::PushStyleColor(ImGuiCol_Text,
                              ImGui::ColorConvertU32ToFloat4(export_.lesson_failed ? palette().bad : palette().good));
        ImGui::TextWrapped("%s", export_.lesson_message.c_str());
        ImGui::PopStyleColor();
        ImGui::PopTextWrapPos();
    }
    ImGui::EndPopup();
}

void Workbook::start_lesson_export() {
    const Lesson* l = lesson();
    if (!l || lesson_export_running()) return;
    std::string dir = expand_home(export_.lesson_folder);
    plot::ExportOptions page = page_options(export_.width_pt, export_.height_pt, export_.png_scale, export_.theme);
    // The shown device's runs (recorded and live), as `kladder export-lesson --results` with that
    // device's files: one device per handout, each figure dated by the runs it draws.
    std::shared_ptr<report::LoadedResults> results;
    try {
        results = std::make_shared<report::LoadedResults>(
            report::results_for_device(store_, selection_view().ctx.device, runner_.device_info));
    } catch (const Error& e) {
        export_.lesson_message = std::string("Export lesson failed: ") + e.what();
        export_.lesson_failed = true;
        log(export_.lesson_message, true);
        return;
    }
    export_.lesson_message = "Exporting lesson " + std::to_string(l->number) + " to " + dir + "\xE2\x80\xA6";
    export_.lesson_failed = false;
    log(export_.lesson_message);
    // Rendering every figure three times takes a moment: off the UI thread, on copies.
    export_.lesson_job = std::async(
        std::launch::async, [lesson = *l, ladders = ladders_, dir, page, results]() -> std::pair<bool, std::string> {
            std::pair<bool, std::string> outcome;
            try {
                std::error_code ec;
                std::filesystem::path parent = std::filesystem::path(dir).parent_path();
                if (!parent.empty()) std::filesystem::create_directories(parent, ec);
                report::LessonExportOptions options;  // the instructor edition, as `kladder export-lesson` by default
                options.page = page;
                report::LessonExportSummary sum =
                    report::export_lesson_handouts(lesson, {*results}, ladders, dir, options).front();
                std::string line = "Exported lesson " + std::to_string(lesson.number) + ": " +
                                   std::to_string(sum.figures) + " figure" + (sum.figures == 1 ? "" : "s") +
                                   " (SVG, PDF, PNG), results.json, handout.md, handout.html and handout.pdf to " + dir;
                if (!sum.skipped.empty())
                    line += "; no data for " + std::to_string(sum.skipped.size()) +
                            " step figure(s): " + sum.skipped.front();
                outcome = {true, line};
            } catch (const std::exception& e) { outcome = {false, std::string("Export lesson failed: ") + e.what()}; }
            return outcome;
        });
}

void Workbook::poll_lesson_export() {
    if (!lesson_export_running()) return;
    if (export_.lesson_job.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
    auto [ok, message] = export_.lesson_job.get();
    export_.lesson_failed = !ok;
    export_.lesson_message = message;
    runner_.status = message;
    log(message, !ok);
}

}  // namespace kl::gui
