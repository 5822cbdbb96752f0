// [SECTION] index: construction / frame and layout / keyboard and jobs (what is loaded and opened
// first: workbook_content.cpp; what is selected: workbook_selection.cpp; settings, the log and the report:
// workbook_report.cpp; the top bar, banner and status bar: workbook_chrome.cpp)
#include "gui/workbook.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "base/errors.h"
#include "base/paths.h"
#include "gui/class_window.h"
#include "gui/widgets.h"
#include "model/manifest_load.h"
#include "model/run_plan.h"

namespace kl::gui {

// [SECTION] Construction

Workbook::Workbook(AppOptions options, Settings settings, Fonts fonts)
    : options_(std::move(options)), settings_(std::move(settings)), fonts_(std::move(fonts)) {
    reveal_.current_step_only = options_.plant_reveal_leak;
    load_content();
    open_first_step();
    apply_view_option();
    if (!options_.no_runner)
        start_runner();
    else
        runner_.status = "live runs off (--no-runner)";
}

// Ladders, lessons and results, each failure logged (the navigator and the banner show them).
// [SECTION] Frame and layout

void Workbook::frame() {
    poll_recorded();
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
    draw_class_window(class_, fonts_, settings_.dark);
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
    test_target("panel:navigator");  // a script may scroll the lesson list (docs/screenshots)
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
    // The controls as the splitter left them, else what leaves the step text kStepTextShare of
    // the window's height (at most the 250 pixels they had before laptops were measured).
    const float min_controls = kMinControlsHeight * s, max_controls = std::max(min_controls, lower_h * 0.7f);
    const float automatic = lower_h - gap - kStepTextShare * ImGui::GetIO().DisplaySize.y;
    float controls_h =
        settings_.controls_height > 0 ? settings_.controls_height * s : std::clamp(automatic, min_controls, 250 * s);
    controls_h = std::clamp(controls_h, min_controls, max_controls);
    if (!rung_) controls_h = std::min(controls_h, 96 * s);  // nothing to run: give the text the room
    laid_out_.window_h = ImGui::GetIO().DisplaySize.y;
    laid_out_.step_text_h = lower_h - controls_h - gap;
    laid_out_.controls_h = controls_h;
    ImGui::SetCursorScreenPos(ImVec2(x1, y2));
    ImGui::BeginChild("##step_text", ImVec2(text_w, lower_h - controls_h - gap), true);
    draw_step_text();
    ImGui::EndChild();
    test_target("panel:step_text");
    ImGui::SetCursorScreenPos(ImVec2(x1, y2 + lower_h - controls_h - gap));
    float ch = controls_h;
    if (splitter("##split_controls", false, gap, text_w, &ch, min_controls, max_controls, -1.0f)) {
        settings_.controls_height = ch / s;
        settings_dirty_ = true;
    }
    test_target("splitter:controls");
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
        const char* names[] = {"Plots", "Source", "Self-check", "Mine", "Addresses"};
        for (int i = 0; i < 5; ++i) {
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
                else if (i == 3)
                    draw_learner();
                else
                    draw_address_view(address_view_, step(), assets_dir() + "/recorded/traces", fonts_.scale);
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
        run_sweep();
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
    else {
        if (params_ui_.sweep_axis.empty() && rung_)  // the first parameter the learner can set
            for (const auto& p : rung_->params)
                if (!p.pinned && params_ui_.sweep_axis.empty()) params_ui_.sweep_axis = p.name;
        run_sweep();
    }
    if (runner_.job) return true;
    *why_not = runner_.last_error.empty() ? "no runner or no rung" : runner_.last_error;
    return false;
}

}  // namespace kl::gui
