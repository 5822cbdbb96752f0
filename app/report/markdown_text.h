// Strings from lessons and results files placed in the Markdown handout. handout.md is pasted
// into wikis, issue trackers and chat, whose renderers may allow raw HTML and load remote images,
// so the Markdown edition is made safe itself, not only the HTML edition md4c makes from it.
#pragma once
#include <string>
#include <string_view>

namespace kl::report {

// A value that must never become Markdown or HTML (a device name, a title, a caption, a file
// name, an error): on one line (line breaks become spaces, other control characters visible
// escapes, see base/printable.h), every Markdown metacharacter backslash-escaped, & < >
// written as entities, and "://" and "www." broken so that no renderer links them.
// "![x](http://evil/x.png)" stays those characters.
std::string markdown_text(std::string_view text);

// Lesson prose (step text, summary, question, answer, look_at): its Markdown stays Markdown, but
// raw HTML is shown as text: outside code spans and fenced code, each < that would open a tag,
// a declaration or a processing instruction becomes &lt;. HTML comments (the lessons' own
// "<!-- reveal -->") and autolinks to http, https and mailto stay. `starts_line`: the text's
// first line begins a line of the handout (false after "**Predict:** ": no fence opens there).
std::string markdown_prose(std::string_view markdown, bool starts_line = true);

// A value shown as inline code in a GFM table cell (a kernel name, which C++ templates fill with
// < > and commas): fenced with more backticks than any run inside it, on one line, | escaped.
std::string markdown_code_cell(std::string_view text);

}  // namespace kl::report
