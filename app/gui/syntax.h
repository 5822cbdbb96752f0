// A small line tokenizer for colouring CUDA C++, PTX and (Triton rungs) Python in the source view. Not a parser: it
// knows comments, strings, numbers, preprocessor lines, keywords, CUDA built-ins and the
// UPPER_CASE names that rung parameters arrive as (-DTPB=256), which is what a reader scans for.
#pragma once
#include <string>
#include <vector>

namespace kl::gui {

enum class TokenKind {
    Plain,
    Keyword,
    Type,
    Builtin,
    Parameter,
    Number,
    String,
    Comment,
    Preprocessor,
    Directive,
    Register
};

struct Token {
    TokenKind kind = TokenKind::Plain;
    size_t begin = 0, end = 0;  // byte range in the line
};

enum class Language { Cuda, Ptx, Python };  // Python: the source of Triton rungs

// State carried from line to line (an open block comment).
struct LexState {
    bool in_block_comment = false;
};

std::vector<Token> tokenize_line(const std::string& line, Language lang, LexState& state);

}  // namespace kl::gui
