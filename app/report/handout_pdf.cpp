// [SECTION] index: Markdown walk / entry
#include "report/handout_pdf.h"

#include <md4c.h>

#include <algorithm>
#include <cstdlib>

#include "base/errors.h"
#include "report/page_writer.h"

namespace kl::report {

namespace {

// "&lt;" -> "<", "&#8212;" -> the character in UTF-8; an unknown entity stays as written.
std::string decode_handout_entity(const std::string& e) {
    if (e == "&amp;") return "&";
    if (e == "&lt;") return "<";
    if (e == "&gt;") return ">";
    if (e == "&quot;") return "\"";
    if (e == "&nbsp;") return " ";
    if (e.size() < 4 || e[1] != '#') return e;
    const bool hex = e[2] == 'x' || e[2] == 'X';
    const unsigned long cp = std::strtoul(e.c_str() + (hex ? 3 : 2), nullptr, hex ? 16 : 10);
    if (cp == 0 || cp > 0x10FFFF) return e;
    std::string out;
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return out;
}

// [SECTION] Markdown walk: md4c reports blocks and spans; text gathers into runs, drawn when
// its block ends.
struct HandoutWalk {
    HandoutWalk(PageWriter& writer, const std::map<std::string, plot::Figure>& figs) : w(writer), figures(figs) {}
    PageWriter& w;
    const std::map<std::string, plot::Figure>& figures;
    std::vector<TextRun> runs;
    int bold = 0, code = 0, em = 0, img = 0, quote = 0;
    bool plain_seen = false;  // text outside emphasis: a paragraph all in emphasis is a caption
    std::vector<std::string> images;
    struct ListLevel {
        bool ordered;
        unsigned next;
    };
    std::vector<ListLevel> lists;
    std::string lead;
    bool in_code = false, in_table = false;
    std::string code_text, cell;
    std::vector<std::vector<std::string>> rows;
    double figure_height = 288;

    double indent() const { return 16.0 * lists.size() + 12.0 * quote; }

    void add_text(const std::string& t) {
        if (img > 0) return;  // an image's alt text: the figure stands there
        if (in_code) {
            code_text += t;
        } else if (in_table) {
            cell += t;
        } else {
            runs.push_back({t, bold > 0, code > 0});
            if (em == 0 && t.find_first_not_of(' ') != std::string::npos) plain_seen = true;
        }
    }

    void flush(double after) {
        bool any = false;
        for (const auto& r : runs) any = any || r.text.find_first_not_of(' ') != std::string::npos;
        if (any) {
            emit_headings();
            const bool caption = !plain_seen;
            w.rich(runs, caption ? PageWriter::kSmall + 0.5 : PageWriter::kBody, indent(),
                   caption ? plot::Color{0.3f, 0.3f, 0.3f, 1} : plot::Color{}, lead);
            lead.clear();
            w.space(after);
        }
        runs.clear();
        plain_seen = false;
    }

    void draw_images() {
        for (const std::string& src : images) {
            auto it = figures.find(src);
            if (it != figures.end()) {
                emit_headings(w.figure_height(it->second, figure_height) + PageWriter::kGap);
                w.figure(it->second, figure_height);
            } else {
                emit_headings();
                w.paragraph("(figure " + src + ")", PageWriter::kSmall);
            }
        }
        images.clear();
    }

    // A heading waits for what follows it, to stay on that block's page: three lines of text, or
    // a figure whole, or the next heading and its block.
    struct Heading {
        std::string text;
        double size;
    };
    std::vector<Heading> headings;
    void heading(int level) {
        std::string text;
        for (const auto& r : runs) text += r.text;
        runs.clear();
        plain_seen = false;
        static const double sizes[] = {17, 13.5, 11.5, 10.5};
        headings.push_back({text, sizes[std::clamp(level, 1, 4) - 1]});
    }
    void emit_headings(double keep_with = 3 * PageWriter::kBody * 1.35) {
        for (size_t i = 0; i < headings.size(); ++i) {
            double rest = keep_with;
            for (size_t j = i + 1; j < headings.size(); ++j) rest += headings[j].size * 2.5;
            w.heading(headings[i].text, headings[i].size, rest);
        }
        headings.clear();
    }

    void draw_table() {
        in_table = false;
        if (rows.empty()) return;
        size_t cols = 0;
        for (const auto& r : rows) cols = std::max(cols, r.size());
        std::vector<double> widths(cols, 1);
        for (const auto& r : rows)
            for (size_t c = 0; c < r.size(); ++c) widths[c] = std::max(widths[c], std::min<double>(r[c].size(), 60));
        double total = 0;
        for (double x : widths) total += x;
        std::vector<double> shares;
        for (double x : widths) shares.push_back(std::max(0.08, x / total) * (total > 0 ? 1 : 0));
        double sum = 0;
        for (double s : shares) sum += s;
        for (double& s : shares) s /= sum;
        for (auto& r : rows) r.resize(cols);
        std::vector<std::vector<std::string>> body(rows.begin() + 1, rows.end());
        emit_headings();
        w.table(rows.front(), shares, body);
        rows.clear();
    }
};

int handout_enter_block(MD_BLOCKTYPE type, void* detail, void* userdata) {
    HandoutWalk& h = *static_cast<HandoutWalk*>(userdata);
    switch (type) {
        case MD_BLOCK_QUOTE: h.flush(2), ++h.quote; break;
        case MD_BLOCK_UL: h.flush(2), h.lists.push_back({false, 1}); break;
        case MD_BLOCK_OL: h.flush(2), h.lists.push_back({true, static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start}); break;
        case MD_BLOCK_LI:
            h.flush(1.5);
            if (!h.lists.empty())
                h.lead = h.lists.back().ordered ? std::to_string(h.lists.back().next++) + "." : "\xE2\x80\xA2";
            break;
        case MD_BLOCK_HR: h.flush(4), h.w.space(6); break;
        case MD_BLOCK_CODE: h.flush(2), h.in_code = true, h.code_text.clear(); break;
        case MD_BLOCK_TABLE: h.flush(2), h.in_table = true, h.rows.clear(); break;
        case MD_BLOCK_TR: h.rows.emplace_back(); break;
        case MD_BLOCK_TH:
        case MD_BLOCK_TD: h.cell.clear(); break;
        default: h.flush(4); break;  // a paragraph or heading begins: what came before is drawn
    }
    return 0;
}

int handout_leave_block(MD_BLOCKTYPE type, void* detail, void* userdata) {
    HandoutWalk& h = *static_cast<HandoutWalk*>(userdata);
    switch (type) {
        case MD_BLOCK_H: h.heading(static_cast<int>(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level)); break;
        case MD_BLOCK_P:
            h.flush(h.lists.empty() ? 5 : 1.5);
            h.draw_images();
            break;
        case MD_BLOCK_LI: h.flush(1.5); break;
        case MD_BLOCK_UL:
        case MD_BLOCK_OL:
            h.flush(1.5);
            h.lists.pop_back();
            if (h.lists.empty()) h.w.space(4);
            break;
        case MD_BLOCK_QUOTE: h.flush(4), --h.quote; break;
        case MD_BLOCK_CODE:
            h.in_code = false;
            h.emit_headings();
            h.w.code_block(page_code_lines(h.code_text), h.indent());
            break;
        case MD_BLOCK_TH:
        case MD_BLOCK_TD:
            if (!h.rows.empty()) h.rows.back().push_back(h.cell);
            break;
        case MD_BLOCK_TABLE: h.draw_table(); break;
        default: break;
    }
    return 0;
}

int handout_enter_span(MD_SPANTYPE type, void* detail, void* userdata) {
    HandoutWalk& h = *static_cast<HandoutWalk*>(userdata);
    if (type == MD_SPAN_STRONG) ++h.bold;
    if (type == MD_SPAN_EM) ++h.em;
    if (type == MD_SPAN_CODE) ++h.code;
    if (type == MD_SPAN_IMG) {
        const MD_ATTRIBUTE& src = static_cast<MD_SPAN_IMG_DETAIL*>(detail)->src;
        if (h.img++ == 0) h.images.emplace_back(src.text, src.size);
    }
    return 0;
}

int handout_leave_span(MD_SPANTYPE type, void*, void* userdata) {
    HandoutWalk& h = *static_cast<HandoutWalk*>(userdata);
    if (type == MD_SPAN_STRONG) --h.bold;
    if (type == MD_SPAN_EM) --h.em;
    if (type == MD_SPAN_CODE) --h.code;
    if (type == MD_SPAN_IMG) --h.img;
    return 0;
}

int handout_text(MD_TEXTTYPE type, const MD_CHAR* text, MD_SIZE size, void* userdata) {
    HandoutWalk& h = *static_cast<HandoutWalk*>(userdata);
    const std::string t(text, size);
    switch (type) {
        case MD_TEXT_ENTITY: h.add_text(decode_handout_entity(t)); break;
        case MD_TEXT_BR:
        case MD_TEXT_SOFTBR: h.add_text(h.in_code ? "\n" : " "); break;
        case MD_TEXT_NULLCHAR: h.add_text("\xEF\xBF\xBD"); break;
        case MD_TEXT_HTML: break;  // never with MD_FLAG_NOHTML: raw HTML arrives as text
        default: h.add_text(t); break;
    }
    return 0;
}

}  // namespace

// [SECTION] Entry

HandoutPages handout_pdf(const std::string& markdown, const std::map<std::string, plot::Figure>& figures,
                         const std::string& title, const std::string& footer, double figure_height_pt,
                         const std::string& date) {
    PageWriter w("handout.pdf", title, footer, date);
    HandoutWalk walk(w, figures);
    walk.figure_height = std::clamp(figure_height_pt, 120.0, PageWriter::kPageH - 2 * PageWriter::kMargin - 40);
    MD_PARSER parser{};
    parser.abi_version = 0;
    // The HTML edition's dialect (handout.cpp): raw HTML in lesson text is shown as text.
    parser.flags = MD_DIALECT_GITHUB | MD_FLAG_NOHTML;
    parser.enter_block = handout_enter_block;
    parser.leave_block = handout_leave_block;
    parser.enter_span = handout_enter_span;
    parser.leave_span = handout_leave_span;
    parser.text = handout_text;
    if (md_parse(markdown.data(), static_cast<MD_SIZE>(markdown.size()), &parser, &walk) != 0)
        throw InputError("handout.pdf: cannot lay out the handout (md4c failed)");
    walk.flush(0);
    walk.emit_headings();
    HandoutPages out;
    out.pages = w.pages();
    out.pdf = w.finish();
    out.transcript = w.transcript();
    return out;
}

}  // namespace kl::report
