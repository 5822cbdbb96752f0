#include "gui/redraw_gate.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>

#include "gui/surface.h"
#include "gui/workbook.h"

namespace kl::gui {

namespace {

// A key or a mouse button held: ImGui's key repeat and drags advance with frames.
bool input_held(const ImGuiIO& io) {
    for (bool down : io.MouseDown)
        if (down) return true;
    for (bool down : io.KeysDown)
        if (down) return true;
    return false;
}

}  // namespace

bool RedrawGate::wait_for_news(Surface& surface, Workbook& workbook, bool every_frame) {
    const ImGuiIO& io = ImGui::GetIO();
    if (surface.minimized()) {  // nothing to draw on: sleep, as ImGui's example does
        surface.wait_events(kWaitSeconds);
        surface.take_input_events();
        settle_ = kSettleFrames;  // restored: lay it out again
        return false;
    }
    const bool moving = every_frame || workbook.animating() || surface.input_pending() || input_held(io);
    if (moving || settle_ > 0) {
        auto start = std::chrono::steady_clock::now();
        surface.poll_events();
        events_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        const bool input = surface.take_input_events() > 0;
        settle_ = input || moving ? kSettleFrames : settle_ - 1;
        return true;
    }
    // Minimized or idle: sleep until an event, a wake, or the time-out.
    surface.wait_events(io.WantTextInput ? kCaretSeconds : kWaitSeconds);
    auto start = std::chrono::steady_clock::now();
    const bool input = surface.take_input_events() > 0;
    const bool news = input || workbook.has_news() || io.WantTextInput;
    events_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!news) return false;
    settle_ = kSettleFrames - 1;  // this frame is the first of them
    return true;
}

}  // namespace kl::gui
