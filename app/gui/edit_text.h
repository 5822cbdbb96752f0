// What the code editor (code_editor.h) knows about its text without a window: undo and redo as
// snapshots of the whole text (a rung file is a few kilobytes, so a snapshot per edit is cheaper
// to get right than an edit log), find, and the conversions between byte offsets and the 1-based
// lines and columns compilers report. Unit-tested headless (tests/gui/test_edit_text.cpp).
#pragma once
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace kl::gui {

struct TextState {
    std::string text;
    int cursor = 0;  // byte offset of the caret
};

// Undo and redo. Typing a word makes one undo step, not one per letter: an edit within
// `group_window` of the previous one joins its step.
class EditHistory {
  public:
    using Clock = std::chrono::steady_clock;
    explicit EditHistory(size_t limit = 500, Clock::duration group_window = std::chrono::milliseconds(800))
        : limit_(limit), group_window_(group_window) {}
    void clear() { undo_.clear(), redo_.clear(), grouping_ = false; }
    // `before` is the state the edit replaced; `now` decides whether it joins the last step.
    void record(const TextState& before, Clock::time_point now);
    // Ends the current group: the next edit starts a new undo step (the caret moved, a save).
    void break_group() { grouping_ = false; }
    // Swap `current` for the state before the last step (or after the last undone one).
    bool undo(TextState& current);
    bool redo(TextState& current);
    bool can_undo() const { return !undo_.empty(); }
    bool can_redo() const { return !redo_.empty(); }

  private:
    std::vector<TextState> undo_, redo_;
    size_t limit_;
    Clock::duration group_window_;
    bool grouping_ = false;
    Clock::time_point last_edit_{};
};

// Byte offsets where `needle` occurs in `text` (non-overlapping, case-sensitive).
std::vector<size_t> find_all(const std::string& text, const std::string& needle);
// The match after `from` (or before it, backwards), wrapping around; -1 when there is none.
long find_next(const std::string& text, const std::string& needle, size_t from, bool backwards);

// Offsets where each line starts (line_starts(t)[0] == 0).
std::vector<size_t> line_starts(const std::string& text);
// 0-based line of a byte offset.
int line_of(const std::vector<size_t>& starts, size_t offset);
// The offset of 1-based `line`, `column` (clamped to the text; column 1 is the line's start).
size_t offset_of(const std::string& text, const std::vector<size_t>& starts, int line, int column);

}  // namespace kl::gui
