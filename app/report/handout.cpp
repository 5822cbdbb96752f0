// [SECTION] index: helpers / Markdown / HTML
#include "report/handout.h"

#include <md4c-html.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "base/errors.h"
#include "model/run_metrics.h"
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

std::optional<HandoutEdition> handout_edition_from_name(const std::string& name) {
    if (name == "student") return HandoutEdition::Student;
    if (name == "instructor") return HandoutEdition::Instructor;
    return std::nullopt;
}

const char* handout_edition_name(HandoutEdition edition) {
    return edition == HandoutEdition::Student ? "student" : "instructor";
}

namespace {

const char* kBlank = "\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_\\_";  // a line to write on, as Markdown

void write_header(std::ostringstream& md, const HandoutInput& in) {
    const Lesson& L = *in.lesson;
    const bool student = in.edition == HandoutEdition::Student;
    md << "# Lesson " << L.number << ": " << markdown_text(L.title) << "\n\n";
    md << "*" << (student ? "Student" : "Instructor") << " edition. Measured on " << markdown_text(in.source)
       << ": every figure shows this device only; the measurements are in [" << in.results_name << "]("
       << in.results_name << ").*\n\n";
    if (!L.summary.empty()) md << markdown_prose(L.summary) << "\n\n";
    if (student) return;
    if (!in.device_table.empty()) {
        md << "## The device\n\n| | |\n|---|---|\n";
        for (const auto& f : in.device_table)
            md << "| " << markdown_text(f.name) << " | " << markdown_text(f.value) << " |\n";
        md << "\n";
    }
    if (!in.tables.empty()) {
        md << "## Key numbers\n\n";
        for (const auto& t : in.tables) {
            md << "**" << markdown_text(t.ladder_title) << "** (`" << t.ladder << "`), " << markdown_text(t.problem)
               << "\n\n";
            md << key_table_markdown(t) << "\n";
        }
        // The column is left out of a table whose reference is its library (key_numbers.h): say
        // what it means only where one shows it.
        const bool reference_shown =
            std::any_of(in.tables.begin(), in.tables.end(), [](const KeyTable& t) { return !t.reference_is_library; });
        md << "Rates are ideal bytes (or FLOPs) over the median time";
        if (reference_shown)
            md << "; \"% of reference\" is the reference rung's time over this rung's time, where the run measured it";
        md << ".\n\n";
    }
}

void write_figure(std::ostringstream& md, const HandoutInput& in, size_t i) {
    const HandoutFigure& fig = in.step_figures[i];
    const size_t step = i + 1;
    const bool print = in.print;
    if (fig.same_as > 0) {
        // Figure k printed after the predictions (its step predicts, or it waits) while this step's
        // stands among the steps: say where to find it.
        const size_t k = fig.same_as - 1;
        const bool k_later = !in.lesson->steps[k].predict_metric.empty() || in.step_figures[k].waits;
        const bool here_later = !in.lesson->steps[i].predict_metric.empty() || fig.waits;
        md << "*Figure " << step << ": the same figure as Figure " << fig.same_as << " (step " << fig.same_as
           << (k_later && !here_later ? ", with the measurements after the predictions" : "") << ").*\n\n";
    } else if (fig.missing.empty()) {
        md << "![" << markdown_text(fig.title) << "](" << fig.png << ")\n\n";
        md << "*Figure " << step << ": " << markdown_text(fig.title) << ".";
        if (!fig.caption.empty()) md << " " << markdown_text(fig.caption) << ".";
        if (!print) md << " [SVG](" << fig.svg << ") · [PDF](" << fig.pdf << ")";
        md << "*\n\n";
    } else {
        md << "*Figure " << step << ": not recorded for this device. " << markdown_text(fig.missing) << "*\n\n";
    }
}

// The step's questions: blanks to fill in the student edition; in the instructor edition the
// question (what this device measured for a prediction follows the steps, with its why; the
// answers to the questions come at the end).
void write_predictions(std::ostringstream& md, const HandoutInput& in, size_t i) {
    const LessonStep& s = in.lesson->steps[i];
    const bool student = in.edition == HandoutEdition::Student;
    if (!s.predict_ask.empty()) {
        std::string unit = run_metric_unit(s.predict_metric);
        md << "**Predict:** " << markdown_prose(s.predict_ask, false);
        if (student) md << "\n\nYour prediction: " << kBlank << (unit.empty() ? "" : " " + markdown_text(unit));
        md << "\n\n";
        md << "*Write it down before reading the measurements after the steps.*\n\n";
    }
    if (!s.question.empty()) {
        // One prediction per step: the question asks why, whether or not the step predicts.
        md << "**Question:** " << markdown_prose(s.question, false);
        if (student) md << "\n\nYour answer: " << kBlank << kBlank << kBlank;
        md << "\n\n";
    }
}

// [timeline] The traced repetition's kernels: its summed time is the run's time, so a predict
// step's table waits for the reveals with the rest of its measurements.
void write_timeline(std::ostringstream& md, const HandoutInput& in, size_t i) {
    if (i >= in.step_timelines.size() || in.step_timelines[i].empty()) return;
    md << "**Kernels of one repetition**" << (in.print ? std::string() : " ([CSV](" + in.step_timeline_csv[i] + "))")
       << ":\n\n"
       << in.step_timelines[i] << "\n";
}

// After all steps, each predict step's measurements (course/reveal.h): the text past its marker,
// its figure and, in the instructor edition, what this device measured and why.
void write_reveals(std::ostringstream& md, const HandoutInput& in) {
    const Lesson& L = *in.lesson;
    bool any = false;
    for (size_t i = 0; i < L.steps.size(); ++i) {
        const LessonStep& s = L.steps[i];
        const bool figure_waits = i < in.step_figures.size() && in.step_figures[i].waits;
        if (s.predict_metric.empty() && !figure_waits) continue;
        if (!any) md << "## The measurements, after your predictions\n\n";
        any = true;
        md << "### " << (i + 1) << ". " << markdown_text(s.title) << "\n\n";
        if (s.predict_metric.empty()) {  // no prediction of its own: only its figure waited
            write_figure(md, in, i);
            continue;
        }
        if (i < in.step_reveals.size() && !in.step_reveals[i].empty())
            md << markdown_prose(demote_headings(in.step_reveals[i], 3)) << "\n";
        if (i < in.step_figures.size() && !in.step_figures[i].title.empty()) write_figure(md, in, i);
        write_timeline(md, in, i);
        if (in.edition == HandoutEdition::Student) continue;
        if (i < in.step_measured.size() && !in.step_measured[i].empty())
            md << "**Measured on this device:** " << markdown_text(in.step_measured[i]) << "\n\n";
        if (!s.predict_why.empty()) md << "**Why:** " << markdown_prose(s.predict_why, false) << "\n\n";
    }
}

}  // namespace

// Lesson prose stays Markdown with its raw HTML escaped (markdown_prose); titles, and everything
// a results file or the program's figures supply, are text and never become Markdown
// (markdown_text): handout.md is pasted into renderers that allow HTML and load images.
std::string handout_markdown(const HandoutInput& in) {
    const Lesson& L = *in.lesson;
    const bool student = in.edition == HandoutEdition::Student;
    std::ostringstream md;
    write_header(md, in);
    md << "## Steps\n\n";
    std::vector<std::pair<size_t, const LessonStep*>> answered;
    for (size_t i = 0; i < L.steps.size(); ++i) {
        const LessonStep& s = L.steps[i];
        md << "### " << (i + 1) << ". " << markdown_text(s.title) << "\n\n";
        if (!s.text.empty()) md << markdown_prose(demote_headings(s.text, 3)) << "\n";
        // A prediction's figure waits for after the steps (write_reveals), and so does one that
        // draws a run a later step asks to predict.
        if (s.predict_metric.empty() && i < in.step_figures.size() && !in.step_figures[i].title.empty()) {
            if (in.step_figures[i].waits)
                md << "*Figure " << (i + 1)
                   << " follows the predictions: it shows runs that a later step asks you to predict.*\n\n";
            else
                write_figure(md, in, i);
        }
        if (!s.look_at.empty()) md << "**Look at:** " << markdown_prose(s.look_at, false) << "\n\n";
        if (s.predict_metric.empty()) write_timeline(md, in, i);  // a predict step's: after the steps
        if (s.tool == "calculator")                               // [calculator] the window's table, at its defaults
            md << "**Calculator** (GPT-2 small on " << in.calculator.gpus
               << " GPUs; rates: " << markdown_text(in.calculator_source) << "):\n\n"
               << calculator_markdown(in.calculator) << "\n";
        write_predictions(md, in, i);
        if (!s.question.empty() && !s.answer.empty()) answered.push_back({i, &s});
    }
    write_reveals(md, in);
    if (!student && !answered.empty()) {
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
