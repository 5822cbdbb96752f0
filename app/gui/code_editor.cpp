#include "gui/code_editor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "gui/code_view.h"
#include "gui/ui_style.h"
#include "gui/widgets.h"

namespace kl::gui {

void CodeEditor::load(std::string text) {
    state_.text = std::move(text);
    state_.cursor = std::min(state_.cursor, int(state_.text.size()));
    saved_ = state_.text;
    starts_ = line_starts(state_.text);
    history_.clear();
    push_text_ = true;
    found_begin_ = found_end_ = -1;
}

void CodeEditor::jump_to(int line, int column) {
    int at = int(offset_of(state_.text, starts_, line, column));
    state_.cursor = at;
    select_begin_ = select_end_ = at;
    select_frames_ = 4;
    focus_ = true;
    scroll_to_ = at;
    history_.break_group();
}

bool CodeEditor::find(const std::string& needle, bool backwards) {
    size_t from = size_t(found_begin_ >= 0 ? found_begin_ : backwards ? sel_begin_ : std::max(0, sel_begin_ - 1));
    long at = find_next(state_.text, needle, from, backwards);
    if (at < 0) {
        found_begin_ = found_end_ = -1;
        return false;
    }
    found_begin_ = int(at);
    found_end_ = int(at + long(needle.size()));
    scroll_to_ = found_begin_;
    // The caret follows, so that the learner can type there once they click into the text.
    select_begin_ = found_begin_;
    select_end_ = found_end_;
    select_frames_ = 4;
    return true;
}

void CodeEditor::replace_state(TextState next) {
    state_ = std::move(next);
    starts_ = line_starts(state_.text);
    push_text_ = true;
    select_begin_ = select_end_ = state_.cursor;
    select_frames_ = 4;
    scroll_to_ = state_.cursor;
}

bool CodeEditor::undo() {
    TextState s = state_;
    if (!history_.undo(s)) return false;
    replace_state(std::move(s));
    return true;
}

bool CodeEditor::redo() {
    TextState s = state_;
    if (!history_.redo(s)) return false;
    replace_state(std::move(s));
    return true;
}

int CodeEditor::caret_line() const { return line_of(starts_, size_t(state_.cursor)) + 1; }

int CodeEditor::caret_column() const { return state_.cursor - int(starts_[size_t(caret_line() - 1)]) + 1; }

// Keeps the std::string and ImGui's buffer one (as imgui_stdlib does), applies what was asked
// while the input is active, and reads the caret and selection back.
int CodeEditor::on_input(ImGuiInputTextCallbackData* data) {
    auto* self = static_cast<CodeEditor*>(data->UserData);
    if (data->EventFlag == ImGuiInputTextFlags_CallbackResize) {
        self->state_.text.resize(size_t(data->BufTextLen));
        data->Buf = self->state_.text.data();
        return 0;
    }
    if (self->push_text_) {
        data->DeleteChars(0, data->BufTextLen);
        data->InsertChars(0, self->state_.text.c_str(), self->state_.text.c_str() + self->state_.text.size());
        self->push_text_ = false;
        self->pushed_ = true;
    }
    if (self->select_frames_ > 0) {
        int n = data->BufTextLen;
        data->SelectionStart = std::clamp(self->select_begin_, 0, n);
        data->SelectionEnd = data->CursorPos = std::clamp(self->select_end_, 0, n);
        self->select_frames_ = 0;
    }
    self->state_.cursor = data->CursorPos;
    self->sel_begin_ = std::min(data->SelectionStart, data->SelectionEnd);
    self->sel_end_ = std::max(data->SelectionStart, data->SelectionEnd);
    return 0;
}

float CodeEditor::x_of(ImFont* mono, int line, size_t offset) const {
    const char* b = state_.text.c_str() + starts_[size_t(line)];
    const char* e = state_.text.c_str() + std::min(offset, state_.text.size());
    return e > b ? mono->CalcTextSizeA(mono->FontSize, FLT_MAX, 0, b, e).x : 0;
}

void CodeEditor::draw_gutter(ImDrawList* dl, ImVec2 origin, float gutter_w, int first, int last,
                             const std::vector<EditorMark>& marks, std::vector<int>* shown) {
    const Palette& pal = palette();
    float lh = ImGui::GetFontSize();
    float pad_y = ImGui::GetStyle().FramePadding.y;
    float mark_w = lh;
    for (int i = first; i < last; ++i) {
        ImVec2 p(origin.x, origin.y + pad_y + float(i) * lh);
        char num[16];
        std::snprintf(num, sizeof num, "%4d", i + 1);
        dl->AddText(ImVec2(p.x + mark_w, p.y), pal.faint, num);
    }
    for (const EditorMark& m : marks) {
        int i = m.line - 1;
        if (i < first || i >= last) continue;
        if (shown) shown->push_back(m.line);
        ImVec2 p(origin.x + 2, origin.y + pad_y + float(i) * lh);
        ImVec2 q(p.x + mark_w - 4, p.y + lh - 2);
        // An error is a filled square with a cross, a warning an outlined triangle: told apart in
        // print and without colour.
        if (m.error) {
            dl->AddRectFilled(ImVec2(p.x, p.y + 1), q, pal.bad, 2);
            dl->AddLine(ImVec2(p.x + 3, p.y + 4), ImVec2(q.x - 3, q.y - 3), IM_COL32_WHITE, 1.5f);
            dl->AddLine(ImVec2(q.x - 3, p.y + 4), ImVec2(p.x + 3, q.y - 3), IM_COL32_WHITE, 1.5f);
        } else {
            dl->AddTriangle(ImVec2((p.x + q.x) * 0.5f, p.y + 1), ImVec2(q.x, q.y), ImVec2(p.x, q.y), pal.warn, 1.5f);
        }
        ImVec2 row_b(origin.x + gutter_w, p.y + lh);
        if (ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows) && ImGui::IsMouseHoveringRect(p, row_b)) {
            ImGui::BeginTooltip();
            ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40.0f);
            ImGui::Text("line %d, column %d: %s", m.line, m.column, m.message.c_str());
            ImGui::PopTextWrapPos();
            ImGui::EndTooltip();
        }
    }
}

// The text again, coloured, where ImGui drew it transparent; find's match and the marked columns
// underneath. Block comments carry from line to line, so the lexer runs from the top.
void CodeEditor::draw_text_layer(ImDrawList* dl, ImFont* mono, ImVec2 text_at, int first, int last) {
    float lh = ImGui::GetFontSize();
    LexState st;
    for (int i = 0; i < first; ++i) {
        size_t b = starts_[size_t(i)],
               e = size_t(i + 1) < starts_.size() ? starts_[size_t(i + 1)] - 1 : state_.text.size();
        std::string line = state_.text.substr(b, e - b);
        if (st.in_block_comment || line.find("/*") != std::string::npos) tokenize_line(line, Language::Cuda, st);
    }
    if (found_begin_ >= 0 && found_end_ <= int(state_.text.size())) {
        int l = line_of(starts_, size_t(found_begin_));
        float y = text_at.y + float(l) * lh;
        float x0 = text_at.x + x_of(mono, l, size_t(found_begin_)), x1 = text_at.x + x_of(mono, l, size_t(found_end_));
        dl->AddRectFilled(ImVec2(x0 - 1, y), ImVec2(x1 + 1, y + lh), with_alpha(palette().warn, 0.35f), 2);
        dl->AddRect(ImVec2(x0 - 1, y), ImVec2(x1 + 1, y + lh), palette().warn, 2);
    }
    for (int i = first; i < last; ++i) {
        size_t b = starts_[size_t(i)],
               e = size_t(i + 1) < starts_.size() ? starts_[size_t(i + 1)] - 1 : state_.text.size();
        draw_code_line(dl, mono, ImVec2(text_at.x, text_at.y + float(i) * lh), state_.text.substr(b, e - b),
                       Language::Cuda, st);
    }
}

void CodeEditor::draw_caret(ImDrawList* dl, ImFont* mono, ImVec2 text_at) {
    int l = caret_line() - 1;
    float lh = ImGui::GetFontSize();
    float x = text_at.x + x_of(mono, l, size_t(state_.cursor));
    float y = text_at.y + float(l) * lh;
    // Blinks like ImGui's own caret; solid while the learner types or moves it.
    if (std::fmod(ImGui::GetTime(), 1.2) < 0.8 || ImGui::GetIO().InputQueueCharacters.Size > 0)
        dl->AddLine(ImVec2(x, y), ImVec2(x, y + lh - 1), palette().text, 1.5f);
}

void CodeEditor::scroll_to(int offset, ImFont* mono, ImVec2 pad, float gutter_w) {
    int l = line_of(starts_, size_t(std::max(0, offset)));
    float lh = ImGui::GetFontSize();
    float y = pad.y + float(l) * lh, x = gutter_w + pad.x + x_of(mono, l, size_t(offset));
    float view_h = ImGui::GetWindowHeight() - ImGui::GetStyle().ScrollbarSize;
    float view_w = ImGui::GetWindowWidth() - ImGui::GetStyle().ScrollbarSize;
    if (y < ImGui::GetScrollY() + lh) ImGui::SetScrollY(std::max(0.0f, y - 3 * lh));
    if (y + 2 * lh > ImGui::GetScrollY() + view_h) ImGui::SetScrollY(y + 4 * lh - view_h);
    if (x < ImGui::GetScrollX() + gutter_w) ImGui::SetScrollX(std::max(0.0f, x - gutter_w - 8 * lh));
    if (x + lh > ImGui::GetScrollX() + view_w) ImGui::SetScrollX(x + 8 * lh - view_w);
}

bool CodeEditor::draw(const char* id, ImVec2 size, ImFont* mono, const std::vector<EditorMark>& marks,
                      std::vector<int>* shown_marks) {
    const Palette& pal = palette();
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImGui::ColorConvertU32ToFloat4(pal.code_bg));
    ImGui::BeginChild(id, size, true, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::PushFont(mono);
    const ImGuiStyle& style = ImGui::GetStyle();
    ImVec2 pad = style.FramePadding;
    float lh = ImGui::GetFontSize();
    float char_w = mono->CalcTextSizeA(mono->FontSize, FLT_MAX, 0, "M").x;
    float gutter_w = lh + 4 * char_w + 4;
    size_t widest = 0;
    for (size_t i = 0; i < starts_.size(); ++i)
        widest = std::max(widest, (i + 1 < starts_.size() ? starts_[i + 1] - 1 : state_.text.size()) - starts_[i]);
    ImVec2 avail = ImGui::GetContentRegionAvail();
    ImVec2 input_size(std::max(avail.x - gutter_w, float(widest + 8) * char_w + 2 * pad.x),
                      std::max(avail.y, float(starts_.size() + 2) * lh + 2 * pad.y));
    ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    int first = std::max(0, int((ImGui::GetScrollY() - pad.y) / lh) - 1);
    int last = std::min(int(starts_.size()), first + int(ImGui::GetWindowHeight() / lh) + 3);
    for (const EditorMark& m : marks)  // the marked lines tinted under the text
        if (m.line - 1 >= first && m.line - 1 < last)
            dl->AddRectFilled(ImVec2(origin.x + gutter_w, origin.y + pad.y + float(m.line - 1) * lh),
                              ImVec2(origin.x + gutter_w + input_size.x, origin.y + pad.y + float(m.line) * lh),
                              with_alpha(m.error ? pal.bad : pal.warn, 0.14f));
    draw_gutter(dl, origin, gutter_w, first, last, marks, shown_marks);

    ImGui::SetCursorScreenPos(ImVec2(origin.x + gutter_w, origin.y));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0, 0, 0, 0));
    ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0, 0, 0, 0));
    if (focus_) ImGui::SetKeyboardFocusHere();
    focus_ = false;
    TextState before = state_;
    pushed_ = false;
    ImGuiInputTextFlags flags = ImGuiInputTextFlags_AllowTabInput | ImGuiInputTextFlags_CallbackResize |
                                ImGuiInputTextFlags_CallbackAlways | ImGuiInputTextFlags_NoUndoRedo |
                                ImGuiInputTextFlags_NoHorizontalScroll;
    bool changed = ImGui::InputTextMultiline("##text", state_.text.data(), state_.text.capacity() + 1, input_size,
                                             flags, &CodeEditor::on_input, this);
    active_ = ImGui::IsItemActive();
    test_target("editor:text");
    ImGui::PopStyleColor(2);
    push_text_ = false;  // not active: ImGui read the string itself
    if (select_frames_ > 0) --select_frames_;
    changed = changed && state_.text != before.text && !pushed_;
    if (changed || pushed_) starts_ = line_starts(state_.text);
    if (changed) {
        history_.record(before, EditHistory::Clock::now());
        found_begin_ = found_end_ = -1;
    }
    if (state_.cursor != before.cursor && active_) scroll_to_ = state_.cursor;
    if (!changed && state_.cursor != before.cursor) history_.break_group();

    ImVec2 text_at(origin.x + gutter_w + pad.x, origin.y + pad.y);
    last = std::min(int(starts_.size()), last);
    draw_text_layer(dl, mono, text_at, first, last);
    if (active_) draw_caret(dl, mono, text_at);
    // Test targets: the first visible character of each visible line (a scripted click there,
    // then End, puts the caret at its end). Scrolled sideways to a caret far right, the line's
    // start is out of view, so the target moves to the view's left edge.
    const float left = std::max(text_at.x, ImGui::GetWindowPos().x + char_w);
    for (int i = first; i < last; ++i) {
        float y = text_at.y + float(i) * lh;
        test_target_rect("editor:line:" + std::to_string(i + 1), ImVec2(left, y + 1),
                         ImVec2(left + char_w, y + lh - 1));
    }
    if (scroll_to_ >= 0) scroll_to(scroll_to_, mono, pad, gutter_w);
    scroll_to_ = -1;
    ImGui::PopFont();
    ImGui::EndChild();
    ImGui::PopStyleColor();
    return changed;
}

}  // namespace kl::gui
