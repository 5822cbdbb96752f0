// The lesson handout as print pages: handout.pdf beside handout.md and handout.html
// (`kladder export-lesson`, the window's Export lesson; docs/handouts.md). The handout's Markdown
// (handout_markdown with `print` set: no links to the figure files) is parsed with md4c and laid
// out with the page writer (page_writer.h): headings, paragraphs in plain, bold and code, lists,
// tables, code blocks, and each figure drawn as a vector figure where its image stands. Every
// page's footer names the lesson, the edition and the one device with its dates.
#pragma once
#include <map>
#include <string>

#include "plot/plot_model.h"

namespace kl::report {

struct HandoutPages {
    std::string pdf;         // the file's bytes
    std::string transcript;  // every line drawn, pages separated by "\f" (page_writer.h)
    int pages = 0;
};

// `figures`: the figure to draw for each image the Markdown names (its PNG's file name); an
// image not among them is printed as a line naming it. Throws InputError when md4c or cairo fail.
HandoutPages handout_pdf(const std::string& markdown, const std::map<std::string, plot::Figure>& figures,
                         const std::string& title, const std::string& footer, double figure_height_pt = 288,
                         const std::string& date = "");

}  // namespace kl::report
