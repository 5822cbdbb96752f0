// Fonts and colours of the workbook: DejaVu Sans (regular, bold, italic, bold italic) and DejaVu
// Sans Mono from fonts-dejavu-core, baked at the monitor's content scale; ImGui's built-in font
// when they are missing. Dark and light themes share one accent colour and one set of sizes.
#pragma once
#include <imgui.h>

#include <string>

#include "gui/plot_imgui.h"

namespace kl::gui {

struct Fonts {
    ImFont* body = nullptr;  // running text and widgets
    ImFont* bold = nullptr;
    ImFont* italic = nullptr;
    ImFont* bold_italic = nullptr;
    ImFont* mono = nullptr;   // code
    ImFont* small = nullptr;  // captions, status bar
    ImFont* h1 = nullptr;
    ImFont* h2 = nullptr;
    ImFont* h3 = nullptr;
    ImFont* big = nullptr;  // flashcards, big numbers
    PlotFonts plot;
    bool dejavu = false;  // false: ImGui's default font (DejaVu not installed)
    std::string note;     // what was loaded, or why not
    float scale = 1;      // content scale x zoom the fonts were baked for
};

// Must run before the font atlas is built (before the first NewFrame).
Fonts load_fonts(float scale);

// Colours the panels use beyond ImGui's own style.
struct Palette {
    ImU32 text, muted, faint, accent, accent_soft, good, bad, warn, panel, panel_alt, border, code_bg, highlight;
};

void apply_theme(bool dark, float scale);
const Palette& palette();
bool theme_is_dark();

}  // namespace kl::gui
