// [SECTION] index: fonts / themes
#include "gui/ui_style.h"

#include <filesystem>

namespace kl::gui {

namespace {
Palette g_palette;
bool g_dark = true;

// The characters lessons and plots use beyond ASCII: Latin-1, general punctuation (… – — ·),
// super- and subscripts (10⁻⁶), arrows, math operators (≤ ≈ ×), Greek, box drawing, check marks.
const ImWchar* glyph_ranges() {
    static const ImWchar ranges[] = {
        0x0020, 0x00FF, 0x0370, 0x03FF, 0x2000, 0x206F, 0x2070, 0x209F, 0x2190, 0x21FF, 0x2200, 0x22FF,
        0x2300, 0x23FF, 0x2500, 0x257F, 0x25A0, 0x25FF, 0x2600, 0x26FF, 0x2700, 0x27BF, 0,
    };
    return ranges;
}

// Headings, the large numbers and plot labels (none of the manifests' titles or the plot code
// uses a symbol past U+22FF): Latin-1, punctuation, super- and subscripts, arrows, math and
// Greek, without the symbol blocks the body text uses (box drawing, shapes, check marks). Each
// font's glyphs fill the atlas ImGui rasterizes and converts to RGBA before the first frame:
// the full ranges for all sixteen fonts made that most of a laptop's start (issue 38).
const ImWchar* label_glyph_ranges() {
    static const ImWchar ranges[] = {
        0x0020, 0x00FF, 0x0370, 0x03FF, 0x2000, 0x206F, 0x2070, 0x209F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0,
    };
    return ranges;
}
}  // namespace

// [SECTION] Fonts

Fonts load_fonts(float scale) {
    Fonts f;
    f.scale = scale;
    ImGuiIO& io = ImGui::GetIO();
    const std::string dir = "/usr/share/fonts/truetype/dejavu/";
    auto exists = [](const std::string& p) {
        std::error_code ec;
        return std::filesystem::is_regular_file(p, ec);
    };
    f.dejavu =
        exists(dir + "DejaVuSans.ttf") && exists(dir + "DejaVuSans-Bold.ttf") && exists(dir + "DejaVuSansMono.ttf");
    if (!f.dejavu) {
        ImFontConfig cfg;
        cfg.SizePixels = 13.0f * scale;
        f.body = io.Fonts->AddFontDefault(&cfg);
        f.bold = f.italic = f.bold_italic = f.mono = f.small = f.h1 = f.h2 = f.h3 = f.big = f.body;
        f.plot.faces.push_back({f.body, cfg.SizePixels, false});
        f.note = "DejaVu fonts not found in " + dir + " (install fonts-dejavu-core); using ImGui's built-in font";
        return f;
    }
    ImFontConfig cfg;
    cfg.OversampleV = 1;
    cfg.PixelSnapH = false;
    // Horizontal oversampling sharpens small text at subpixel positions; glyphs of 20 pixels and
    // more (headings; everything on a HiDPI screen) do not need it, and it doubles their area.
    auto add = [&](const std::string& file, float px, const ImWchar* ranges = glyph_ranges()) {
        std::string path = dir + file;
        if (!exists(path)) path = dir + "DejaVuSans.ttf";  // italics are optional
        cfg.OversampleH = px * scale < 20.0f ? 2 : 1;
        return io.Fonts->AddFontFromFileTTF(path.c_str(), px * scale, &cfg, ranges);
    };
    f.body = add("DejaVuSans.ttf", 16.0f);  // first font added = ImGui's default
    f.bold = add("DejaVuSans-Bold.ttf", 16.0f);
    f.italic = add("DejaVuSans-Oblique.ttf", 16.0f);
    f.bold_italic = add("DejaVuSans-BoldOblique.ttf", 16.0f);
    f.mono = add("DejaVuSansMono.ttf", 14.5f);
    f.small = add("DejaVuSans.ttf", 13.5f);
    f.h1 = add("DejaVuSans-Bold.ttf", 25.0f, label_glyph_ranges());
    f.h2 = add("DejaVuSans-Bold.ttf", 20.0f, label_glyph_ranges());
    f.h3 = add("DejaVuSans-Bold.ttf", 17.5f, label_glyph_ranges());
    f.big = add("DejaVuSans.ttf", 22.0f, label_glyph_ranges());
    // Plot text: baked at the sizes screen_theme() asks for, so nothing is scaled much.
    f.plot.faces.push_back({f.small, 13.5f * scale, false});
    f.plot.faces.push_back({f.body, 16.0f * scale, false});
    f.plot.faces.push_back({add("DejaVuSans.ttf", 12.0f, label_glyph_ranges()), 12.0f * scale, false});
    f.plot.faces.push_back({add("DejaVuSans.ttf", 12.5f, label_glyph_ranges()), 12.5f * scale, false});
    f.plot.faces.push_back({add("DejaVuSans-Bold.ttf", 15.0f, label_glyph_ranges()), 15.0f * scale, true});
    f.plot.faces.push_back({f.bold, 16.0f * scale, true});
    f.note = "DejaVu Sans and DejaVu Sans Mono at scale " + std::to_string(scale);
    return f;
}

// [SECTION] Themes

namespace {

ImVec4 hex(unsigned v, float a = 1.0f) {
    return ImVec4(((v >> 16) & 0xFF) / 255.f, ((v >> 8) & 0xFF) / 255.f, (v & 0xFF) / 255.f, a);
}

// Paddings, roundings and borders at scale 1 (ScaleAllSizes scales them).
void set_shapes(ImGuiStyle& style, bool dark) {
    style.WindowPadding = ImVec2(14, 12);
    style.FramePadding = ImVec2(9, 5);
    style.ItemSpacing = ImVec2(9, 7);
    style.ItemInnerSpacing = ImVec2(7, 5);
    style.CellPadding = ImVec2(8, 4);
    style.ScrollbarSize = 13;
    style.GrabMinSize = 12;
    style.WindowRounding = 0;
    style.ChildRounding = 6;
    style.FrameRounding = 5;
    style.PopupRounding = 6;
    style.ScrollbarRounding = 6;
    style.GrabRounding = 4;
    style.TabRounding = 5;
    style.WindowBorderSize = 0;
    style.ChildBorderSize = 1;
    style.FrameBorderSize = dark ? 0 : 1;
    style.PopupBorderSize = 1;
}

// The dark theme's ImGui colours; returns the palette the panels draw with.
Palette set_dark_colors(ImVec4* c) {
    c[ImGuiCol_Text] = hex(0xDFE2E7);
    c[ImGuiCol_TextDisabled] = hex(0x8A919C);
    c[ImGuiCol_WindowBg] = hex(0x16181D);
    c[ImGuiCol_ChildBg] = hex(0x1E2127);
    c[ImGuiCol_PopupBg] = hex(0x23272E, 0.98f);
    c[ImGuiCol_Border] = hex(0x2F343D);
    c[ImGuiCol_FrameBg] = hex(0x2A2F38);
    c[ImGuiCol_FrameBgHovered] = hex(0x343A45);
    c[ImGuiCol_FrameBgActive] = hex(0x3B4250);
    c[ImGuiCol_TitleBg] = hex(0x16181D);
    c[ImGuiCol_TitleBgActive] = hex(0x1E2127);
    c[ImGuiCol_Button] = hex(0x2D333D);
    c[ImGuiCol_ButtonHovered] = hex(0x3A4250);
    c[ImGuiCol_ButtonActive] = hex(0x4A5466);
    c[ImGuiCol_Header] = hex(0x2B3A52);
    c[ImGuiCol_HeaderHovered] = hex(0x33466A);
    c[ImGuiCol_HeaderActive] = hex(0x3B5587);
    c[ImGuiCol_Tab] = hex(0x242830);
    c[ImGuiCol_TabHovered] = hex(0x3B5587);
    c[ImGuiCol_TabActive] = hex(0x31456A);
    c[ImGuiCol_TabUnfocusedActive] = hex(0x31456A);
    c[ImGuiCol_SliderGrab] = hex(0x5B9BE6);
    c[ImGuiCol_SliderGrabActive] = hex(0x7DB2F0);
    c[ImGuiCol_CheckMark] = hex(0x6CAAF0);
    c[ImGuiCol_PlotHistogram] = hex(0x4FA3E0);
    c[ImGuiCol_Separator] = hex(0x2F343D);
    c[ImGuiCol_TableHeaderBg] = hex(0x262B33);
    c[ImGuiCol_TableBorderStrong] = hex(0x3A404B);
    c[ImGuiCol_TableBorderLight] = hex(0x2F343D);
    c[ImGuiCol_TableRowBgAlt] = hex(0xFFFFFF, 0.03f);
    return {IM_COL32(223, 226, 231, 255), IM_COL32(150, 157, 168, 255), IM_COL32(96, 102, 112, 255),
            IM_COL32(91, 155, 230, 255),  IM_COL32(91, 155, 230, 60),   IM_COL32(76, 196, 130, 255),
            IM_COL32(240, 100, 95, 255),  IM_COL32(236, 180, 80, 255),  IM_COL32(30, 33, 39, 255),
            IM_COL32(37, 41, 49, 255),    IM_COL32(47, 52, 61, 255),    IM_COL32(40, 44, 52, 255),
            IM_COL32(91, 155, 230, 38)};
}

Palette set_light_colors(ImVec4* c) {
    c[ImGuiCol_Text] = hex(0x1F2328);
    c[ImGuiCol_TextDisabled] = hex(0x6E7781);
    c[ImGuiCol_WindowBg] = hex(0xEEF0F3);
    c[ImGuiCol_ChildBg] = hex(0xFFFFFF);
    c[ImGuiCol_PopupBg] = hex(0xFFFFFF, 0.98f);
    c[ImGuiCol_Border] = hex(0xD0D7DE);
    c[ImGuiCol_FrameBg] = hex(0xF3F4F6);
    c[ImGuiCol_FrameBgHovered] = hex(0xE7EBF0);
    c[ImGuiCol_FrameBgActive] = hex(0xDCE3EC);
    c[ImGuiCol_Button] = hex(0xE9ECF0);
    c[ImGuiCol_ButtonHovered] = hex(0xDCE3EC);
    c[ImGuiCol_ButtonActive] = hex(0xC8D4E3);
    c[ImGuiCol_Header] = hex(0xDCE8F7);
    c[ImGuiCol_HeaderHovered] = hex(0xCFE0F5);
    c[ImGuiCol_HeaderActive] = hex(0xBCD4F2);
    // The selected tab in the accent's tint, as the dark theme does: white on the white panel
    // read as unselected beside the grey ones (issue 38). ImGui draws the line under the tab
    // bar in the same colour.
    c[ImGuiCol_Tab] = hex(0xE4E8ED);
    c[ImGuiCol_TabHovered] = hex(0xD6E4F6);
    c[ImGuiCol_TabActive] = hex(0xB5CFF1);
    c[ImGuiCol_TabUnfocusedActive] = hex(0xB5CFF1);
    c[ImGuiCol_SliderGrab] = hex(0x1F6FC5);
    c[ImGuiCol_SliderGrabActive] = hex(0x195BA3);
    c[ImGuiCol_CheckMark] = hex(0x1F6FC5);
    c[ImGuiCol_PlotHistogram] = hex(0x1F6FC5);
    c[ImGuiCol_TableHeaderBg] = hex(0xF0F3F6);
    c[ImGuiCol_TableRowBgAlt] = hex(0x000000, 0.025f);
    return {IM_COL32(31, 35, 40, 255),    IM_COL32(87, 96, 106, 255),   IM_COL32(150, 158, 168, 255),
            IM_COL32(31, 111, 197, 255),  IM_COL32(31, 111, 197, 45),   IM_COL32(26, 127, 55, 255),
            IM_COL32(207, 34, 46, 255),   IM_COL32(176, 110, 0, 255),   IM_COL32(255, 255, 255, 255),
            IM_COL32(246, 248, 250, 255), IM_COL32(208, 215, 222, 255), IM_COL32(243, 245, 247, 255),
            IM_COL32(31, 111, 197, 28)};
}

}  // namespace

void apply_theme(bool dark, float scale) {
    g_dark = dark;
    ImGuiStyle style;
    if (dark)
        ImGui::StyleColorsDark(&style);
    else
        ImGui::StyleColorsLight(&style);
    set_shapes(style, dark);
    g_palette = dark ? set_dark_colors(style.Colors) : set_light_colors(style.Colors);
    style.ScaleAllSizes(scale);
    ImGui::GetStyle() = style;
}

const Palette& palette() { return g_palette; }
bool theme_is_dark() { return g_dark; }

}  // namespace kl::gui
