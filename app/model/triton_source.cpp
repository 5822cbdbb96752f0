#include "model/triton_source.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <set>

#include "base/atomic_file.h"
#include "base/errors.h"

namespace kl {

namespace {

// Names that reach the host from Python code: builtins that run code, open files or walk objects,
// and the modules and functions that start programs. The helper's FORBIDDEN_NAMES
// (app/model/triton_helper/kl_triton_compile.py) is the same list: keep the two equal.
const std::set<std::string> kForbiddenNames = {"eval",       "exec",     "compile",   "open",   "getattr",    "setattr",
                                               "delattr",    "globals",  "locals",    "vars",   "breakpoint", "help",
                                               "memoryview", "type",     "object",    "super",  "os",         "sys",
                                               "subprocess", "builtins", "importlib", "ctypes", "shutil",     "socket",
                                               "pickle",     "marshal",  "inspect",   "system", "popen"};
// Statements a kernel's body may not hold (the helper refuses the same ast nodes).
const std::set<std::string> kBodyKeywords = {"import", "from",     "class", "lambda", "def",
                                             "global", "nonlocal", "async", "await",  "yield"};
const std::set<std::string> kKeywords = {"False",  "None",   "True",    "and",      "as",       "assert", "async",
                                         "await",  "break",  "class",   "continue", "def",      "del",    "elif",
                                         "else",   "except", "finally", "for",      "from",     "global", "if",
                                         "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
                                         "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};
const char* const kTopLevelRule =
    "a Triton rung's top level holds only `import triton`, `import triton.language as tl`, `import math`, "
    "@triton.jit functions and constants (NAME = literal or tl.constexpr(literal))";

enum class Kind { Name, Number, String, Op };
struct Token {
    Kind kind;
    std::string text;  // a String's text is left out: nothing is decided by it
    int line;
};
// A logical line: physical lines joined by brackets and backslashes.
struct Statement {
    int line = 0;
    bool indented = false;  // as Python counts it: any space or tab before the first token
    std::vector<Token> tokens;
};

std::string hex_byte(unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", c);
    return buf;
}

bool is_name_start(unsigned char c) { return std::isalpha(c) || c == '_'; }
bool is_name_char(unsigned char c) { return std::isalnum(c) || c == '_'; }

// String prefixes whose strings hold no code (f, t and their mixes evaluate {...} parts).
bool plain_string_prefix(std::string p) {
    for (char& c : p) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return p == "r" || p == "u" || p == "b" || p == "br" || p == "rb";
}

class Tokenizer {
  public:
    Tokenizer(const std::string& text, const std::string& path) : s_(text), path_(path) {}

    std::vector<Statement> run() {
        if (s_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;
        check_nul();
        check_encoding_declaration();
        while (pos_ < s_.size()) step();
        if (depth_ > 0) fail(depth_line_, "a bracket that is never closed");
        end_statement();
        return std::move(out_);
    }

    [[noreturn]] void fail(int line, const std::string& what) const {
        throw InputError(path_ + ":" + std::to_string(line) + ": " + what);
    }

  private:
    bool at(size_t i, char c) const { return i < s_.size() && s_[i] == c; }
    bool newline_at(size_t i) const { return at(i, '\n') || at(i, '\r'); }
    unsigned char byte(size_t i) const { return i < s_.size() ? static_cast<unsigned char>(s_[i]) : 0; }
    void skip_newline() {
        pos_ += at(pos_, '\r') && at(pos_ + 1, '\n') ? 2 : 1;
        ++line_;
    }
    void push(Kind k, std::string text, int line) { cur_.tokens.push_back({k, std::move(text), line}); }
    void end_statement() {
        if (!cur_.tokens.empty()) out_.push_back(std::move(cur_));
        cur_ = Statement{};
    }

    void check_nul() const {
        const size_t nul = s_.find('\0');
        if (nul == std::string::npos) return;
        int line = 1;
        for (size_t i = 0; i < nul; ++i)
            if (s_[i] == '\n' || (s_[i] == '\r' && !at(i + 1, '\n'))) ++line;
        fail(line, "a NUL byte");
    }

    // Python honours "coding: NAME" in a comment on line 1 or 2; another codec (utf-7...) would
    // make Python read code where this tokenizer reads a comment.
    void check_encoding_declaration() const {
        size_t start = pos_;
        for (int line = 1; line <= 2 && start < s_.size(); ++line) {
            size_t end = start;
            while (end < s_.size() && !newline_at(end)) ++end;
            const std::string text = s_.substr(start, end - start);
            for (size_t at = text.find("coding"); at != std::string::npos; at = text.find("coding", at + 1)) {
                size_t i = at + 6;
                if (i >= text.size() || (text[i] != ':' && text[i] != '=')) continue;
                ++i;
                while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
                std::string name;
                while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '-' ||
                                           text[i] == '_' || text[i] == '.'))
                    name += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i++])));
                for (char& c : name)
                    if (c == '_') c = '-';
                if (name != "utf-8" && name != "utf8" && name.rfind("utf-8-", 0) != 0)
                    fail(line, "a source encoding declaration other than UTF-8 ('coding" + text.substr(at + 6, 1) +
                                   " " + name.substr(0, 40) + "')");
            }
            start = end < s_.size() ? end + (at(end, '\r') && at(end + 1, '\n') ? 2 : 1) : end;
        }
    }

    void step() {
        const unsigned char c = byte(pos_);
        if (line_start_) {
            const size_t from = pos_;
            while (at(pos_, ' ') || at(pos_, '\t')) ++pos_;
            cur_.indented = pos_ > from;
            cur_.line = line_;
            line_start_ = false;
        } else if (c == '\n' || c == '\r') {
            skip_newline();
            if (depth_ == 0) end_statement(), line_start_ = true;
        } else if (c == ' ' || c == '\t') {
            ++pos_;
        } else if (c == '#') {
            while (pos_ < s_.size() && !newline_at(pos_)) ++pos_;
        } else if (c == '\\') {
            if (!newline_at(pos_ + 1)) fail(line_, "a backslash outside a string that does not end the line");
            ++pos_;
            skip_newline();
        } else if (c >= 0x80) {
            fail(line_, "a non-ASCII character outside strings and comments (byte " + hex_byte(c) + ")");
        } else if (c < 0x20 || c == 0x7f) {
            fail(line_, "the control character " + hex_byte(c) + " outside strings and comments");
        } else if (is_name_start(c)) {
            read_name();
        } else if (std::isdigit(c) || (c == '.' && std::isdigit(byte(pos_ + 1)))) {
            read_number();
        } else if (c == '\'' || c == '"') {
            read_string();
        } else {
            read_op();
        }
    }

    void read_name() {
        const size_t from = pos_;
        while (pos_ < s_.size() && is_name_char(byte(pos_))) ++pos_;
        std::string name = s_.substr(from, pos_ - from);
        if (at(pos_, '\'') || at(pos_, '"')) {
            if (!plain_string_prefix(name))
                fail(line_, "a string right after '" + name.substr(0, 20) +
                                "' (string prefixes are r, b and u: f- and t-strings run the code in their {...})");
            read_string();
            return;
        }
        push(Kind::Name, std::move(name), line_);
    }

    void digits(const char* extra) {
        while (pos_ < s_.size() && (std::isdigit(byte(pos_)) || byte(pos_) == '_' ||
                                    (byte(pos_) != 0 && std::strchr(extra, s_[pos_]) != nullptr)))
            ++pos_;
    }

    // As Python reads a number, so that a name right after one (1if, 0x1for) stays a name.
    void read_number() {
        const size_t from = pos_;
        const char base = at(pos_, '0') ? static_cast<char>(std::tolower(byte(pos_ + 1))) : 0;
        if (base == 'x' || base == 'o' || base == 'b') {
            pos_ += 2;
            digits(base == 'x' ? "abcdefABCDEF" : "");
        } else {
            digits("");
            if (at(pos_, '.')) ++pos_, digits("");
            const size_t sign = at(pos_ + 1, '+') || at(pos_ + 1, '-') ? 1 : 0;
            if ((at(pos_, 'e') || at(pos_, 'E')) && std::isdigit(byte(pos_ + 1 + sign))) pos_ += 1 + sign, digits("");
            if (at(pos_, 'j') || at(pos_, 'J')) ++pos_;
        }
        push(Kind::Number, s_.substr(from, pos_ - from), line_);
    }

    // A backslash always takes the next character (in raw strings too: r"\"" is one string).
    void read_string() {
        const char q = s_[pos_];
        const bool triple = at(pos_ + 1, q) && at(pos_ + 2, q);
        const int first = line_;
        pos_ += triple ? 3 : 1;
        for (;;) {
            if (pos_ >= s_.size()) fail(first, "a string that is never closed");
            const char c = s_[pos_];
            if (c == '\\') {
                ++pos_;
                if (newline_at(pos_))
                    skip_newline();
                else if (pos_ < s_.size())
                    ++pos_;
            } else if (c == '\n' || c == '\r') {
                if (!triple) fail(first, "a string that is never closed");
                skip_newline();
            } else if (c == q && (!triple || (at(pos_ + 1, q) && at(pos_ + 2, q)))) {
                pos_ += triple ? 3 : 1;
                break;
            } else {
                ++pos_;
            }
        }
        push(Kind::String, "", first);
    }

    void read_op() {
        static const std::set<std::string> longer = {
            "**=", "//=", ">>=", "<<=", "...", "->", "**", "==", "!=", "<=", ">=", "//",
            "<<",  ">>",  ":=",  "+=",  "-=",  "*=", "/=", "%=", "&=", "|=", "^=", "@="};
        for (size_t n : {3, 2})
            if (longer.count(s_.substr(pos_, n))) {
                push(Kind::Op, s_.substr(pos_, n), line_);
                pos_ += n;
                return;
            }
        const char c = s_[pos_];
        if (std::string("()[]{}:,.;@=+-*/%&|^~<>").find(c) == std::string::npos)
            fail(line_, std::string("the character '") + c + "' outside strings");
        if (c == ';') fail(line_, "';' (one statement per line)");
        if (c == '(' || c == '[' || c == '{') {
            if (depth_++ == 0) depth_line_ = line_;
        } else if (c == ')' || c == ']' || c == '}') {
            if (depth_ == 0) fail(line_, std::string("a '") + c + "' that closes nothing");
            --depth_;
        }
        push(Kind::Op, std::string(1, c), line_);
        ++pos_;
    }

    const std::string& s_;
    std::string path_;
    size_t pos_ = 0;
    int line_ = 1, depth_ = 0, depth_line_ = 0;
    bool line_start_ = true;
    Statement cur_;
    std::vector<Statement> out_;
};

bool is(const std::vector<Token>& t, size_t i, Kind k, const char* text = nullptr) {
    return i < t.size() && t[i].kind == k && (!text || t[i].text == text);
}
bool op(const std::vector<Token>& t, size_t i, const char* text) { return is(t, i, Kind::Op, text); }

// The end of a literal starting at i (a signed number, strings, True, False, None), or 0.
size_t literal_end(const std::vector<Token>& t, size_t i) {
    if ((op(t, i, "-") || op(t, i, "+")) && is(t, i + 1, Kind::Number)) return i + 2;
    if (is(t, i, Kind::Number)) return i + 1;
    if (is(t, i, Kind::Name, "True") || is(t, i, Kind::Name, "False") || is(t, i, Kind::Name, "None")) return i + 1;
    size_t j = i;
    while (is(t, j, Kind::String)) ++j;
    return j > i ? j : 0;
}

bool is_tl_constexpr(const std::vector<Token>& t, size_t i) {
    return is(t, i, Kind::Name, "tl") && op(t, i + 1, ".") && is(t, i + 2, Kind::Name, "constexpr");
}

// The rules on a file's statements; the tokenizer has split it.
class Rules {
  public:
    explicit Rules(const Tokenizer& tz) : tz_(tz) {}

    std::vector<std::string> check(const std::vector<Statement>& statements) {
        for (const Statement& st : statements) {
            if (st.indented) {
                if (!body_open_) tz_.fail(st.line, "an indented line outside a @triton.jit function's body");
                check_names(st.tokens, 0, true);
                continue;
            }
            body_open_ = false;
            if (decorator_line_ && !is(st.tokens, 0, Kind::Name, "def"))
                tz_.fail(decorator_line_, "@triton.jit is not followed by a function");
            top_level(st);
        }
        if (decorator_line_) tz_.fail(decorator_line_, "@triton.jit is not followed by a function");
        return kernels_;
    }

  private:
    void check_names(const std::vector<Token>& t, size_t from, bool body) const {
        if (body && op(t, 0, "@")) tz_.fail(t[0].line, "a decorator inside a function");
        for (size_t i = from; i < t.size(); ++i) {
            if (t[i].kind != Kind::Name) continue;
            const std::string& n = t[i].text;
            if (n.rfind("__", 0) == 0 || kForbiddenNames.count(n))
                tz_.fail(t[i].line, "'" + n + "' is not allowed in a Triton rung (it reaches the host, not the GPU)");
            if (body && kBodyKeywords.count(n)) tz_.fail(t[i].line, "'" + n + "' inside a @triton.jit function");
            if (n == "triton") tz_.fail(t[i].line, "'triton' outside the imports and @triton.jit (kernels use tl)");
        }
    }

    void top_level(const Statement& st) {
        const std::vector<Token>& t = st.tokens;
        if (is(t, 0, Kind::Name, "import")) return import_line(st);
        if (op(t, 0, "@")) {
            if (t.size() != 4 || !is(t, 1, Kind::Name, "triton") || !op(t, 2, ".") || !is(t, 3, Kind::Name, "jit"))
                tz_.fail(st.line, "a decorator other than @triton.jit");
            decorator_line_ = st.line;
            return;
        }
        if (is(t, 0, Kind::Name, "def")) return function_header(st);
        if (is(t, 0, Kind::Name) && !kKeywords.count(t[0].text) && op(t, 1, "=")) {
            size_t end = literal_end(t, 2);
            if (!end && is_tl_constexpr(t, 2) && op(t, 5, "(")) {
                end = literal_end(t, 6);
                end = end && op(t, end, ")") ? end + 1 : 0;
            }
            check_names(t, 0, false);
            if (end && end == t.size()) return;
        }
        if (literal_end(t, 0) == t.size() && is(t, 0, Kind::String)) return;  // a docstring
        tz_.fail(st.line, describe(t) + " at the top level: " + kTopLevelRule);
    }

    void import_line(const Statement& st) const {
        const std::vector<Token>& t = st.tokens;
        std::string text;
        for (const Token& k : t) text += (text.empty() || k.kind == Kind::Op || text.back() == '.' ? "" : " ") + k.text;
        if (text != "import triton" && text != "import triton.language as tl" && text != "import math")
            tz_.fail(st.line, "'" + text.substr(0, 80) +
                                  "': a Triton rung imports only triton, triton.language as tl "
                                  "and math");
    }

    void function_header(const Statement& st) {
        const std::vector<Token>& t = st.tokens;
        if (!decorator_line_) tz_.fail(st.line, "a function without @triton.jit: " + std::string(kTopLevelRule));
        decorator_line_ = 0;
        if (!is(t, 1, Kind::Name) || kKeywords.count(t[1].text) || !op(t, 2, "("))
            tz_.fail(st.line, "a def that is not NAME(parameters):");
        size_t close = 3;
        for (int depth = 1; close < t.size(); ++close) {
            if (op(t, close, "(") || op(t, close, "[") || op(t, close, "{")) ++depth;
            if ((op(t, close, ")") || op(t, close, "]") || op(t, close, "}")) && --depth == 0) break;
        }
        parameters(t, 3, close, st.line);
        if (op(t, close + 1, "->")) tz_.fail(st.line, "a return annotation on '" + t[1].text + "' (it runs on import)");
        if (!op(t, close + 1, ":")) tz_.fail(st.line, "a def that is not NAME(parameters):");
        check_names(t, 0, false);
        check_names(t, close + 2, true);  // a body on the same line
        body_open_ = close + 2 == t.size();
        kernels_.push_back(t[1].text);
    }

    // NAME or NAME: tl.constexpr, either with = literal; a trailing comma.
    void parameters(const std::vector<Token>& t, size_t from, size_t close, int line) const {
        const std::string rule = "a parameter that is not NAME or NAME: tl.constexpr, with an optional literal default";
        for (size_t i = from; i < close;) {
            if (!is(t, i, Kind::Name) || kKeywords.count(t[i].text)) tz_.fail(line, rule);
            ++i;
            if (op(t, i, ":")) {
                if (!is_tl_constexpr(t, i + 1)) tz_.fail(line, rule);
                i += 4;
            }
            if (op(t, i, "=")) {
                i = literal_end(t, i + 1);
                if (!i) tz_.fail(line, rule);
            }
            if (i == close) return;
            if (!op(t, i, ",")) tz_.fail(line, rule);
            ++i;  // a trailing comma ends the loop
        }
    }

    static std::string describe(const std::vector<Token>& t) {
        if (is(t, 0, Kind::Name) && kKeywords.count(t[0].text)) return "'" + t[0].text + " ...'";
        for (size_t i = 0; i < t.size(); ++i)
            if (op(t, i, "(") && i > 0 && (t[i - 1].kind == Kind::Name || op(t, i - 1, ")") || op(t, i - 1, "]"))) {
                std::string head;
                for (size_t j = 0; j < i && j < 8; ++j) head += t[j].kind == Kind::String ? "'...'" : t[j].text;
                return "a call (" + head + "(...))";
            }
        for (const Token& k : t)
            if (k.kind == Kind::Op && k.text.back() == '=' && k.text != "==" && k.text != "!=" && k.text != "<=" &&
                k.text != ">=")
                return "an assignment of something other than a literal";
        return "an expression";
    }

    const Tokenizer& tz_;
    bool body_open_ = false;
    int decorator_line_ = 0;
    std::vector<std::string> kernels_;
};

}  // namespace

const std::set<std::string>& triton_forbidden_names() { return kForbiddenNames; }

std::vector<std::string> check_triton_source(const std::string& text, const std::string& path) {
    Tokenizer tz(text, path);
    const std::vector<Statement> statements = tz.run();
    return Rules(tz).check(statements);
}

std::string read_checked_triton_source(const std::string& path, std::vector<std::string>* kernels) {
    std::string text = read_file(path);
    if (text.size() > kMaxTritonSourceBytes)
        throw InputError(path + ": " + std::to_string(text.size()) + " bytes; a Triton rung's source is at most 1 MiB");
    std::vector<std::string> names = check_triton_source(text, path);
    if (kernels) *kernels = std::move(names);
    return text;
}

}  // namespace kl
