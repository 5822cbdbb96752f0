// The smallest honest code editor Dear ImGui 1.86 allows: ImGui's own multi-line text input does
// the editing (caret, selection, clipboard, keys), drawn with transparent text; over it this
// widget paints the text again with the source view's colours (code_view.h), a gutter of line
// numbers and compile marks beside it, and the caret. The input is sized to hold every line, so
// it never scrolls itself: one outer child scrolls text, colours and gutter together, and they
// cannot drift apart. Undo and redo are ours (edit_text.h: ImGui forgets its undo history when the
// input loses focus), as are find's highlight and jumps to a line.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

#include "gui/edit_text.h"

namespace kl::gui {

// A compile message at a place in the text (1-based line and column).
struct EditorMark {
    int line = 0, column = 0;
    bool error = true;  // false: a warning
    std::string message;
};

class CodeEditor {
  public:
    // Replaces the text (a file opened or reloaded from disk): undo history cleared, not modified.
    void load(std::string text);
    const std::string& text() const { return state_.text; }
    bool modified() const { return state_.text != saved_; }
    void mark_saved() {
        saved_ = state_.text;
        history_.break_group();
    }
    // The caret to 1-based line and column, scrolled into view, the editor focused.
    void jump_to(int line, int column);
    // Highlights the next (or previous) match after the caret or the last match and scrolls to
    // it; false when there is none.
    bool find(const std::string& needle, bool backwards);
    void clear_find() { found_begin_ = found_end_ = -1; }
    bool undo();
    bool redo();
    bool can_undo() const { return history_.can_undo(); }
    bool can_redo() const { return history_.can_redo(); }
    bool active() const { return active_; }
    int caret_line() const;    // 1-based
    int caret_column() const;  // 1-based, in bytes
    // Draws the editor in `size`; `marks` in the gutter (hovering one shows its message). Returns
    // true when the learner changed the text this frame. `shown_marks` receives the lines of the
    // marks drawn (the report).
    bool draw(const char* id, ImVec2 size, ImFont* mono, const std::vector<EditorMark>& marks,
              std::vector<int>* shown_marks = nullptr);

  private:
    static int on_input(ImGuiInputTextCallbackData* data);
    void replace_state(TextState next);  // undo/redo: through the input when it is active
    void draw_gutter(ImDrawList* dl, ImVec2 origin, float gutter_w, int first, int last,
                     const std::vector<EditorMark>& marks, std::vector<int>* shown);
    void draw_text_layer(ImDrawList* dl, ImFont* mono, ImVec2 text_at, int first, int last);
    void draw_caret(ImDrawList* dl, ImFont* mono, ImVec2 text_at);
    void scroll_to(int offset, ImFont* mono, ImVec2 pad, float gutter_w);
    float x_of(ImFont* mono, int line, size_t offset) const;

    TextState state_;
    std::string saved_;
    EditHistory history_;
    std::vector<size_t> starts_{0};
    // Changes made while ImGui's input is active must go through its callback: it keeps its own
    // copy of the text then.
    bool push_text_ = false;
    int select_begin_ = -1, select_end_ = -1, select_frames_ = 0;
    bool focus_ = false;
    int scroll_to_ = -1;  // an offset to bring into view
    int found_begin_ = -1, found_end_ = -1;
    int sel_begin_ = 0, sel_end_ = 0;
    bool active_ = false;
    bool pushed_ = false;  // the callback replaced the text this frame (not the learner's edit)
};

}  // namespace kl::gui
