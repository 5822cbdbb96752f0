// The Markdown model of step texts: what md4c's events become, and plain-text fallbacks.
#include <gtest/gtest.h>

#include "gui/markdown.h"

using namespace kl::gui::md;

namespace {
const Block& only(const Document& d, Block::Kind kind) {
    for (const auto& b : d.blocks)
        if (b.kind == kind) return b;
    ADD_FAILURE() << "no block of the expected kind";
    static Block none;
    return none;
}
}  // namespace

TEST(Markdown, HeadingsAndParagraphs) {
    Document d = parse("# Title\n\nFirst paragraph\ncontinues here.\n\n## Second\n\nText.\n");
    ASSERT_EQ(d.blocks.size(), 4u);
    EXPECT_EQ(d.blocks[0].kind, Block::Kind::Heading);
    EXPECT_EQ(d.blocks[0].level, 1);
    EXPECT_EQ(plain_text(d.blocks[0].spans), "Title");
    EXPECT_EQ(d.blocks[1].kind, Block::Kind::Paragraph);
    EXPECT_EQ(plain_text(d.blocks[1].spans), "First paragraph continues here.");  // soft break -> space
    EXPECT_EQ(d.blocks[2].level, 2);
}

TEST(Markdown, InlineStyles) {
    Document d = parse("Plain **bold** *em* `code` ~~gone~~ [link](https://example.org).");
    const auto& spans = d.blocks.at(0).spans;
    auto style_of = [&](const std::string& text) {
        for (const auto& s : spans)
            if (s.text == text) return s.style;
        ADD_FAILURE() << "no span '" << text << "'";
        return 0u;
    };
    EXPECT_EQ(style_of("bold"), unsigned(kStrong));
    EXPECT_EQ(style_of("em"), unsigned(kEmphasis));
    EXPECT_EQ(style_of("code"), unsigned(kCode));
    EXPECT_EQ(style_of("gone"), unsigned(kStrike));
    EXPECT_EQ(style_of("link"), unsigned(kLink));
    for (const auto& s : spans)
        if (s.text == "link") { EXPECT_EQ(s.url, "https://example.org"); }
}

TEST(Markdown, CodeBlockKeepsTextAndLanguage) {
    Document d = parse("```cuda\nint i = threadIdx.x;\n  c[i] = a[i];\n```\n");
    const Block& b = only(d, Block::Kind::CodeBlock);
    EXPECT_EQ(b.language, "cuda");
    EXPECT_EQ(b.code, "int i = threadIdx.x;\n  c[i] = a[i];");
}

TEST(Markdown, ListsNestAndNumber) {
    Document d = parse("- one\n- two\n  - inner\n\n3. three\n4. four\n");
    std::vector<std::pair<std::string, int>> items;
    for (const auto& b : d.blocks)
        if (b.kind == Block::Kind::ListItem) items.push_back({b.marker, b.level});
    ASSERT_EQ(items.size(), 5u);
    EXPECT_EQ(items[0].second, 1);
    EXPECT_EQ(items[2].second, 2);
    EXPECT_NE(items[2].first, items[0].first);  // nested bullets look different
    EXPECT_EQ(items[3].first, "3.");
    EXPECT_EQ(items[4].first, "4.");
}

TEST(Markdown, TablesWithAlignment) {
    Document d = parse("| TPB | threads |\n|:---|---:|\n| 32 | 1,024 |\n| 64 | **2,048** |\n");
    const Block& t = only(d, Block::Kind::Table);
    ASSERT_EQ(t.rows.size(), 3u);
    ASSERT_EQ(t.rows[0].size(), 2u);
    EXPECT_EQ(plain_text(t.rows[0][1]), "threads");
    EXPECT_EQ(plain_text(t.rows[2][1]), "2,048");
    EXPECT_EQ(t.rows[2][1].at(0).style, unsigned(kStrong));
    ASSERT_EQ(t.align.size(), 2u);
    EXPECT_EQ(t.align[0], 0);
    EXPECT_EQ(t.align[1], 2);
}

TEST(Markdown, UnknownConstructsBecomePlainText) {
    Document d =
        parse("Inline <span>html</span>, an image ![alt text](x.png) and $math$.\n\n<div>\nraw block\n</div>\n");
    std::string all;
    for (const auto& b : d.blocks) all += plain_text(b.spans) + "\n";
    EXPECT_NE(all.find("html"), std::string::npos);
    EXPECT_NE(all.find("[image: alt text]"), std::string::npos);
    EXPECT_NE(all.find("$math$"), std::string::npos);
    EXPECT_NE(all.find("raw block"), std::string::npos);
    EXPECT_TRUE(d.error.empty());
}

TEST(Markdown, EntitiesAndBreaks) {
    Document d = parse("a &amp; b &lt; c &#215; d\\\nnext line");
    std::string t = plain_text(d.blocks.at(0).spans);
    EXPECT_EQ(t, "a & b < c \xC3\x97 d\nnext line");
}

TEST(Markdown, EmptyAndOddInputNeverCrash) {
    EXPECT_TRUE(parse("").blocks.empty());
    Document d = parse(std::string("text with a \0 nul", 17));
    EXPECT_FALSE(d.blocks.empty());
    parse("* \n-\n>\n```\nunterminated");
}
