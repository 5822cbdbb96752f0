#include "model/compile_diagnostics.h"

#include <cctype>
#include <sstream>

#include "base/errors.h"

namespace kl {

namespace {

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        lines.push_back(line);
    }
    return lines;
}

bool parse_int(const std::string& s, int* out) {
    if (s.empty() || s.size() > 9) return false;
    int v = 0;
    for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
        v = v * 10 + (c - '0');
    }
    *out = v;
    return true;
}

// "NAME(LINE): KIND[ #NNN[-D]]: MESSAGE", KIND one of error, catastrophic error, warning, remark.
bool parse_header(const std::string& line, CompileDiagnostic* d, std::string* name) {
    const size_t close = line.find("): ");
    if (close == std::string::npos) return false;
    const size_t open = line.rfind('(', close);
    if (open == std::string::npos || open == 0) return false;
    int n = 0;
    if (!parse_int(line.substr(open + 1, close - open - 1), &n)) return false;
    std::string rest = line.substr(close + 3);
    static const std::pair<const char*, Severity> kinds[] = {{"catastrophic error", Severity::Error},
                                                             {"error", Severity::Error},
                                                             {"warning", Severity::Warning},
                                                             {"remark", Severity::Note}};
    for (const auto& [word, sev] : kinds) {
        const std::string w = word;
        if (rest.compare(0, w.size(), w) != 0) continue;
        size_t p = w.size();
        if (p < rest.size() && rest[p] == ' ' && p + 1 < rest.size() && rest[p + 1] == '#') {
            p = rest.find(':', p);  // the diagnostic's number, "#177-D"
            if (p == std::string::npos) return false;
        }
        if (rest.compare(p, 2, ": ") != 0) continue;
        *name = line.substr(0, open);
        d->line = n;
        d->severity = sev;
        d->message = rest.substr(p + 2);
        return true;
    }
    return false;
}

// The caret line under the echoed source line: blanks, then one '^'. Returns the 1-based column.
int caret_column(const std::string& line) {
    const size_t caret = line.find('^');
    if (caret == std::string::npos || caret < 2) return 0;
    for (size_t i = 0; i < line.size(); ++i)
        if (i != caret && line[i] != ' ' && line[i] != '\t') return 0;
    return static_cast<int>(caret - 2 + 1);
}

// "detected during instantiation of "..." at line 3" or "... at line 3 of "file.cuh"".
bool parse_instantiation(const std::string& line, CompileDiagnostic* d, std::string* name) {
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line.compare(start, 15, "detected during") != 0) return false;
    const size_t at = line.rfind(" at line ");
    if (at == std::string::npos) return false;
    std::string tail = line.substr(at + 9);
    const size_t of = tail.find(" of \"");
    std::string number = of == std::string::npos ? tail : tail.substr(0, of);
    if (!parse_int(number, &d->line)) return false;
    if (of != std::string::npos) {
        std::string quoted = tail.substr(of + 5);
        if (!quoted.empty() && quoted.back() == '"') quoted.pop_back();
        *name = quoted;
    }
    d->severity = Severity::Note;
    d->message = line.substr(start, at - start);
    return true;
}

}  // namespace

bool is_ptxas_performance_note(const std::string& line) {
    return line.rfind("ptxas", 0) == 0 && line.find(" : ") != std::string::npos &&
           line.find("Potential Performance Loss") != std::string::npos;
}

const char* severity_name(Severity s) {
    switch (s) {
        case Severity::Error: return "error";
        case Severity::Warning: return "warning";
        case Severity::Note: return "note";
    }
    return "error";
}

std::vector<CompileDiagnostic> parse_nvrtc_log(const std::string& log, const std::string& program_name,
                                               const std::string& shown_name) {
    const std::vector<std::string> lines = split_lines(log);
    std::vector<CompileDiagnostic> out;
    auto rename = [&](const std::string& name) { return name == program_name ? shown_name : name; };
    std::string last_file;
    for (size_t i = 0; i < lines.size() && out.size() < kMaxDiagnostics; ++i) {
        CompileDiagnostic d;
        std::string name;
        if (parse_header(lines[i], &d, &name)) {
            d.file = rename(name);
            // The source line, then the caret under the column.
            if (i + 2 < lines.size()) {
                if (int col = caret_column(lines[i + 2])) {
                    d.column = col;
                    i += 2;
                }
            }
            last_file = d.file;
            out.push_back(d);
        } else if (parse_instantiation(lines[i], &d, &name)) {
            d.file = name.empty() ? last_file : rename(name);
            out.push_back(d);
        } else if (lines[i].rfind("nvrtc: error: ", 0) == 0) {
            d.message = lines[i].substr(14);
            out.push_back(d);
        } else if (is_ptxas_performance_note(lines[i])) {
            // About the compiled kernel, not a line: named by the program, at line 0.
            d.file = shown_name;
            d.severity = Severity::Warning;
            d.message = "ptxas: " + lines[i].substr(lines[i].find(':') + 2);
            out.push_back(d);
        }
    }
    return out;
}

std::vector<CompileDiagnostic> diagnostics_of_compile(const std::string& log, const std::string& source_path) {
    const size_t slash = source_path.find_last_of('/');
    return parse_nvrtc_log(log, slash == std::string::npos ? source_path : source_path.substr(slash + 1), source_path);
}

std::string format_diagnostic(const CompileDiagnostic& d) {
    std::string where = d.file.empty() ? "nvrtc" : d.file;
    if (d.line > 0) where += ":" + std::to_string(d.line);
    if (d.line > 0 && d.column > 0) where += ":" + std::to_string(d.column);
    return where + ": " + severity_name(d.severity) + ": " + d.message;
}

std::string count_diagnostics(const std::vector<CompileDiagnostic>& ds) {
    int errors = 0, warnings = 0;
    for (const auto& d : ds) {
        errors += d.severity == Severity::Error;
        warnings += d.severity == Severity::Warning;
    }
    auto plural = [](int n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); };
    return plural(errors, "error") + ", " + plural(warnings, "warning");
}

nlohmann::json to_json(const CompileDiagnostic& d) {
    return {{"file", d.file},
            {"line", d.line},
            {"column", d.column},
            {"severity", severity_name(d.severity)},
            {"message", d.message}};
}

CompileDiagnostic diagnostic_from_json(const nlohmann::json& j, const std::string& field) {
    if (!j.is_object()) throw InputError(field + ": expected an object");
    auto str = [&](const char* key) {
        auto it = j.find(key);
        if (it == j.end() || !it->is_string()) throw InputError(field + "." + key + ": expected a string");
        return it->get<std::string>();
    };
    auto num = [&](const char* key) {
        auto it = j.find(key);
        if (it == j.end() || !it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > 1'000'000'000)
            throw InputError(field + "." + key + ": expected a non-negative integer");
        return static_cast<int>(it->get<int64_t>());
    };
    CompileDiagnostic d;
    d.file = str("file");
    d.line = num("line");
    d.column = num("column");
    const std::string sev = str("severity");
    if (sev == "error")
        d.severity = Severity::Error;
    else if (sev == "warning")
        d.severity = Severity::Warning;
    else if (sev == "note")
        d.severity = Severity::Note;
    else
        throw InputError(field + ".severity: '" + sev + "' is not error, warning or note");
    d.message = str("message");
    return d;
}

}  // namespace kl
