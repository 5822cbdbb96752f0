// Idle means no redraws (issue 38): when nothing moves, the main loop sleeps in
// Surface::wait_events and draws a frame only when something new came: input, a runner event
// (the runner's thread wakes the wait, gui/wake.h), or the learner's rung changed on disk. After
// news it draws a few frames more, since ImGui settles hover, popups and sizes over two frames.
// It draws every frame while something moves: a job, an export, a compile, PTX being made, a
// key or button held, key events still queued (a short tap, surface.h). Tests that drive the
// window frame by frame (screenshots, scripts, --run) and --headless (it times frames) draw
// every frame. docs/gui.md ("Idle") has the measurements.
#pragma once

namespace kl::gui {

class Surface;
class Workbook;

class RedrawGate {
  public:
    static constexpr int kSettleFrames = 3;
    // How long one wait lasts before the loop looks for news that wakes nothing (the learner's
    // file, looked at once a second), and how often a text field's caret blinks.
    static constexpr double kWaitSeconds = 0.25, kCaretSeconds = 0.5;

    // Handles the window's events, waiting for some when nothing moves. True when a frame is
    // to be drawn now; false after a wait that brought nothing new.
    bool wait_for_news(Surface& surface, Workbook& workbook, bool every_frame);
    double events_ms() const { return events_ms_; }  // time spent handling events (not waiting)

  private:
    int settle_ = 2 * kSettleFrames;  // the first frames lay the window out
    double events_ms_ = 0;
};

}  // namespace kl::gui
