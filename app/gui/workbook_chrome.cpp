// The window's furniture around the panels: the top bar (title, breadcrumb, export, previous /
// next, theme, help), the banner about recorded results, the status bar, the runner log window
// and the frame-time overlay (F12).
// [SECTION] index: top bar / banner / status bar / log window / frame overlay
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "base/paths.h"
#include "base/printable.h"
#include "gui/class_window.h"
#include "gui/widgets.h"
#include "gui/workbook.h"
#include "model/stopwatch_label.h"

namespace kl::gui {

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
    float buttons_w = export_w + class_button_width() + 2 * bw + 96 * s + 40 * s + 6 * ImGui::GetStyle().ItemSpacing.x;
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
    draw_class_button(class_, settings_, &settings_dirty_, class_button_width());
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

// Device names and errors come from results files: each is cut short here (the store keeps
// kDeviceNameChars of a name), so that the banner stays a line or two whatever the files hold.
constexpr size_t kBannerDeviceChars = 60, kBannerErrorChars = 240;

namespace {
// "NVIDIA H100 80GB HBM3 on 2026-11-20", or "... from 2026-11-22 to 2026-11-25" when its files
// give several dates.
std::string recorded_device_text(const ResultsStore& store, const std::string& device) {
    std::vector<std::string> dates;
    for (const auto& src : store.sources())
        if (src.device == device) dates.push_back(printable(src.created.substr(0, 10), 10));
    std::sort(dates.begin(), dates.end());
    dates.erase(std::unique(dates.begin(), dates.end()), dates.end());
    const std::string name = device.empty() ? std::string("an unnamed device") : printable(device, kBannerDeviceChars);
    if (dates.empty() || dates.front().empty()) return name + " on an unknown date";
    if (dates.size() == 1) return name + " on " + dates.front();
    return name + " from " + dates.front() + " to " + dates.back();
}
}  // namespace

// One device at a time: the banner names the recorded device the panels show (the step's
// `device`, else the first recorded) and, when several are recorded, offers the others. Folded,
// it is one line (issue 38: two lines of it cost a 1280x720 window its step text); the fold is
// remembered.
void Workbook::draw_banner() {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    laid_out_.banner_lines = 0;
    if (runner_.gpu) return;  // live runs: the device is in the status bar
    const std::vector<std::string> devices = store_.recorded_devices();
    const std::string& shown = store_.preferred_device();
    std::string why = !runner_.no_gpu_reason.empty() ? "No GPU: " + runner_.no_gpu_reason + "."
                      : !runner_.unavailable.empty() ? "Live runs unavailable: " + runner_.unavailable + "."
                      : options_.no_runner           ? "Live runs off."
                      : runner_.hello                ? ""
                                                     : "Starting the GPU runner\xE2\x80\xA6";
    std::string text;
    if (!store_.sources().empty()) {
        text = "Showing results recorded on " + recorded_device_text(store_, shown) + ".";
        std::string others;
        for (const auto& d : devices)
            if (d != shown) others += (others.empty() ? "" : "; ") + recorded_device_text(store_, d);
        if (!others.empty()) text += "  Also recorded: " + others + " (Device switches).";
        text += (why.empty() ? "" : "  ") + why;
    } else {
        text = why + (why.empty() ? "" : "  ") +
               "No recorded results are installed: the lessons read, but plots stay empty until a GPU runs them.";
    }
    for (const auto& e : results_errors_) text += "  " + printable(e, kBannerErrorChars);
    ImGui::Spacing();
    const float top = ImGui::GetCursorScreenPos().y;
    begin_callout("##banner");
    bool& folded = settings_.banner_collapsed;
    if (ImGui::SmallButton(folded ? "\xE2\x96\xB8##banner_fold" : "\xE2\x96\xBE##banner_fold")) {
        folded = !folded;
        settings_dirty_ = true;
    }
    test_target("button:banner_fold");
    item_tooltip(folded ? "Show the whole banner" : "Fold the banner to one line");
    ImGui::SameLine();
    ImGui::PushFont(fonts_.bold);
    ImGui::TextUnformatted(store_.sources().empty() ? "No results to show" : "Recorded results");
    ImGui::PopFont();
    if (devices.size() > 1) {  // the device shown, switchable
        ImGui::SameLine();
        ImGui::SetNextItemWidth(std::min(220 * s, ImGui::CalcTextSize(shown.c_str()).x + 40 * s));
        if (ImGui::BeginCombo("##banner_device", shown.c_str())) {
            for (const auto& d : devices)
                if (ImGui::Selectable(d.c_str(), d == shown)) {
                    store_.set_preferred_device(d);
                    chosen_device_ = d;
                    if (compare_device_ == d) compare_device_.clear();
                }
            ImGui::EndCombo();
        }
        test_target("combo:banner_device");
        item_tooltip("The recorded device the plots, the strip and the numbers show; one at a time");
    }
    ImGui::SameLine();
    if (folded) {  // one line: cut to the callout's inner width (its padding), never wrapped
        const float room = ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 0.6f - 8 * s;
        ImGui::PushTextWrapPos(-1.0f);
        ImGui::TextUnformatted(fit_text(fonts_.body, text, room).c_str());
        ImGui::PopTextWrapPos();
    } else {
        ImGui::TextWrapped("%s", text.c_str());
    }
    end_callout(pal.warn, with_alpha(pal.warn, 0.13f));
    laid_out_.banner_lines = (ImGui::GetCursorScreenPos().y - top) / ImGui::GetTextLineHeightWithSpacing();
}

// [SECTION] Status bar and log window

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
    draw_stopwatch_note();
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
    float rw = status_right_width();
    ImGui::SetCursorPosX(std::max(ImGui::GetCursorPosX() + 10 * s, ImGui::GetWindowContentRegionMax().x - rw));
    ImGui::TextDisabled("%s", right.c_str());
    item_tooltip("Time to build one frame (median and 99th percentile of the last frames). F12 shows the overlay.");
    ImGui::SameLine();
    draw_stopwatch_choice();
    ImGui::SameLine();
    if (ImGui::SmallButton("Log")) show_log_ = !show_log_;
    ImGui::PopFont();
}

// [stopwatch] Why the runner cannot time with the stopwatch asked for, in the warning colour after
// the status for as long as that runner runs (the status itself moves on to each job).
void Workbook::draw_stopwatch_note() {
    if (runner_.stopwatch_note.empty()) return;
    const float room = ImGui::GetContentRegionAvail().x - status_right_width() - 20 * fonts_.scale;
    if (room <= 0) return;
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(palette().warn), "%s",
                       fit_text(fonts_.small, "stopwatch: " + runner_.stopwatch_note, room).c_str());
    item_tooltip("stopwatch: " + runner_.stopwatch_note);
    ImGui::SameLine();
}

// The status bar's right side: the frame time, the stopwatch choice and Log.
float Workbook::status_right_width() const {
    return ImGui::CalcTextSize(status_frame_text_.c_str()).x + stopwatch_choice_width() + 80 * fonts_.scale;
}

// [stopwatch] The choice's width: its longest label, the arrow and the frame's padding.
float Workbook::stopwatch_choice_width() const {
    return ImGui::CalcTextSize("stopwatch: GPU span (CUPTI)").x + ImGui::GetFrameHeight() +
           2 * ImGui::GetStyle().FramePadding.x;
}

// [stopwatch] Which stopwatch the runner times with (gpu/span_stopwatch.h): it reads KL_STOPWATCH once,
// for its whole process (the calibration's ceilings too), so a change starts a fresh runner.
void Workbook::draw_stopwatch_choice() {
    const bool busy = runner_.job.has_value();
    ImGui::SetNextItemWidth(stopwatch_choice_width());
    ImGui::BeginDisabled(busy);
    const std::string shown = "stopwatch: " + stopwatch_label(settings_.stopwatch);
    if (ImGui::BeginCombo("##stopwatch", shown.c_str())) {
        for (const char* name : {kStopwatchEvents, kStopwatchSpan}) {
            const bool picked = ImGui::Selectable(stopwatch_label(name).c_str(), settings_.stopwatch == name);
            test_target(std::string("stopwatch:") + name);
            if (!picked || settings_.stopwatch == name) continue;
            settings_.stopwatch = name;
            settings_dirty_ = true;
            log(std::string("stopwatch: ") + stopwatch_label(name) + " for the next runs");
            if (runner_.client) {  // a fresh runner with the new KL_STOPWATCH
                runner_.client.reset();
                runner_.hello = runner_.gpu = false;
                start_runner();
            }
        }
        ImGui::EndCombo();
    }
    ImGui::EndDisabled();
    test_target("combo:stopwatch");
    item_tooltip(
        "The stopwatch of the runs this window starts. CUDA events (the default) time from the host's view of the "
        "stream and include the launch's front end, about a microsecond a repetition; the GPU span (CUPTI) times "
        "from the first kernel's start to the last one's end on the GPU's own clock. Figures of the two are not "
        "comparable: each result names its stopwatch (docs/tuning/timing.md)." +
        (runner_.stopwatch_note.empty() ? std::string() : "\n\nThe runner: " + runner_.stopwatch_note) +
        (busy ? "\n\nChanged when no run is going on." : ""));
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

// [SECTION] Frame overlay

// The frame-time overlay (F12): every stage of the frame, so a slow interval can be blamed (docs/gui.md).
void Workbook::draw_frame_overlay() {
    ImGuiIO& io = ImGui::GetIO();
    const float s = fonts_.scale;
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - 16 * s, io.DisplaySize.y - 40 * s), ImGuiCond_Always,
                            ImVec2(1, 1));
    ImGui::SetNextWindowBgAlpha(0.96f);
    ImGui::Begin("##frame_overlay", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
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

}  // namespace kl::gui
