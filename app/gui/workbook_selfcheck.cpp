// Self-check: the lesson's questions (answers hidden until asked for or until a choice is made),
// flashcards (flip, next, shuffle, mark as known) and the "try it yourself" exercise. What the
// reader answered and knows is kept in the settings file.
// [SECTION] index: questions / flashcards / exercise / panel
#include <imgui.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "gui/widgets.h"
#include "gui/workbook.h"

namespace kl::gui {

// [SECTION] Questions

void Workbook::draw_questions() {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    const Lesson& l = *lesson();
    LessonProgress& prog = progress();
    int answered = 0, correct = 0;
    for (const auto& [q, a] : prog.answers) {
        if (q < 0 || q >= int(l.checks.size())) continue;
        ++answered;
        correct += l.checks[q].correct >= 0 && a == l.checks[q].correct;
    }
    char summary[128];
    std::snprintf(summary, sizeof summary, "%d of %zu answered  \xC2\xB7  %d multiple-choice correct", answered,
                  l.checks.size(), correct);
    ImGui::TextDisabled("%s", summary);
    // The reset button goes to the right end of the line if there is room, else under it.
    float reset_w = ImGui::CalcTextSize("Reset answers").x + 2 * ImGui::GetStyle().FramePadding.x;
    float right = ImGui::GetWindowContentRegionMax().x - reset_w;
    if (ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + 12 * s < right) ImGui::SameLine(right);
    if (ImGui::SmallButton("Reset answers")) {
        prog.answers.clear();
        settings_dirty_ = true;
    }
    ImGui::Spacing();
    ImGui::BeginChild("##questions", ImVec2(0, 0), false);
    for (int i = 0; i < int(l.checks.size()); ++i) {
        const CheckQuestion& q = l.checks[i];
        ImGui::PushID(i);
        auto it = prog.answers.find(i);
        bool has_answer = it != prog.answers.end();
        begin_callout("##q");
        ImGui::PushFont(fonts_.bold);
        ImGui::TextWrapped("%d.  %s", i + 1, bound(q.question).c_str());
        ImGui::PopFont();
        ImGui::Dummy(ImVec2(0, 2 * s));
        if (!q.choices.empty()) {
            for (int c = 0; c < int(q.choices.size()); ++c) {
                bool chosen = has_answer && it->second == c;
                ImU32 col = 0;
                if (has_answer && c == q.correct)
                    col = pal.good;
                else if (chosen)
                    col = pal.bad;
                if (col) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(col));
                std::string label = bound(q.choices[c]) + (has_answer && c == q.correct ? "   \xE2\x9C\x93"
                                                           : chosen                     ? "   \xE2\x9C\x97"
                                                                                        : "");
                if (ImGui::RadioButton(label.c_str(), chosen) && !has_answer) {
                    prog.answers[i] = c;
                    settings_dirty_ = true;
                }
                test_target("choice:" + std::to_string(i + 1) + ":" + std::to_string(c + 1));
                if (col) ImGui::PopStyleColor();
            }
        }
        bool revealed = has_answer;
        if (!revealed) {
            if (q.choices.empty() && ImGui::Button("Show the answer")) {
                prog.answers[i] = LessonProgress::kRevealed;
                settings_dirty_ = true;
            }
            if (q.choices.empty()) test_target("button:answer:" + std::to_string(i + 1));
        } else {
            ImGui::Dummy(ImVec2(0, 2 * s));
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.muted));
            ImGui::TextWrapped("%s", bound(q.answer).c_str());
            ImGui::PopStyleColor();
            if (ImGui::SmallButton("Hide")) {
                prog.answers.erase(i);
                settings_dirty_ = true;
            }
        }
        ImU32 edge = !revealed                                                    ? pal.border
                     : (q.correct < 0 || (has_answer && it->second == q.correct)) ? pal.good
                                                                                  : pal.bad;
        end_callout(edge, pal.panel_alt);
        ImGui::Dummy(ImVec2(0, 4 * s));
        ImGui::PopID();
    }
    if (l.checks.empty()) ImGui::TextDisabled("This lesson has no self-check questions.");
    ImGui::EndChild();
}

// [SECTION] Flashcards

void Workbook::draw_flashcards() {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    const Lesson& l = *lesson();
    int n = int(l.cards.size());
    if (n == 0) {
        ImGui::TextDisabled("This lesson has no flashcards.");
        return;
    }
    if (selfcheck_.order_for != l.id || int(selfcheck_.order.size()) != n) {
        selfcheck_.order.resize(size_t(n));
        std::iota(selfcheck_.order.begin(), selfcheck_.order.end(), 0);
        selfcheck_.order_for = l.id;
        selfcheck_.card = 0;
        selfcheck_.flipped = false;
    }
    selfcheck_.card = std::clamp(selfcheck_.card, 0, n - 1);
    int index = selfcheck_.order[size_t(selfcheck_.card)];
    const Flashcard& card = l.cards[size_t(index)];
    LessonProgress& prog = progress();
    bool known = prog.cards_known.count(index) != 0;

    ImGui::TextDisabled("Card %d of %d  \xC2\xB7  %zu known", selfcheck_.card + 1, n, prog.cards_known.size());
    ImGui::Spacing();
    ImVec2 avail = ImGui::GetContentRegionAvail();
    float w = std::min(avail.x, 640 * s), h = std::min(std::max(160 * s, avail.y - 70 * s), 340 * s);
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + (avail.x - w) * 0.5f);
    ImVec2 p = ImGui::GetCursorScreenPos();
    if (ImGui::InvisibleButton("##card", ImVec2(w, h))) selfcheck_.flipped = !selfcheck_.flipped;
    test_target("flashcard");
    bool hovered = ImGui::IsItemHovered();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), selfcheck_.flipped ? pal.panel_alt : pal.panel, 12 * s);
    dl->AddRect(p, ImVec2(p.x + w, p.y + h), hovered ? pal.accent : pal.border, 12 * s, 0, 1.5f * s);
    const char* side = selfcheck_.flipped ? "ANSWER" : "QUESTION";
    dl->AddText(fonts_.small, fonts_.small->FontSize, ImVec2(p.x + 16 * s, p.y + 12 * s), pal.muted, side);
    if (known)
        dl->AddText(fonts_.small, fonts_.small->FontSize, ImVec2(p.x + w - 80 * s, p.y + 12 * s), pal.good,
                    "\xE2\x9C\x93 known");
    ImFont* f = selfcheck_.flipped ? fonts_.body : fonts_.big;
    const std::string& text = bound(selfcheck_.flipped ? card.back : card.front);
    float wrap = w - 48 * s;
    ImVec2 ts = f->CalcTextSizeA(f->FontSize, FLT_MAX, wrap, text.c_str());
    ImVec2 at(p.x + (w - ts.x) * 0.5f, p.y + std::max(36 * s, (h - ts.y) * 0.5f));
    dl->AddText(f, f->FontSize, at, pal.text, text.c_str(), nullptr, wrap);
    if (!selfcheck_.flipped)
        dl->AddText(fonts_.small, fonts_.small->FontSize, ImVec2(p.x + 16 * s, p.y + h - 26 * s), pal.faint,
                    "click or press Space to flip");

    ImGui::Spacing();
    float bw = 110 * s;
    float row = 4 * bw + 3 * ImGui::GetStyle().ItemSpacing.x + 130 * s;
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + std::max(0.0f, (avail.x - row) * 0.5f));
    if (plain_button("\xE2\x97\x80 Previous", ImVec2(bw, 0), selfcheck_.card > 0)) {
        --selfcheck_.card;
        selfcheck_.flipped = false;
    }
    ImGui::SameLine();
    if (primary_button(selfcheck_.flipped ? "Show question" : "Flip", ImVec2(bw, 0)))
        selfcheck_.flipped = !selfcheck_.flipped;
    ImGui::SameLine();
    if (plain_button("Next \xE2\x96\xB6", ImVec2(bw, 0), selfcheck_.card + 1 < n)) {
        ++selfcheck_.card;
        selfcheck_.flipped = false;
    }
    test_target("button:next_card");
    ImGui::SameLine();
    if (ImGui::Button("Shuffle", ImVec2(bw, 0))) {
        std::mt19937 rng(std::random_device{}());
        std::shuffle(selfcheck_.order.begin(), selfcheck_.order.end(), rng);
        selfcheck_.card = 0;
        selfcheck_.flipped = false;
    }
    ImGui::SameLine();
    bool k = known;
    if (ImGui::Checkbox("I know this", &k)) {
        if (k)
            prog.cards_known.insert(index);
        else
            prog.cards_known.erase(index);
        settings_dirty_ = true;
    }
    if (!ImGui::GetIO().WantTextInput && ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) &&
        ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Space), false))
        selfcheck_.flipped = !selfcheck_.flipped;
}

// [SECTION] Exercise

void Workbook::draw_exercise() {
    const Lesson& l = *lesson();
    if (l.exercise_text.empty() && l.exercise_title.empty()) {
        ImGui::TextDisabled("This lesson has no exercise.");
        return;
    }
    if (selfcheck_.exercise_for != &l) {
        selfcheck_.exercise = md::parse(bound(l.exercise_text));
        selfcheck_.exercise_for = &l;
    }
    ImGui::BeginChild("##exercise", ImVec2(0, 0), false);
    ImGui::PushFont(fonts_.h2);
    ImGui::TextWrapped("%s", l.exercise_title.empty() ? "Try it yourself" : l.exercise_title.c_str());
    ImGui::PopFont();
    ImGui::Spacing();
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 0));
    draw_markdown(selfcheck_.exercise);
    ImGui::PopStyleVar();
    // Start the exercise from the step's rung, as the learner's own (workbook_editor.cpp).
    if (rung_ && !rung_->file.empty() && !rung_->learner) {
        ImGui::Spacing();
        std::string label = "Start from " + rung_->title + " (make it mine)";
        const LessonStep* st = step();
        if (primary_button(label.c_str())) {
            if (st && st->exercise && st->ladder == ladder_->id)  // the step's live exercise: its starter
                start_exercise(*st->exercise);
            else
                make_it_mine(*rung_);
        }
        test_target("button:exercise_make_mine");
    }
    ImGui::EndChild();
}

// [SECTION] Panel

void Workbook::draw_selfcheck() {
    if (!lesson()) {
        ImGui::TextDisabled("No lesson selected.");
        return;
    }
    const char* tabs[] = {"Questions", "Flashcards", "Exercise"};
    segmented("##selfcheck_tabs", tabs, 3, &selfcheck_.tab);
    ImGui::Spacing();
    if (selfcheck_.tab == 0)
        draw_questions();
    else if (selfcheck_.tab == 1)
        draw_flashcards();
    else
        draw_exercise();
}

}  // namespace kl::gui
