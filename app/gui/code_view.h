// Coloured code lines, shared by the step text (code blocks) and the source view.
#pragma once
#include <imgui.h>

#include <string>

#include "gui/syntax.h"

namespace kl::gui {

ImU32 token_color(TokenKind kind);
// Draws `line` at `at` in the monospace font with the tokenizer's colours; `state` carries block
// comments from line to line.
void draw_code_line(ImDrawList* dl, ImFont* mono, ImVec2 at, const std::string& line, Language lang, LexState& state);

}  // namespace kl::gui
