#include "cli_common.h"

#include <cmath>
#include <filesystem>
#include <cstdio>
#include <sstream>

#include "base/checked_int.h"
#include "base/errors.h"
#include "base/paths.h"
#include "base/printable.h"
#include "model/manifest_load.h"

namespace kl::cli {

namespace fs = std::filesystem;

namespace {
std::vector<std::string>& errors_store() {
    static std::vector<std::string> e;
    return e;
}
}  // namespace

const std::vector<std::string>& load_errors() { return errors_store(); }

std::vector<Ladder> load_ladders_or_throw() {
    errors_store().clear();
    auto ladders = load_all_ladders(kernels_dir(), &errors_store());
    if (ladders.empty() && !errors_store().empty()) throw InputError(errors_store().front());
    if (ladders.empty())
        throw InputError("no ladders found under " + kernels_dir() + " (set KLADDER_ROOT to the checkout)");
    return ladders;
}

namespace {
// The load error of the manifest in kernels/<id>/ (a ladder's id is its folder's name), or null.
const std::string* load_error_of(const std::string& id) {
    for (const auto& e : load_errors())
        if (e.find("/" + id + "/ladder.toml") != std::string::npos) return &e;
    return nullptr;
}
}  // namespace

const Ladder& find_ladder_or_throw(const std::vector<Ladder>& ladders, const std::string& id) {
    std::string known;
    for (const auto& l : ladders) {
        if (l.id == id) return l;
        known += (known.empty() ? "" : ", ") + l.id;
    }
    if (const std::string* e = load_error_of(id)) throw InputError(*e);
    throw InputError("unknown ladder '" + id + "' (ladders: " + known + ")");
}

std::string with_ladder_cause(const std::string& message) {
    const std::string mark = "unknown ladder '";
    const size_t at = message.find(mark);
    if (at == std::string::npos) return message;
    const size_t begin = at + mark.size(), end = message.find('\'', begin);
    if (end == std::string::npos || end == begin) return message;
    const std::string* cause = load_error_of(message.substr(begin, end - begin));
    return cause ? *cause + "; so " + message : message;
}

int64_t parse_integer(const std::string& text, const std::string& what) {
    std::string t = text;
    int64_t mult = 1;
    if (t.size() > 2 && t[0] == '2' && t[1] == '^') {
        int64_t e = parse_integer(t.substr(2), what);
        if (e < 0 || e > 62) throw InputError(what + ": exponent out of range in '" + text + "'");
        return int64_t(1) << e;
    }
    if (!t.empty() && (t.back() == 'k' || t.back() == 'K')) {
        mult = 1024;
        t.pop_back();
    } else if (!t.empty() && (t.back() == 'm' || t.back() == 'M')) {
        mult = 1024 * 1024;
        t.pop_back();
    }
    size_t pos = 0;
    long long v = 0;
    try {
        v = std::stoll(t, &pos);
    } catch (...) { pos = 0; }
    if (t.empty() || pos != t.size()) throw InputError(what + ": '" + text + "' is not an integer");
    int64_t out = 0;
    if (!checked_mul(v, mult, &out)) throw InputError(what + ": '" + text + "' does not fit in a 64-bit integer");
    return out;
}

std::map<std::string, int64_t> parse_assignments(const std::vector<std::string>& items, const std::string& what) {
    std::map<std::string, int64_t> out;
    for (const auto& item : items) {
        std::stringstream ss(item);
        std::string part;
        while (std::getline(ss, part, ',')) {
            auto eq = part.find('=');
            if (eq == std::string::npos || eq == 0)
                throw InputError(what + ": expected NAME=VALUE, got '" + part + "'");
            const std::string name = part.substr(0, eq);
            const int64_t value = parse_integer(part.substr(eq + 1), what + " " + name);
            // Several flags may split the names between them, but one name twice is ambiguous:
            // running only the last value would silently skip the others.
            if (auto it = out.find(name); it != out.end())
                throw InputError(
                    what + ": " + name + " is given twice (" + std::to_string(it->second) + " and " +
                    std::to_string(value) +
                    "); one command runs one problem: repeat the command per value, or use `kladder sweep`");
            out[name] = value;
        }
    }
    return out;
}

std::string format_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& raw_rows) {
    // Cells hold titles, names and messages from files: each is made printable (one line, no
    // control sequences) before the columns are measured.
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : raw_rows) {
        rows.emplace_back();
        for (const auto& c : r) rows.back().push_back(printable(c, kMessageChars));
    }
    std::vector<size_t> width(header.size(), 0);
    for (size_t i = 0; i < header.size(); ++i) width[i] = header[i].size();
    for (const auto& r : rows)
        for (size_t i = 0; i < r.size() && i < width.size(); ++i) width[i] = std::max(width[i], r[i].size());
    auto numeric = [](const std::string& s) {
        return !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || (s[0] == '-' && s.size() > 1));
    };
    std::ostringstream o;
    auto line = [&](const std::vector<std::string>& r, bool head) {
        for (size_t i = 0; i < width.size(); ++i) {
            std::string c = i < r.size() ? r[i] : "";
            std::string pad(width[i] - c.size(), ' ');
            o << (i ? "  " : "") << (!head && numeric(c) ? pad + c : c + (i + 1 < width.size() ? pad : ""));
        }
        o << "\n";
    };
    line(header, true);
    size_t total = 0;
    for (size_t w : width) total += w + 2;
    o << std::string(total > 2 ? total - 2 : 0, '-') << "\n";
    for (const auto& r : rows) line(r, false);
    return o.str();
}

std::string fmt(double v, int precision) {
    if (std::isnan(v)) return "-";
    char b[64];
    if (v != 0 && (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3))
        std::snprintf(b, sizeof b, "%.*e", precision - 1, v);
    else if (std::fabs(v) >= 100)
        std::snprintf(b, sizeof b, "%.0f", v);
    else
        std::snprintf(b, sizeof b, "%.*g", precision, v);
    return b;
}

std::string human_bytes(double bytes) {
    const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int i = 0;
    while (bytes >= 1024 && i < 4) {
        bytes /= 1024;
        ++i;
    }
    char b[32];
    std::snprintf(b, sizeof b, i ? "%.1f %s" : "%.0f %s", bytes, unit[i]);
    return b;
}

std::string& invocation() {
    static std::string text;
    return text;
}

// LESSON/STEP -> the lesson (kept in *keep) and its step with an exercise; InputError otherwise.
const LessonStep* find_exercise(const std::string& spec, const std::vector<Ladder>& ladders, Lesson* keep) {
    const size_t slash = spec.find('/');
    if (slash == std::string::npos) throw InputError("--exercise: expected LESSON/STEP, e.g. 01_first_kernel/3");
    const std::string lesson = spec.substr(0, slash);
    const int step = static_cast<int>(parse_integer(spec.substr(slash + 1), "--exercise step"));
    std::vector<LessonLoadError> errors;
    for (Lesson& l : load_all_lessons(lessons_dir(), ladders, &errors)) {
        if (l.id != lesson && fs::path(l.dir).filename() != lesson) continue;
        if (step < 1 || step > static_cast<int>(l.steps.size()))
            throw InputError("--exercise: lesson " + l.id + " has steps 1.." + std::to_string(l.steps.size()));
        *keep = std::move(l);
        const LessonStep& s = keep->steps[size_t(step - 1)];
        if (!s.exercise) throw InputError("--exercise: step " + std::to_string(step) + " of " + lesson + " has none");
        return &s;
    }
    for (const auto& e : errors)  // the lesson is there but broken: say why, in its one line
        if (fs::path(e.folder).filename() == lesson) throw InputError(e.message);
    throw InputError("--exercise: no lesson '" + lesson + "' (see kladder list lessons)");
}

}  // namespace kl::cli
