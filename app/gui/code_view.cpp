#include "gui/code_view.h"

#include "gui/ui_style.h"

namespace kl::gui {

ImU32 token_color(TokenKind k) {
    bool dark = theme_is_dark();
    switch (k) {
        case TokenKind::Keyword: return dark ? IM_COL32(198, 146, 233, 255) : IM_COL32(135, 38, 160, 255);
        case TokenKind::Type: return dark ? IM_COL32(229, 192, 123, 255) : IM_COL32(150, 95, 0, 255);
        case TokenKind::Builtin: return dark ? IM_COL32(97, 175, 239, 255) : IM_COL32(0, 92, 197, 255);
        case TokenKind::Parameter: return dark ? IM_COL32(240, 140, 90, 255) : IM_COL32(190, 70, 20, 255);
        case TokenKind::Number: return dark ? IM_COL32(209, 154, 102, 255) : IM_COL32(9, 134, 88, 255);
        case TokenKind::String: return dark ? IM_COL32(152, 195, 121, 255) : IM_COL32(10, 120, 40, 255);
        case TokenKind::Comment: return dark ? IM_COL32(127, 135, 150, 255) : IM_COL32(110, 119, 129, 255);
        case TokenKind::Preprocessor: return dark ? IM_COL32(86, 182, 194, 255) : IM_COL32(0, 120, 140, 255);
        case TokenKind::Directive: return dark ? IM_COL32(86, 182, 194, 255) : IM_COL32(0, 120, 140, 255);
        case TokenKind::Register: return dark ? IM_COL32(229, 192, 123, 255) : IM_COL32(150, 95, 0, 255);
        default: return palette().text;
    }
}

// Draws one line of code with colours from the tokenizer (shared with the source view).
void draw_code_line(ImDrawList* dl, ImFont* mono, ImVec2 at, const std::string& line, Language lang, LexState& state) {
    for (const auto& tok : tokenize_line(line, lang, state)) {
        const char* b = line.c_str() + tok.begin;
        const char* e = line.c_str() + tok.end;
        float x = mono->CalcTextSizeA(mono->FontSize, FLT_MAX, 0, line.c_str(), b).x;
        dl->AddText(mono, mono->FontSize, ImVec2(at.x + x, at.y), token_color(tok.kind), b, e);
    }
}

}  // namespace kl::gui
