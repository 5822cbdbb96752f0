// [SECTION] index: helpers / Markdown / HTML
#include "report/handout.h"

#include <md4c-html.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "base/errors.h"
#include "report/markdown_text.h"

namespace kl::report {

// [SECTION] Helpers

std::string demote_headings(const std::string& markdown, int levels) {
    std::istringstream in(markdown);
    std::string line, out;
    bool fenced = false;
    while (std::getline(in, line)) {
        size_t first = line.find_first_not_of(' ');
        bool fence = first != std::string::npos && first < 4 &&
                     (line.compare(first, 3, "```") == 0 || line.compare(first, 3, "~~~") == 0);
        if (fence)
            fenced = !fenced;
        else if (!fenced && !line.empty() && line[0] == '#')
            line = std::string(levels, '#') + line;
        out += line + "\n";
    }
    return out;
}

// [SECTION] Markdown

// Lesson prose stays Markdown with its raw HTML escaped (markdown_prose); titles, and everything
// a results file or the program's figures supply, are text and never become Markdown
// (markdown_text): handout.md is pasted into renderers that allow HTML and load images.
namespace {
void figure_markdown(std::ostringstream& md, size_t i, const HandoutFigure* fig) {
    if (fig && fig->missing.empty()) {
        md << "![" << markdown_text(fig->title) << "](" << fig->png << ")\n\n";
        md << "*Figure " << (i + 1) << ": " << markdown_text(fig->title) << ".";
        if (!fig->caption.empty()) md << " " << markdown_text(fig->caption) << ".";
        md << " [SVG](" << fig->svg << ") · [PDF](" << fig->pdf << ")*\n\n";
    } else if (fig) {
        md << "*No figure for this step: " << markdown_text(fig->missing) << "*\n\n";
    }
}
}  // namespace

std::string handout_markdown(const HandoutInput& in) {
    const Lesson& L = *in.lesson;
    std::ostringstream md;
    md << "# Lesson " << L.number << ": " << markdown_text(L.title) << "\n\n";
    if (!L.summary.empty()) md << markdown_prose(L.summary) << "\n\n";
    md << "*Measurements: " << markdown_text(in.source) << ". The figures and key numbers are in [" << in.results_name
       << "](" << in.results_name << ")"
       << (in.number_sources.empty() ? "" : "; each number quoted in the text names its run at the end") << ".*\n\n";

    if (!in.tables.empty()) {
        md << "## Key numbers\n\n";
        for (const auto& t : in.tables) {
            md << "**" << markdown_text(t.ladder_title) << "** (`" << t.ladder << "`), " << markdown_text(t.problem)
               << "\n\n";
            md << key_table_markdown(t) << "\n";
        }
        md << "Rates are ideal bytes (or FLOPs) over the median time; \"% of reference\" is the reference rung's time "
              "over "
              "this rung's time, where the run measured it.\n\n";
    }

    md << "## Steps\n\n";
    std::vector<std::pair<size_t, const LessonStep*>> answered;
    for (size_t i = 0; i < L.steps.size(); ++i) {
        const LessonStep& s = L.steps[i];
        md << "### " << (i + 1) << ". " << markdown_text(s.title) << "\n\n";
        if (!s.text.empty()) md << markdown_prose(demote_headings(s.text, 3)) << "\n";
        const HandoutFigure* fig =
            i < in.step_figures.size() && !in.step_figures[i].title.empty() ? &in.step_figures[i] : nullptr;
        const bool predict = !s.predict_metric.empty();
        if (!predict) figure_markdown(md, i, fig);  // a prediction's figure follows the steps
        if (predict)
            md << "**Your prediction:** " << markdown_prose(s.predict_ask, false)
               << " Write it down before reading the measurements after the steps.\n\n";
        if (!s.look_at.empty()) md << "**Look at:** " << markdown_prose(s.look_at, false) << "\n\n";
        if (i < in.step_timelines.size() && !in.step_timelines[i].empty()) {  // [timeline]
            md << "**Kernels of one repetition** ([CSV](" << in.step_timeline_csv[i] << ")):\n\n"
               << in.step_timelines[i] << "\n";
        }
        if (s.tool == "calculator")  // [calculator] the window's table, at its defaults
            md << "**Calculator** (GPT-2 small on " << in.calculator.gpus
               << " GPUs; rates: " << markdown_text(in.calculator_source) << "):\n\n"
               << calculator_markdown(in.calculator) << "\n";
        if (!s.question.empty()) {  // one prediction per step: beside predict, a question
            md << (predict ? "**Question:** " : "**Predict:** ") << markdown_prose(s.question, false) << "\n\n";
            if (!s.answer.empty()) answered.push_back({i, &s});
        }
    }
    bool any_prediction = false;
    for (size_t i = 0; i < L.steps.size(); ++i) {
        const LessonStep& s = L.steps[i];
        if (s.predict_metric.empty()) continue;
        if (!any_prediction) md << "## The measurements, after your predictions\n\n";
        any_prediction = true;
        md << "### " << (i + 1) << ". " << markdown_text(s.title) << "\n\n";
        if (i < in.step_reveals.size() && !in.step_reveals[i].empty())
            md << markdown_prose(demote_headings(in.step_reveals[i], 3)) << "\n";
        figure_markdown(
            md, i, i < in.step_figures.size() && !in.step_figures[i].title.empty() ? &in.step_figures[i] : nullptr);
        if (!s.predict_why.empty()) md << "**Why:** " << markdown_prose(s.predict_why, false) << "\n\n";
    }
    if (!answered.empty()) {
        md << "## Answers\n\n";
        for (const auto& [i, s] : answered)
            md << "- **Step " << (i + 1) << ".** " << markdown_prose(s->answer, false) << "\n";
        md << "\n";
    }
    if (!in.number_sources.empty()) {
        md << "## Where the numbers in the text come from\n\n";
        for (size_t i = 0; i < in.number_sources.size(); ++i)
            md << (i + 1) << ". " << markdown_text(in.number_sources[i]) << "\n";
        md << "\n";
    }
    return md.str();
}

// [SECTION] HTML

namespace {
void append_html(const MD_CHAR* text, MD_SIZE size, void* userdata) {
    static_cast<std::string*>(userdata)->append(text, size);
}

std::string escape_html(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

// The URL a browser would see in an attribute value md4c wrote: entities decoded, ASCII
// whitespace and control characters dropped (browsers ignore them inside "java\tscript:").
std::string browser_url(const std::string& value) {
    std::string out;
    for (size_t i = 0; i < value.size(); ++i) {
        char c = value[i];
        if (c == '&') {
            size_t semi = value.find(';', i);
            if (semi != std::string::npos && semi - i <= 10) {
                std::string ent = value.substr(i + 1, semi - i - 1);
                long code = -1;
                if (ent == "amp")
                    code = '&';
                else if (ent == "quot")
                    code = '"';
                else if (ent == "lt")
                    code = '<';
                else if (ent == "gt")
                    code = '>';
                else if (ent.size() > 1 && ent[0] == '#')
                    code = std::strtol(ent.c_str() + 1 + (ent[1] == 'x' || ent[1] == 'X'), nullptr,
                                       ent[1] == 'x' || ent[1] == 'X' ? 16 : 10);
                if (code >= 0) {
                    if (code > 0x20 && code < 0x7f)
                        out += static_cast<char>(code);
                    else if (code > 0x7f)
                        out += '?';
                    i = semi;
                    continue;
                }
            }
        }
        if (static_cast<unsigned char>(c) > 0x20 && c != 0x7f) out += c;
    }
    return out;
}

// Relative links and http(s)/mailto stay; any other scheme (javascript:, data:, vbscript:,
// file:) would run or read something when clicked.
bool safe_url(const std::string& value) {
    std::string url = browser_url(value);
    size_t colon = url.find(':');
    if (colon == std::string::npos || url.find_first_of("/?#") < colon) return true;
    std::string scheme;
    for (size_t i = 0; i < colon; ++i) scheme += static_cast<char>(std::tolower(static_cast<unsigned char>(url[i])));
    return scheme == "http" || scheme == "https" || scheme == "mailto";
}

// md4c escapes text and attribute values, and with MD_FLAG_NOHTML no raw tag passes, so the
// only URLs in `html` are the href and src attributes md4c wrote: unsafe ones become "#".
std::string neutralise_urls(const std::string& html) {
    std::string out;
    size_t pos = 0;
    for (;;) {
        size_t a = html.find("href=\"", pos), b = html.find("src=\"", pos);
        size_t at = std::min(a, b);
        if (at == std::string::npos) break;
        size_t start = html.find('"', at) + 1, end = html.find('"', start);
        if (end == std::string::npos) break;
        out.append(html, pos, start - pos);
        std::string value = html.substr(start, end - start);
        out += safe_url(value) ? value : "#";
        pos = end;
    }
    out.append(html, pos, std::string::npos);
    return out;
}
}  // namespace

std::string markdown_to_html(const std::string& markdown, const std::string& title) {
    std::string body;
    // MD_FLAG_NOHTML: raw HTML in lesson text, titles or a results file's device name is shown
    // as text, never as live tags (handouts are opened in browsers; see docs/security.md).
    if (md_html(markdown.data(), MD_SIZE(markdown.size()), append_html, &body, MD_DIALECT_GITHUB | MD_FLAG_NOHTML, 0) !=
        0)
        throw InputError("cannot convert the handout to HTML (md4c failed)");
    body = neutralise_urls(body);
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + escape_html(title) +
           "</title>\n<style>\n"
           "body { font-family: 'DejaVu Sans', sans-serif; max-width: 46em; margin: 2em auto; padding: 0 1em; "
           "line-height: 1.45; }\n"
           "img { max-width: 100%; }\n"
           "table { border-collapse: collapse; margin: 0.5em 0 1em; }\n"
           "th, td { border: 1px solid #bbb; padding: 0.2em 0.6em; }\n"
           "pre { background: #f4f4f4; padding: 0.6em; overflow-x: auto; }\n"
           "code { font-family: 'DejaVu Sans Mono', monospace; }\n"
           "@media print { body { max-width: none; } img { page-break-inside: avoid; } }\n"
           "</style>\n</head>\n<body>\n" +
           body + "</body>\n</html>\n";
}

}  // namespace kl::report
