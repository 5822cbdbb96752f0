// The step's text: its Markdown laid out as flowing, wrapped text in the workbook's fonts, then
// what to look at in the plots and a predict-then-reveal question.
// [SECTION] index: links / inline flow / blocks / panel
#include <imgui.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "base/paths.h"
#include "gui/code_view.h"
#include "gui/widgets.h"
#include "gui/workbook.h"

namespace kl::gui {

// The source line a bound number's link carries, or "" for other links (workbook_bound.cpp).
std::string bound_source_of(const std::string& url);

namespace {

// [SECTION] Links

// Opens web links with the desktop's handler (double fork: no zombie, no waiting).
void open_url(const std::string& url) {
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) return;
    pid_t pid = fork();
    if (pid == 0) {
        if (fork() == 0) {
            execlp("xdg-open", "xdg-open", url.c_str(), static_cast<char*>(nullptr));
            _exit(127);
        }
        _exit(0);
    }
    if (pid > 0) waitpid(pid, nullptr, 0);
}

// [SECTION] Inline flow

struct FlowFonts {
    const Fonts& f;
    ImFont* base;  // the block's font (body, or a heading face)
    ImFont* for_style(unsigned style) const {
        if (style & md::kCode) return f.mono;
        bool b = (style & md::kStrong) || base != f.body;
        bool i = style & md::kEmphasis;
        if (base != f.body) return base;  // headings keep their face
        return b && i ? f.bold_italic : b ? f.bold : i ? f.italic : f.body;
    }
};

// Lays out `spans` from the cursor, wrapping at `width`; draws unless `measure_only`. Returns
// the height used. Words never split; a word longer than a line overflows (and is clipped).
float flow(const md::Inline& spans, const FlowFonts& fonts, float width, ImU32 color, bool measure_only = false) {
    const Palette& pal = palette();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImVec2 origin = ImGui::GetCursorScreenPos();
    float line_h = fonts.base->FontSize * (fonts.base == fonts.f.body ? 1.5f : 1.3f);
    float base_ascent = fonts.base->Ascent;
    float x = 0, y = 0;
    bool line_start = true;
    for (const auto& span : spans) {
        ImFont* font = fonts.for_style(span.style);
        float space_w = font->CalcTextSizeA(font->FontSize, FLT_MAX, 0, " ").x;
        bool code = span.style & md::kCode, link = span.style & md::kLink;
        std::string bound = link ? bound_source_of(span.url) : std::string();
        if (!bound.empty()) link = false;  // a measured number: its source on hover, nothing to open
        ImU32 ink = !bound.empty() ? pal.good : link ? pal.accent : code ? mix(color, pal.accent, 0.25f) : color;
        float pad = code ? font->FontSize * 0.28f : 0;
        size_t i = 0;
        const std::string& t = span.text;
        while (i < t.size()) {
            if (t[i] == '\n') {
                x = 0;
                y += line_h;
                line_start = true;
                ++i;
                continue;
            }
            if (t[i] == ' ') {
                if (!line_start) x += space_w;
                ++i;
                continue;
            }
            size_t j = i;
            while (j < t.size() && t[j] != ' ' && t[j] != '\n') ++j;
            // Inline code stays in one box when it fits on a line: `in[row0 + k]` is one token.
            if (code) {
                size_t whole = t.find('\n', i);
                if (whole == std::string::npos) whole = t.size();
                float ww =
                    font->CalcTextSizeA(font->FontSize, FLT_MAX, 0, t.c_str() + i, t.c_str() + whole).x + 2 * pad;
                if (ww <= width) j = whole;
            }
            const char* b = t.c_str() + i;
            const char* e = t.c_str() + j;
            float w = font->CalcTextSizeA(font->FontSize, FLT_MAX, 0, b, e).x + 2 * pad;
            if (x + w > width && !line_start) {
                x = 0;
                y += line_h;
            }
            if (!measure_only) {
                ImVec2 p(origin.x + x,
                         origin.y + y + (base_ascent - font->Ascent) + (line_h - fonts.base->FontSize) * 0.3f);
                if (code) {
                    dl->AddRectFilled(ImVec2(p.x, p.y - 1), ImVec2(p.x + w, p.y + font->FontSize + 2), pal.code_bg,
                                      4.0f);
                }
                dl->AddText(font, font->FontSize, ImVec2(p.x + pad, p.y), ink, b, e);
                if (span.style & md::kStrike)
                    dl->AddLine(ImVec2(p.x, p.y + font->FontSize * 0.55f),
                                ImVec2(p.x + w, p.y + font->FontSize * 0.55f), ink, 1.0f);
                if (!bound.empty()) {
                    // Dotted underline: a number filled in from a run, not typed into the lesson.
                    ImVec2 a(p.x, p.y), z(p.x + w, p.y + font->FontSize + 2);
                    for (float dx = 0; dx < w; dx += 4)
                        dl->AddLine(ImVec2(a.x + dx, z.y - 1), ImVec2(std::min(a.x + dx + 2, z.x), z.y - 1),
                                    with_alpha(ink, 0.7f), 1.0f);
                    if (ImGui::IsMouseHoveringRect(a, z) && ImGui::IsWindowHovered())
                        ImGui::SetTooltip("Measured: %s", bound.c_str());
                }
                if (link) {
                    ImVec2 a(p.x, p.y), z(p.x + w, p.y + font->FontSize + 2);
                    bool hover = ImGui::IsMouseHoveringRect(a, z) && ImGui::IsWindowHovered();
                    dl->AddLine(ImVec2(a.x, z.y - 1), ImVec2(z.x, z.y - 1), with_alpha(ink, hover ? 1.0f : 0.45f),
                                1.0f);
                    if (hover) {
                        ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
                        ImGui::SetTooltip("%s", span.url.c_str());
                        if (ImGui::IsMouseClicked(0)) open_url(span.url);
                    }
                }
            }
            x += w;
            line_start = false;
            i = j;
        }
    }
    float height = y + line_h;
    if (!measure_only) ImGui::Dummy(ImVec2(width, height));
    return height;
}

// The widest single line of `spans` (for table column widths).
float natural_width(const md::Inline& spans, const FlowFonts& fonts) {
    float w = 0;
    for (const auto& s : spans) {
        ImFont* f = fonts.for_style(s.style);
        w += f->CalcTextSizeA(f->FontSize, FLT_MAX, 0, s.text.c_str()).x +
             ((s.style & md::kCode) ? f->FontSize * 0.56f : 0);
    }
    return w;
}

}  // namespace

// [SECTION] Blocks

namespace {

// A fenced code block on a tinted background, coloured as CUDA or PTX when it is one of those.
void draw_code_block(const md::Block& b, const Fonts& fonts, float width, float para_gap) {
    const Palette& pal = palette();
    const float s = fonts.scale;
    std::vector<std::string> lines = split_lines(b.code);
    ImFont* mono = fonts.mono;
    float lh = mono->FontSize * 1.35f, pad = 10 * s;
    ImVec2 p = ImGui::GetCursorScreenPos();
    ImVec2 end(p.x + width, p.y + lines.size() * lh + 2 * pad);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(p, end, pal.code_bg, 6.0f);
    dl->PushClipRect(p, end, true);
    std::string lang = b.language;
    bool colour = lang.empty() || lang == "cuda" || lang == "cu" || lang == "cpp" || lang == "c" || lang == "c++" ||
                  lang == "ptx";
    LexState st;
    for (size_t i = 0; i < lines.size(); ++i) {
        ImVec2 at(p.x + pad, p.y + pad + i * lh);
        if (colour)
            draw_code_line(dl, mono, at, lines[i], lang == "ptx" ? Language::Ptx : Language::Cuda, st);
        else
            dl->AddText(mono, mono->FontSize, at, pal.text, lines[i].c_str());
    }
    dl->PopClipRect();
    ImGui::Dummy(ImVec2(width, end.y - p.y));
    ImGui::Dummy(ImVec2(0, para_gap * 0.4f));
}

// A Markdown table: columns at their natural width when they fit, else short columns keep theirs
// and long ones share the rest; the header row in bold.
void draw_table(const md::Block& b, const Fonts& fonts, float width, float para_gap) {
    const Palette& pal = palette();
    const float s = fonts.scale;
    if (b.rows.empty()) return;
    size_t cols = 0;
    for (const auto& r : b.rows) cols = std::max(cols, r.size());
    if (cols == 0 || cols > 32) return;
    std::vector<float> natural(cols, 0);
    for (size_t r = 0; r < b.rows.size(); ++r)
        for (size_t c = 0; c < b.rows[r].size(); ++c)
            natural[c] =
                std::max(natural[c], natural_width(b.rows[r][c], {fonts, r == 0 ? fonts.bold : fonts.body}) + 2);
    float cell_pad = ImGui::GetStyle().CellPadding.x * 2 + 2;
    float total = 0;
    for (float w : natural) total += w + cell_pad;
    bool fits = total <= width;
    ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_NoSavedSettings |
                            (fits ? ImGuiTableFlags_SizingFixedFit : ImGuiTableFlags_SizingStretchProp);
    ImGui::PushStyleVar(ImGuiStyleVar_CellPadding, ImVec2(8 * s, 3 * s));
    if (ImGui::BeginTable("##md_table", int(cols), flags, ImVec2(fits ? total : width, 0))) {
        // Too wide: short columns keep their natural width, long ones share the rest.
        for (size_t c = 0; c < cols; ++c) {
            bool fixed = fits || natural[c] <= width * 0.2f;
            ImGui::TableSetupColumn("", fixed ? ImGuiTableColumnFlags_WidthFixed : ImGuiTableColumnFlags_WidthStretch,
                                    natural[c]);
        }
        for (size_t r = 0; r < b.rows.size(); ++r) {
            ImGui::TableNextRow();
            if (r == 0) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, ImGui::GetColorU32(ImGuiCol_TableHeaderBg));
            for (size_t c = 0; c < cols; ++c) {
                ImGui::TableSetColumnIndex(int(c));
                if (c >= b.rows[r].size()) continue;
                float cw = ImGui::GetContentRegionAvail().x;
                int align = c < b.align.size() ? b.align[c] : 0;
                FlowFonts ff{fonts, r == 0 ? fonts.bold : fonts.body};
                if (align != 0) {
                    float nw = natural_width(b.rows[r][c], ff);
                    if (nw < cw)
                        ImGui::SetCursorPosX(ImGui::GetCursorPosX() + (align == 2 ? cw - nw : (cw - nw) * 0.5f));
                    cw = std::min(cw, nw + 2);
                }
                md::Inline cell = b.rows[r][c];
                if (r == 0)
                    for (auto& sp : cell) sp.style |= md::kStrong;
                flow(cell, ff, cw, pal.text);
            }
        }
        ImGui::EndTable();
    }
    ImGui::PopStyleVar();
    ImGui::Dummy(ImVec2(0, para_gap * 0.6f));
}

}  // namespace

void Workbook::draw_markdown(const md::Document& doc) {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    const float para_gap = ImGui::GetFontSize() * 0.55f;
    for (size_t bi = 0; bi < doc.blocks.size(); ++bi) {
        const md::Block& b = doc.blocks[bi];
        ImGui::PushID(int(bi));
        float quote_indent = b.quote_depth * 16 * s;
        float base_x = ImGui::GetCursorPosX();
        float full = ImGui::GetContentRegionAvail().x;
        ImVec2 block_start = ImGui::GetCursorScreenPos();
        if (quote_indent > 0) ImGui::SetCursorPosX(base_x + quote_indent);
        float width = full - quote_indent;
        ImU32 ink = b.quote_depth ? pal.muted : pal.text;
        switch (b.kind) {
            case md::Block::Kind::Heading: {
                ImFont* f = b.level <= 1 ? fonts_.h1 : b.level == 2 ? fonts_.h2 : fonts_.h3;
                if (bi > 0) ImGui::Dummy(ImVec2(0, para_gap * 0.8f));
                flow(b.spans, {fonts_, f}, width, ink);
                ImGui::Dummy(ImVec2(0, para_gap * 0.2f));
                break;
            }
            case md::Block::Kind::Paragraph:
                flow(b.spans, {fonts_, fonts_.body}, width, ink);
                ImGui::Dummy(ImVec2(0, para_gap * 0.5f));
                break;
            case md::Block::Kind::ListItem: {
                float indent = (std::max(1, b.level) - 1) * 20 * s + 24 * s;
                ImVec2 p = ImGui::GetCursorScreenPos();
                if (!b.marker.empty()) {
                    ImFont* mf = b.marker.back() == '.' ? fonts_.body : fonts_.bold;
                    float mw = mf->CalcTextSizeA(mf->FontSize, FLT_MAX, 0, b.marker.c_str()).x;
                    float line_h = fonts_.body->FontSize * 1.5f;
                    ImGui::GetWindowDrawList()->AddText(
                        mf, mf->FontSize,
                        ImVec2(p.x + indent - mw - 8 * s, p.y + (line_h - fonts_.body->FontSize) * 0.3f),
                        b.marker.back() == '.' ? pal.muted : pal.accent, b.marker.c_str());
                }
                ImGui::SetCursorScreenPos(ImVec2(p.x + indent, p.y));
                flow(b.spans, {fonts_, fonts_.body}, width - indent, ink);
                bool next_is_item = bi + 1 < doc.blocks.size() && doc.blocks[bi + 1].kind == md::Block::Kind::ListItem;
                ImGui::Dummy(ImVec2(0, next_is_item ? 0.0f : para_gap * 0.5f));
                break;
            }
            case md::Block::Kind::CodeBlock: draw_code_block(b, fonts_, width, para_gap); break;
            case md::Block::Kind::Rule: {
                ImVec2 p = ImGui::GetCursorScreenPos();
                ImGui::GetWindowDrawList()->AddLine(ImVec2(p.x, p.y + para_gap), ImVec2(p.x + width, p.y + para_gap),
                                                    pal.border, 1.0f);
                ImGui::Dummy(ImVec2(width, 2 * para_gap));
                break;
            }
            case md::Block::Kind::Table: draw_table(b, fonts_, width, para_gap); break;
        }
        if (b.quote_depth > 0) {
            ImVec2 end = ImGui::GetCursorScreenPos();
            for (int q = 0; q < b.quote_depth; ++q) {
                float x = block_start.x + q * 16 * s + 3 * s;
                ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(x, block_start.y),
                                                          ImVec2(x + 3 * s, end.y - para_gap * 0.4f), pal.border);
            }
        }
        ImGui::SetCursorPosX(base_x);
        ImGui::PopID();
    }
}

// [SECTION] Panel

void Workbook::draw_step_text() {
    const Palette& pal = palette();
    const float s = fonts_.scale;
    const Lesson* l = lesson();
    const LessonStep* st = step();
    if (text_.scroll_to_top) {
        ImGui::SetScrollY(0);
        text_.scroll_to_top = false;
    }
    if (!l) {
        ImGui::PushFont(fonts_.h2);
        ImGui::TextUnformatted("No lesson to show");
        ImGui::PopFont();
        ImGui::TextWrapped(
            "The lessons folder is %s. Lessons that failed to load are listed on the left with the reason.",
            lessons_dir().c_str());
        return;
    }
    if (!st) {
        ImGui::TextWrapped("Lesson %s has no steps.", l->title.c_str());
        return;
    }
    if (text_.parsed_for != st || text_.store_generation != store_.generation()) {
        resolve_step_text(*st);
        text_.parsed_for = st;
        if (!text_.doc.error.empty()) log(st->text_path + ": " + text_.doc.error);
    }
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 0));
    ImGui::PushFont(fonts_.small);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.muted));
    ImGui::Text("LESSON %d  \xC2\xB7  STEP %d OF %zu", l->number, step_ + 1, l->steps.size());
    ImGui::PopStyleColor();
    ImGui::PopFont();
    ImGui::Dummy(ImVec2(0, 4 * s));
    ImGui::PushFont(fonts_.h1);
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(st->title.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopFont();
    ImGui::Dummy(ImVec2(0, 10 * s));
    // Steps whose Markdown repeats the title as a first heading: skip that heading.
    md::Document shown = text_.doc;
    if (!shown.blocks.empty() && shown.blocks.front().kind == md::Block::Kind::Heading &&
        md::plain_text(shown.blocks.front().spans) == st->title)
        shown.blocks.erase(shown.blocks.begin());
    draw_markdown(shown);
    ImGui::PopStyleVar();

    if (!text_.look_at.empty()) {
        ImGui::Dummy(ImVec2(0, 6 * s));
        begin_callout("##look_at");
        ImGui::PushFont(fonts_.bold);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.accent));
        ImGui::TextUnformatted("Look at");
        ImGui::PopStyleColor();
        ImGui::PopFont();
        ImGui::TextWrapped("%s", text_.look_at.c_str());
        end_callout(pal.accent, pal.highlight);
    }
    if (!text_.question.empty()) {
        ImGui::Dummy(ImVec2(0, 4 * s));
        begin_callout("##question");
        ImGui::PushFont(fonts_.bold);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.warn));
        // One prediction per step: beside `predict` the question asks why, it predicts nothing.
        ImGui::TextUnformatted(st->rung.empty()             ? "Think first"
                               : st->predict_metric.empty() ? "Predict, then run"
                                                            : "Question");
        ImGui::PopStyleColor();
        ImGui::PopFont();
        ImGui::TextWrapped("%s", text_.question.c_str());
        ImGui::Dummy(ImVec2(0, 2 * s));
        if (!text_.answer.empty()) {
            if (!text_.answer_shown) {
                if (ImGui::Button("Show the answer")) text_.answer_shown = true;
                test_target("button:step_answer");
            } else {
                ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(pal.muted));
                ImGui::TextWrapped("%s", text_.answer.c_str());
                ImGui::PopStyleColor();
                if (ImGui::SmallButton("Hide the answer")) text_.answer_shown = false;
            }
        }
        end_callout(pal.warn, with_alpha(pal.warn, 0.10f));
    }
    draw_prediction(*st);
    ImGui::Dummy(ImVec2(0, 12 * s));
}

}  // namespace kl::gui
