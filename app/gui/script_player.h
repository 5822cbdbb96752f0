// Scripted input for tests (--script FILE): keys and clicks fed to ImGui between the backend's
// NewFrame and ImGui::NewFrame, aimed at widgets by name (widgets.h test targets), so that a test
// drives the real window the way a reader would, without a pointer or a keyboard.
//
// One command per line; '#' starts a comment:
//   wait N             render N frames
//   wait_idle          until no job is running (at most 3000 frames)
//   key NAME           press and release: Left, Right, Escape, Space, F12, a letter, = or -;
//                      "Ctrl+" before the name holds Control (Ctrl+= zooms in)
//   click TARGET       move to the target's centre, press, release (e.g. card:gelu_fused)
//   drag TARGET DX DY  press on the target, move by (DX, DY) pixels, release
//   wheel TARGET DY    turn the mouse wheel over the target (negative: scroll down)
//   shot FILE          save a screenshot
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

namespace kl::gui {

class ScriptPlayer {
  public:
    bool load(const std::string& path, std::string* error);
    // Sets this frame's mouse and keys. `busy` says whether a job is running (for wait_idle).
    void apply(ImGuiIO& io, bool busy);
    // A screenshot the script asked for this frame (after rendering).
    bool take_screenshot(std::string* path);
    bool done() const { return next_ >= lines_.size() && phase_ == 0 && wait_ == 0; }
    const std::vector<std::string>& errors() const { return errors_; }
    const std::vector<std::string>& done_lines() const { return done_lines_; }

  private:
    std::vector<std::string> lines_;
    size_t next_ = 0;
    int wait_ = 0;
    bool waiting_idle_ = false;
    int idle_frames_ = 0;
    // A multi-frame action in progress.
    int phase_ = 0;
    std::string action_;
    int key_ = -1;
    ImVec2 from_, to_;
    ImVec2 mouse_{-FLT_MAX, -FLT_MAX};
    std::string shot_;
    std::vector<std::string> errors_, done_lines_;
};

}  // namespace kl::gui
