#include "model/include_scan.h"

#include "base/confined_path.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/paths.h"

namespace fs = std::filesystem;

namespace kl {

namespace {

// The text with its line splices (backslash-newline) removed, as the preprocessor sees it, and
// for each logical line the stored line it starts on (for messages).
struct Spliced {
    std::string text;
    std::vector<int> line_start;
};

Spliced splice_lines(const std::string& in) {
    Spliced s;
    s.text.reserve(in.size());
    s.line_start.push_back(1);
    int line = 1;
    for (size_t i = 0; i < in.size(); ++i) {
        if (in[i] == '\\' && i + 1 < in.size() && in[i + 1] == '\n') {
            ++i, ++line;
            continue;
        }
        if (in[i] == '\\' && i + 2 < in.size() && in[i + 1] == '\r' && in[i + 2] == '\n') {
            i += 2, ++line;
            continue;
        }
        s.text += in[i];
        if (in[i] == '\n') s.line_start.push_back(++line);
    }
    return s;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || (c & 0x80); }
bool line_break(char c) { return c == '\n' || c == '\r'; }
bool hspace(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }

// A lexer that knows just enough C++ to find directives where the preprocessor finds them:
// comments, string and character literals (which end at a line break), raw strings, pp-numbers
// (with digit separators). A lone '\r' counts as a line break: where this lexer and NVRTC's could
// disagree, it sees more directives, never fewer. Lines that look like #include inside a comment
// or raw string are kept as `shadow` directives: checked for names that reach outside, not read.
class IncludeLexer {
  public:
    IncludeLexer(const Spliced& s, const std::string& path) : t_(s.text), starts_(s.line_start), path_(path) {}

    std::vector<IncludeDirective> run() {
        bool line_start = true;
        if (t_.compare(0, 3, "\xEF\xBB\xBF") == 0) i_ = 3;
        while (i_ < t_.size()) {
            const char c = t_[i_];
            if (line_break(c)) {
                newline(i_++);
                line_start = true;
            } else if (hspace(c)) {
                ++i_;
            } else if (c == '/' && peek(1) == '/') {
                while (i_ < t_.size() && !line_break(t_[i_])) ++i_;
            } else if (c == '/' && peek(1) == '*') {
                skip_block_comment(i_, true);
            } else if (line_start && (c == '#' || (c == '%' && peek(1) == ':'))) {
                i_ += c == '#' ? 1 : 2;
                directive(i_, false);
                line_start = false;
            } else {
                line_start = false;
                token();
            }
        }
        return std::move(out_);
    }

  private:
    char peek(size_t k) const { return i_ + k < t_.size() ? t_[i_ + k] : '\0'; }
    int line() const { return starts_[std::min(logical_, starts_.size() - 1)]; }
    void newline(size_t at) {
        if (t_[at] == '\n') ++logical_;
    }
    [[noreturn]] void refuse(const std::string& what) const {
        throw InputError(path_ + ":" + std::to_string(line()) + ": " + what);
    }

    void token() {
        const char c = t_[i_];
        if (c == '"' || c == '\'') return skip_literal(c);
        if (std::isdigit(static_cast<unsigned char>(c)) ||
            (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1)))))
            return skip_pp_number();
        if (!ident_char(c)) return void(++i_);
        const size_t from = i_;
        while (i_ < t_.size() && ident_char(t_[i_])) ++i_;
        const std::string id = t_.substr(from, i_ - from);
        if (i_ < t_.size() && t_[i_] == '"' && (id == "R" || id == "LR" || id == "uR" || id == "UR" || id == "u8R"))
            skip_raw_string();
        else if (id == "__has_include" || id == "__has_include_next")
            has_include();
    }

    // Up to the closing quote or the end of the line (an unterminated literal ends there).
    void skip_literal(char quote) {
        ++i_;
        while (i_ < t_.size() && !line_break(t_[i_])) {
            if (t_[i_] == '\\' && i_ + 1 < t_.size() && !line_break(t_[i_ + 1])) {
                i_ += 2;
                continue;
            }
            if (t_[i_++] == quote) return;
        }
        i_ = std::min(i_, t_.size());
    }

    void skip_pp_number() {
        ++i_;
        while (i_ < t_.size()) {
            const char c = t_[i_];
            if (ident_char(c) || c == '.')
                ++i_;
            else if (c == '\'' && i_ + 1 < t_.size() && std::isalnum(static_cast<unsigned char>(t_[i_ + 1])))
                i_ += 2;
            else if ((c == '+' || c == '-') && std::strchr("eEpP", t_[i_ - 1]))
                ++i_;
            else
                break;
        }
    }

    // From `at` (on "/*") past "*/"; each line inside is looked at for a shadow directive.
    void skip_block_comment(size_t& at, bool count_lines) {
        at += 2;
        while (at < t_.size() && t_.compare(at, 2, "*/") != 0) {
            if (line_break(t_[at])) {
                if (count_lines) newline(at);
                shadow_line(at + 1);
            }
            ++at;
        }
        at = std::min(at + 2, t_.size());
    }

    void skip_raw_string() {
        const size_t open = t_.find('(', i_ + 1);
        const std::string delim = open == std::string::npos ? "" : t_.substr(i_ + 1, open - i_ - 1);
        if (open == std::string::npos || delim.size() > 16 ||
            delim.find_first_of(" \t\v\f\n\r\\)") != std::string::npos)
            return skip_literal('"');  // not a raw string after all
        const std::string end = ")" + delim + "\"";
        for (i_ = open + 1; i_ < t_.size() && t_.compare(i_, end.size(), end) != 0; ++i_)
            if (line_break(t_[i_])) newline(i_), shadow_line(i_ + 1);
        i_ = std::min(i_ + end.size(), t_.size());
    }

    // Spaces, tabs and comments within a directive (a block comment may run over lines).
    void skip_directive_space(size_t& at) {
        for (;;) {
            while (at < t_.size() && hspace(t_[at])) ++at;
            if (t_.compare(at, 2, "/*") != 0) return;
            skip_block_comment(at, !shadowing_);
        }
    }

    // At `at`, just past '#': an #include (or #include_next, #import) is recorded; other
    // directives are left to the main loop, which lexes the rest of their line.
    void directive(size_t& at, bool shadow) {
        skip_directive_space(at);
        const size_t from = at;
        while (at < t_.size() && ident_char(t_[at])) ++at;
        const std::string id = t_.substr(from, at - from);
        if (id != "include" && id != "include_next" && id != "import") return;
        skip_directive_space(at);
        if (at >= t_.size() || line_break(t_[at])) return;  // NVRTC's own error: no name
        if (!read_name(at, shadow) && !shadow)
            refuse("#" + id + " " + t_.substr(at, std::min(t_.find_first_of("\r\n", at), at + 60) - at) +
                   ": only #include \"file\" and #include <file> are allowed (a macro could name any file)");
    }

    // "name" or <name> at `at`: recorded and stepped over. False when something else is there.
    bool read_name(size_t& at, bool shadow, bool test = false) {
        const char open = t_[at];
        if (open != '"' && open != '<') return false;
        const size_t close = t_.find_first_of(open == '"' ? "\"\r\n" : ">\r\n", at + 1);
        if (close == std::string::npos || line_break(t_[close])) return true;  // unterminated: NVRTC says so
        out_.push_back({t_.substr(at + 1, close - at - 1), open == '<', line(), shadow, test});
        at = close + 1;
        return true;
    }

    void has_include() {
        size_t at = i_;
        while (at < t_.size() && hspace(t_[at])) ++at;
        if (at >= t_.size() || t_[at] != '(') return;  // `defined(__has_include)` and the like
        ++at;
        while (at < t_.size() && hspace(t_[at])) ++at;
        if (at >= t_.size() || !read_name(at, false, true))
            refuse("__has_include of a macro: only __has_include(\"file\") and __has_include(<file>) are allowed");
        i_ = std::max(i_, std::min(at, t_.size()));
    }

    // A line inside a comment or raw string that reads like a directive: kept as a shadow.
    void shadow_line(size_t at) {
        if (shadowing_) return;
        shadowing_ = true;
        while (at < t_.size() && hspace(t_[at])) ++at;
        if (at < t_.size() && (t_[at] == '#' || t_.compare(at, 2, "%:") == 0)) {
            at += t_[at] == '#' ? 1 : 2;
            directive(at, true);
        }
        shadowing_ = false;
    }

    const std::string& t_;
    const std::vector<int>& starts_;
    const std::string& path_;
    size_t i_ = 0, logical_ = 0;
    bool shadowing_ = false;
    std::vector<IncludeDirective> out_;
};

// `#include "name"`, `__has_include(<name>)`: the directive as a message quotes it.
std::string spelled(const IncludeDirective& d) {
    const std::string quoted = (d.angle ? "<" : "\"") + d.name + (d.angle ? ">" : "\"");
    return d.test ? "__has_include(" + quoted + ")" : "#include " + quoted;
}

struct Found {
    std::string path;
    bool beside_includer = false;
};

// Looks one name up; throws InputError naming the includer and line when what it finds is not
// a regular file inside the roots, or when a name left to NVRTC could reach outside CUDA's folder.
class Resolver {
  public:
    explicit Resolver(const IncludeSearch& s) : search_(s) {
        std::error_code ec;
        for (const auto& r : s.roots)
            if (fs::path real = fs::canonical(r, ec); !ec) roots_.push_back(real);
    }

    std::optional<Found> find(const IncludeDirective& d, const std::string& includer) const {
        const std::string where = includer + ":" + std::to_string(d.line) + ": " + spelled(d) + ": ";
        if (d.name.empty()) throw InputError(where + "an empty file name");
        if (fs::path(d.name).is_absolute())
            throw InputError(where +
                             "an absolute path; include files beside the source, in kernels/common or in "
                             "the rung's folder");
        if (d.shadow) return check_left_to_nvrtc(d, where), std::nullopt;
        std::vector<std::pair<fs::path, bool>> dirs;
        if (!d.angle) dirs.emplace_back(fs::path(includer).parent_path(), true);
        for (const auto& dir : search_.dirs) dirs.emplace_back(dir, false);
        for (const auto& [dir, beside] : dirs) {
            const fs::path joined = (dir.empty() ? fs::path(".") / d.name : dir / d.name).lexically_normal();
            struct stat st {};
            if (::stat(joined.c_str(), &st) != 0) {
                if (errno == ENOENT || errno == ENOTDIR) continue;
                throw InputError(where + joined.string() + ": " + std::strerror(errno));
            }
            if (!S_ISREG(st.st_mode))
                throw InputError(where + joined.string() + " is " + file_kind_name(st.st_mode) +
                                 ", not a regular file");
            std::error_code ec;
            const fs::path real = fs::canonical(joined, ec);
            if (ec) throw InputError(where + joined.string() + ": " + ec.message());
            if (std::none_of(roots_.begin(), roots_.end(), [&](const fs::path& r) { return path_is_under(r, real); }))
                throw InputError(where + joined.string() +
                                 (fs::absolute(joined) == real ? " lies" : " is a link to " + real.string() + ",") +
                                 " outside " + roots_text());
            return Found{joined.string(), beside};
        }
        check_left_to_nvrtc(d, where);
        return std::nullopt;
    }

  private:
    // NVRTC looks a name the scan did not find up in CUDA's include folder only: refused when
    // that lookup would leave the folder to reach a file that exists.
    void check_left_to_nvrtc(const IncludeDirective& d, const std::string& where) const {
        if (search_.system_dir.empty() || d.name.find("..") == std::string::npos) return;
        const fs::path base = fs::path(search_.system_dir).lexically_normal();
        const fs::path joined = (base / d.name).lexically_normal();
        struct stat st {};
        if (!path_is_under(base, joined) && ::stat(joined.c_str(), &st) == 0)
            throw InputError(where + "leads out of CUDA's include folder to " + joined.string());
    }

    std::string roots_text() const {
        std::string s;
        for (const auto& r : roots_) s += (s.empty() ? "" : " and ") + r.string();
        return s.empty() ? "the tree" : s;
    }

    const IncludeSearch& search_;
    std::vector<fs::path> roots_;
};

}  // namespace

void refuse_nul_bytes(const std::string& text, const std::string& path) {
    const size_t nul = text.find('\0');
    if (nul == std::string::npos) return;
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(nul), '\n');
    throw InputError(path + ":" + std::to_string(line) +
                     ": a NUL byte in the source (NVRTC would silently ignore everything after it)");
}

IncludeSearch rung_include_search(const std::string& source_path) {
    const std::string folder = fs::path(source_path).parent_path().string();
    return {{kernels_dir() + "/common", folder}, {kernels_dir(), folder}, cuda_include_dir()};
}

std::vector<IncludeDirective> find_includes(const std::string& text, const std::string& path) {
    refuse_nul_bytes(text, path);
    const Spliced s = splice_lines(text);
    return IncludeLexer(s, path).run();
}

ScannedSource scan_source(const std::string& source_path, const IncludeSearch& search) {
    ScannedSource out;
    out.path = source_path;
    out.text = read_file(source_path);
    const Resolver resolver(search);
    std::map<std::string, size_t> by_name;  // index in out.headers
    size_t total = out.text.size();
    std::deque<std::pair<std::string, std::string>> todo{{source_path, out.text}};  // (path, text)
    while (!todo.empty()) {
        const auto [includer, text] = std::move(todo.front());
        todo.pop_front();
        for (const IncludeDirective& d : find_includes(text, includer)) {
            const std::optional<Found> f = resolver.find(d, includer);
            if (!f) continue;
            const std::string at = includer + ":" + std::to_string(d.line) + ": " + spelled(d) + ": ";
            if (auto it = by_name.find(d.name); it != by_name.end()) {
                const IncludedFile& first = out.headers[it->second];
                std::error_code ec;
                if (!fs::equivalent(first.path, f->path, ec))
                    throw InputError(at + "names " + f->path + " here but " + first.path + " in " + first.includer +
                                     ": NVRTC is given one file per include name");
                continue;
            }
            if (by_name.size() >= kMaxIncludedFiles)
                throw InputError(at + "more than " + std::to_string(kMaxIncludedFiles) + " included files");
            IncludedFile h{d.name, f->path, read_file(f->path), includer, d.line, f->beside_includer};
            total += h.text.size();
            if (total > static_cast<size_t>(kMaxReadBytes))
                throw InputError(at + "the included files come to more than the read limit");
            todo.emplace_back(h.path, h.text);
            by_name.emplace(d.name, out.headers.size());
            out.headers.push_back(std::move(h));
        }
    }
    return out;
}

}  // namespace kl
