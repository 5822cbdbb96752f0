// Lesson Markdown -> a small document model (blocks of styled text runs), parsed with md4c.
// The model holds no ImGui: the step-text panel lays it out and draws it; tests read it.
//
// - Supported: headings, paragraphs, emphasis, strong, inline code, code blocks, bullet and
//   numbered lists (nested), block quotes, tables, links, rules, hard and soft breaks.
// - Everything else (raw HTML, images, math, wiki links) degrades to its plain text: a lesson
//   never shows a blank where a construct was not understood.
#pragma once
#include <string>
#include <vector>

namespace kl::gui::md {

enum SpanStyle : unsigned {
    kPlain = 0,
    kStrong = 1u << 0,
    kEmphasis = 1u << 1,
    kCode = 1u << 2,
    kLink = 1u << 3,
    kStrike = 1u << 4,
};

struct Span {
    std::string text;  // UTF-8; "\n" is a hard line break
    unsigned style = kPlain;
    std::string url;  // for kLink
};

using Inline = std::vector<Span>;

struct Block {
    enum class Kind { Paragraph, Heading, CodeBlock, ListItem, Table, Rule } kind = Kind::Paragraph;
    int level = 0;         // heading level 1..6; list nesting depth (1 = top level)
    int quote_depth = 0;   // inside how many block quotes
    std::string marker;    // list item marker: "•", "◦", "3."; empty for a continuation paragraph
    Inline spans;          // Paragraph, Heading, ListItem
    std::string code;      // CodeBlock text (no trailing newline)
    std::string language;  // CodeBlock info string ("cuda", "text", ...)
    // Table: rows of cells, row 0 is the header; align per column: 0 left, 1 centre, 2 right.
    std::vector<std::vector<Inline>> rows;
    std::vector<int> align;
};

struct Document {
    std::vector<Block> blocks;
    std::string error;  // set when md4c refused the text; blocks then hold it as plain text
};

Document parse(const std::string& markdown);

// The document's text without markup (tests, search).
std::string plain_text(const Inline& spans);

}  // namespace kl::gui::md
