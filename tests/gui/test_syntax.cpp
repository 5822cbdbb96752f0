// The tokenizer behind the coloured source and PTX views.
#include <gtest/gtest.h>

#include "gui/syntax.h"

using namespace kl::gui;

namespace {
TokenKind kind_at(const std::string& line, const std::string& word, Language lang = Language::Cuda) {
    LexState st;
    size_t pos = line.find(word);
    for (const auto& t : tokenize_line(line, lang, st))
        if (t.begin <= pos && pos < t.end) return t.kind;
    return TokenKind::Plain;
}
}  // namespace

TEST(Syntax, CudaTokens) {
    std::string l = "extern \"C\" __global__ void k(float* x, int n) { int i = blockIdx.x * TPB + 3; }  // tail";
    EXPECT_EQ(kind_at(l, "__global__"), TokenKind::Keyword);
    EXPECT_EQ(kind_at(l, "float"), TokenKind::Type);
    EXPECT_EQ(kind_at(l, "blockIdx"), TokenKind::Builtin);
    EXPECT_EQ(kind_at(l, "TPB"), TokenKind::Parameter);
    EXPECT_EQ(kind_at(l, "3;"), TokenKind::Number);
    EXPECT_EQ(kind_at(l, "\"C\""), TokenKind::String);
    EXPECT_EQ(kind_at(l, "// tail"), TokenKind::Comment);
    EXPECT_EQ(kind_at("#include \"kl_common.cuh\"", "include"), TokenKind::Preprocessor);
}

TEST(Syntax, TokensCoverTheLineInOrder) {
    std::string l = "for (int j = 0; j < EPT; ++j) c[i] = 1.5e-3f;";
    LexState st;
    size_t at = 0;
    for (const auto& t : tokenize_line(l, Language::Cuda, st)) {
        EXPECT_EQ(t.begin, at);
        at = t.end;
    }
    EXPECT_EQ(at, l.size());
}

TEST(Syntax, BlockCommentsCarryAcrossLines) {
    LexState st;
    auto a = tokenize_line("x = 1; /* starts", Language::Cuda, st);
    EXPECT_TRUE(st.in_block_comment);
    auto b = tokenize_line("still comment */ y", Language::Cuda, st);
    EXPECT_FALSE(st.in_block_comment);
    ASSERT_FALSE(b.empty());
    EXPECT_EQ(b.front().kind, TokenKind::Comment);
}

TEST(Syntax, PtxTokens) {
    std::string l = "\tld.global.f32 \t%f1, [%rd4];  // load";
    EXPECT_EQ(kind_at(l, "ld.global.f32", Language::Ptx), TokenKind::Keyword);
    EXPECT_EQ(kind_at(l, "%f1", Language::Ptx), TokenKind::Register);
    EXPECT_EQ(kind_at(".visible .entry k(", ".entry", Language::Ptx), TokenKind::Directive);
    EXPECT_EQ(kind_at(l, "// load", Language::Ptx), TokenKind::Comment);
}
