// Scripted input for tests (--script FILE): keys and clicks fed to ImGui between the backend's
// NewFrame and ImGui::NewFrame, aimed at widgets by name (widgets.h test targets), so that a test
// drives the real window the way a reader would, without a pointer or a keyboard.
//
// One command per line; '#' starts a comment:
//   wait N             render N frames
//   wait_idle          until no job is running (at most 3000 frames)
//   wait_until COND [SECONDS]
//                      until COND holds, however many frames that takes; the script fails with
//                      one line if it does not within SECONDS (default 30). COND: `job` (a job
//                      is running), `idle` (none is), `results N` (N more results have arrived
//                      since this line)
//   key NAME           press and release: Left, Right, Escape, Space, F12, a letter, = or -;
//                      "Ctrl+" before the name holds Control (Ctrl+= zooms in)
//   click TARGET       move to the target's centre, press, release (e.g. card:gelu_fused)
//   drag TARGET DX DY  press on the target, move by (DX, DY) pixels, release
//   wheel TARGET DY    turn the mouse wheel over the target (negative: scroll down)
//   shot FILE          save a screenshot
//   report FILE        write the --report JSON of this moment (what the panels show mid-script)
//   type TEXT          type the rest of the line as characters (into the focused text field)
//   key names also: Enter, Backspace, Delete, Home, End, Tab; "Shift+" holds Shift
#pragma once
#include <imgui.h>

#include <chrono>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace kl::gui {

// What the script may wait for, as the window shows it this frame.
struct ScriptView {
    bool busy = false;  // a job or an export is running (wait_idle, wait_until idle)
    bool job = false;   // a runner job is running (wait_until job)
    int results = 0;    // results received from the runner so far (wait_until results N)
};

class ScriptPlayer {
  public:
    bool load(const std::string& path, std::string* error);
    // Sets this frame's mouse and keys.
    void apply(ImGuiIO& io, const ScriptView& view);
    // A screenshot the script asked for this frame (after rendering).
    bool take_screenshot(std::string* path);
    bool take_report(std::string* path) {
        if (report_.empty()) return false;
        *path = std::exchange(report_, std::string());
        return true;
    }
    bool done() const { return next_ >= lines_.size() && phase_ == 0 && wait_ == 0; }
    const std::vector<std::string>& errors() const { return errors_; }
    const std::vector<std::string>& done_lines() const { return done_lines_; }

  private:
    using Clock = std::chrono::steady_clock;
    void run(ImGuiIO& io, const ScriptView& view, const std::string& line);
    void continue_pointer_action(ImGuiIO& io);
    void start_pointer_action(ImGuiIO& io, const std::string& cmd, std::string rest, const std::string& line);
    void start_wait_until(const ScriptView& view, std::istringstream& args, const std::string& line);
    bool condition_holds(const ScriptView& view) const;

    std::vector<std::string> lines_;
    size_t next_ = 0;
    int wait_ = 0;
    bool waiting_idle_ = false;
    int idle_frames_ = 0;
    std::string until_;  // wait_until's condition while it is waited for
    int until_results_ = 0;
    double until_timeout_s_ = 0;
    Clock::time_point until_deadline_;
    // A multi-frame action in progress.
    int phase_ = 0;
    std::string action_;
    int key_ = -1;
    ImVec2 from_, to_;
    ImVec2 mouse_{-FLT_MAX, -FLT_MAX};
    std::string shot_, report_;
    std::vector<std::string> errors_, done_lines_;
};

}  // namespace kl::gui
