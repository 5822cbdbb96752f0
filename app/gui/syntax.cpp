#include "gui/syntax.h"

#include <cctype>
#include <unordered_set>

namespace kl::gui {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

TokenKind classify_cuda(const std::string& word) {
    static const std::unordered_set<std::string> keywords = {"if",
                                                             "else",
                                                             "for",
                                                             "while",
                                                             "do",
                                                             "return",
                                                             "break",
                                                             "continue",
                                                             "switch",
                                                             "case",
                                                             "default",
                                                             "const",
                                                             "constexpr",
                                                             "static",
                                                             "inline",
                                                             "extern",
                                                             "template",
                                                             "typename",
                                                             "struct",
                                                             "class",
                                                             "namespace",
                                                             "using",
                                                             "sizeof",
                                                             "static_assert",
                                                             "volatile",
                                                             "auto",
                                                             "goto",
                                                             "true",
                                                             "false",
                                                             "nullptr",
                                                             "__restrict__",
                                                             "__global__",
                                                             "__device__",
                                                             "__host__",
                                                             "__shared__",
                                                             "__constant__",
                                                             "__forceinline__",
                                                             "__launch_bounds__",
                                                             "__noinline__",
                                                             "asm",
                                                             "alignas",
                                                             "reinterpret_cast",
                                                             "static_cast",
                                                             "const_cast",
                                                             "unsigned",
                                                             "signed"};
    static const std::unordered_set<std::string> types = {
        "void",     "bool",    "char",          "short",          "int",     "long",    "float",    "double",
        "size_t",   "int8_t",  "int16_t",       "int32_t",        "int64_t", "uint8_t", "uint16_t", "uint32_t",
        "uint64_t", "float2",  "float4",        "int2",           "int4",    "uint2",   "uint4",    "half",
        "__half",   "__half2", "__nv_bfloat16", "__nv_bfloat162", "dim3",    "ELEM"};
    static const std::unordered_set<std::string> builtins = {"threadIdx",
                                                             "blockIdx",
                                                             "blockDim",
                                                             "gridDim",
                                                             "warpSize",
                                                             "__syncthreads",
                                                             "__syncwarp",
                                                             "__shfl_sync",
                                                             "__shfl_down_sync",
                                                             "__shfl_xor_sync",
                                                             "__shfl_up_sync",
                                                             "__ldg",
                                                             "atomicAdd",
                                                             "atomicMax",
                                                             "__expf",
                                                             "expf",
                                                             "tanhf",
                                                             "sqrtf",
                                                             "rsqrtf",
                                                             "fmaxf",
                                                             "fminf",
                                                             "__fdividef",
                                                             "max",
                                                             "min",
                                                             "__float2bfloat16",
                                                             "__bfloat162float",
                                                             "__float2half",
                                                             "__half2float",
                                                             "__fmaf_rn",
                                                             "fmaf",
                                                             "sinf",
                                                             "cosf",
                                                             "logf",
                                                             "__activemask",
                                                             "__ballot_sync"};
    if (keywords.count(word)) return TokenKind::Keyword;
    if (types.count(word)) return TokenKind::Type;
    if (builtins.count(word)) return TokenKind::Builtin;
    // UPPER_CASE names of two or more characters: rung parameters and macros.
    bool upper = word.size() >= 2;
    for (char c : word)
        upper &= std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
    if (upper) return TokenKind::Parameter;
    return TokenKind::Plain;
}

// Triton rungs: Python's keywords, the triton and tl modules as built-ins, UPPER_CASE constexprs.
// (tokenize_line: '#' starts a comment, '@' a decorator; '//' is integer division, '/*' no comment.)
TokenKind classify_python(const std::string& word) {
    static const std::unordered_set<std::string> keywords = {
        "def", "for", "in",  "if", "elif", "else",  "while",    "return", "import", "from", "as",
        "and", "or",  "not", "is", "pass", "break", "continue", "True",   "False",  "None", "lambda"};
    static const std::unordered_set<std::string> builtins = {"tl", "triton", "range", "min", "max", "float", "int"};
    if (keywords.count(word)) return TokenKind::Keyword;
    if (builtins.count(word)) return TokenKind::Builtin;
    if (word == "constexpr") return TokenKind::Type;
    return classify_cuda(word) == TokenKind::Parameter ? TokenKind::Parameter : TokenKind::Plain;
}

size_t scan_number(const std::string& s, size_t i) {
    size_t j = i;
    if (s.compare(i, 2, "0x") == 0 || s.compare(i, 2, "0X") == 0) {
        j += 2;
        while (j < s.size() && std::isxdigit(static_cast<unsigned char>(s[j]))) ++j;
    } else {
        while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.' || s[j] == '\'')) ++j;
        if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
            ++j;
            if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
            while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
        }
    }
    while (j < s.size() && (s[j] == 'f' || s[j] == 'F' || s[j] == 'u' || s[j] == 'U' || s[j] == 'l' || s[j] == 'L'))
        ++j;
    return j;
}

}  // namespace

std::vector<Token> tokenize_line(const std::string& s, Language lang, LexState& state) {
    std::vector<Token> out;
    auto push = [&](TokenKind k, size_t b, size_t e) {
        if (e <= b) return;
        if (!out.empty() && out.back().kind == k && out.back().end == b)
            out.back().end = e;
        else
            out.push_back({k, b, e});
    };
    size_t i = 0;
    if (state.in_block_comment) {
        size_t close = s.find("*/");
        if (close == std::string::npos) {
            push(TokenKind::Comment, 0, s.size());
            return out;
        }
        push(TokenKind::Comment, 0, close + 2);
        state.in_block_comment = false;
        i = close + 2;
    }
    size_t first = s.find_first_not_of(" \t");
    if (lang == Language::Cuda && first != std::string::npos && s[first] == '#' && i == 0) {
        // The whole directive, but a trailing comment keeps its own colour.
        size_t comment = s.find("//", first);
        push(TokenKind::Preprocessor, 0, comment == std::string::npos ? s.size() : comment);
        if (comment != std::string::npos) push(TokenKind::Comment, comment, s.size());
        return out;
    }
    while (i < s.size()) {
        char c = s[i];
        if (lang == Language::Python &&
            (c == '#' || c == '@' || s.compare(i, 2, "//") == 0 || s.compare(i, 2, "/*") == 0)) {
            const size_t end = c == '#' ? s.size() : c == '@' ? std::min(s.size(), s.find_first_of(" (", i)) : i + 1;
            push(c == '#' ? TokenKind::Comment : c == '@' ? TokenKind::Builtin : TokenKind::Plain, i, end);
            i = end;
            continue;
        }
        if (s.compare(i, 2, "//") == 0) {
            push(TokenKind::Comment, i, s.size());
            break;
        }
        if (s.compare(i, 2, "/*") == 0) {
            size_t close = s.find("*/", i + 2);
            if (close == std::string::npos) {
                push(TokenKind::Comment, i, s.size());
                state.in_block_comment = true;
                break;
            }
            push(TokenKind::Comment, i, close + 2);
            i = close + 2;
            continue;
        }
        if (c == '"' || c == '\'') {
            size_t j = i + 1;
            while (j < s.size() && s[j] != c) j += (s[j] == '\\') ? 2 : 1;
            j = std::min(j + 1, s.size());
            push(TokenKind::String, i, j);
            i = j;
            continue;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) ||
            (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])) &&
             lang != Language::Ptx)) {
            size_t j = scan_number(s, i);
            push(TokenKind::Number, i, j);
            i = j;
            continue;
        }
        if (lang == Language::Ptx && (c == '.' || c == '%')) {
            size_t j = i + 1;
            while (j < s.size() && (ident_char(s[j]) || s[j] == '.' || s[j] == '$')) ++j;
            push(c == '.' ? TokenKind::Directive : TokenKind::Register, i, j);
            i = j;
            continue;
        }
        if (ident_start(c) || (lang == Language::Ptx && c == '$')) {
            size_t j = i + 1;
            while (j < s.size() && (ident_char(s[j]) || (lang == Language::Ptx && (s[j] == '.' || s[j] == '$')))) ++j;
            std::string word = s.substr(i, j - i);
            TokenKind k = TokenKind::Plain;
            if (lang != Language::Ptx) {
                k = lang == Language::Cuda ? classify_cuda(word) : classify_python(word);
            } else {
                // PTX: the first word of an instruction line is the opcode (with its suffixes).
                size_t line_first = s.find_first_not_of(" \t");
                bool first_word =
                    i == line_first || (line_first != std::string::npos && s[line_first] == '@' && i > line_first &&
                                        s.find_first_not_of(" \t", s.find_first_of(" \t", line_first)) == i);
                k = first_word ? TokenKind::Keyword : TokenKind::Plain;
            }
            push(k, i, j);
            i = j;
            continue;
        }
        size_t j = i + 1;
        push(TokenKind::Plain, i, j);
        i = j;
    }
    return out;
}

}  // namespace kl::gui
