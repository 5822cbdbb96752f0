#include "model/sanitizer_report.h"

#include <algorithm>
#include <cctype>

#include "base/errors.h"
#include "base/printable.h"

namespace kl {

namespace {

// [SECTION] Text helpers (no std::regex: its recursion can overflow the stack on long lines)

bool report_starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view report_trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// Digits with thousands separators ("4,000,012"), at most 18 of them; nullopt when none.
std::optional<int64_t> sanitizer_count_at(std::string_view s, size_t at, size_t* end = nullptr) {
    int64_t v = 0;
    int digits = 0;
    size_t i = at;
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (c == ',' && digits > 0 && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) continue;
        if (!std::isdigit(static_cast<unsigned char>(c))) break;
        if (++digits > 18) return std::nullopt;
        v = v * 10 + (c - '0');
    }
    if (end) *end = i;
    if (digits == 0) return std::nullopt;
    return v;
}

// The number after `key` ("of size " -> 4096), searched from `from`.
std::optional<int64_t> sanitizer_count_after(std::string_view s, std::string_view key, size_t from = 0) {
    const size_t at = s.find(key, from);
    if (at == std::string_view::npos) return std::nullopt;
    return sanitizer_count_at(s, at + key.size());
}

// A source place "FILE:LINE" in the word after " in " (older releases: "FILE:LINE:kernel(...)").
struct SanitizerPlace {
    std::string file;
    int line = 0;
    std::string rest;  // what follows the line (the older releases' kernel name)
};

std::optional<SanitizerPlace> sanitizer_place_in_word(std::string_view word) {
    for (size_t colon = word.find(':'); colon != std::string_view::npos; colon = word.find(':', colon + 1)) {
        size_t end = 0;
        const std::optional<int64_t> line = sanitizer_count_at(word, colon + 1, &end);
        if (!line || colon == 0 || *line <= 0 || *line > 100'000'000) continue;
        if (end < word.size() && word[end] != ':') continue;
        SanitizerPlace p;
        p.file = std::string(word.substr(0, std::min<size_t>(colon, 512)));
        p.line = static_cast<int>(*line);
        if (end < word.size()) p.rest = std::string(word.substr(end + 1));
        return p;
    }
    return std::nullopt;
}

// The first " in FILE:LINE" of s[from, to).
std::optional<SanitizerPlace> sanitizer_place_between(std::string_view s, size_t from, size_t to) {
    s = s.substr(0, std::min(to, s.size()));
    for (size_t at = s.find(" in ", from); at != std::string_view::npos; at = s.find(" in ", at + 1)) {
        const size_t start = at + 4;
        size_t end = start;
        while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
        if (auto p = sanitizer_place_in_word(s.substr(start, end - start))) {
            // Older releases: "FILE:LINE:void f<double>(double*, int)": the kernel runs to the end.
            if (!p->rest.empty()) p->rest = std::string(report_trim(s.substr(end - p->rest.size())));
            return p;
        }
    }
    return std::nullopt;
}

// "at vector_add(float *)+0x1d0 in" -> "vector_add(float *)"; older: "at 0xc8 in f.cu:75:kernel(...)".
std::string sanitizer_kernel_between(std::string_view s, size_t from, size_t to,
                                     const std::optional<SanitizerPlace>& place) {
    s = s.substr(0, std::min(to, s.size()));
    const size_t at = s.find("at ", from);
    if (at != std::string_view::npos) {
        const size_t in = s.find(" in ", at);
        const size_t plus = s.rfind("+0x", in);
        if (plus != std::string_view::npos && plus > at + 3 && (in == std::string_view::npos || plus < in))
            return std::string(report_trim(s.substr(at + 3, plus - at - 3)).substr(0, 200));
    }
    if (place && !place->rest.empty()) return place->rest.substr(0, 200);
    return "";
}

// "(31,0,0)" after `key`.
std::string sanitizer_triple_after(std::string_view s, std::string_view key) {
    const size_t at = s.find(key);
    if (at == std::string_view::npos) return "";
    const size_t open = at + key.size();
    if (open >= s.size() || s[open] != '(') return "";
    const size_t close = s.find(')', open);
    if (close == std::string_view::npos || close - open > 40) return "";
    std::string t(s.substr(open, close - open + 1));
    t.erase(std::remove(t.begin(), t.end(), ' '), t.end());
    return t;
}

// What a finding's strings hold at most (code points; a JSON reader refuses longer ones).
constexpr size_t kMaxSanitizerTextChars = 900;

std::string sanitizer_plural_bytes(int64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

// [SECTION] One record of the report

struct SanitizerRecord {
    std::string header;
    std::vector<std::string> details;
};

// Where a memcheck access landed, as the learner reads it: from "and is N bytes after the nearest
// allocation at B of size S bytes" (N counts from the allocation's last byte: 1 is the first byte
// past the end).
std::string memcheck_detail(std::string_view all) {
    std::optional<int64_t> alloc_size;
    if (const size_t at = all.find("nearest allocation at "); at != std::string_view::npos)
        alloc_size = sanitizer_count_after(all, "of size ", at);
    if (const size_t at = all.find("and is "); at != std::string_view::npos && alloc_size) {
        size_t end = 0;
        const std::optional<int64_t> n = sanitizer_count_at(all, at + 7, &end);
        const std::string_view rest = all.substr(end);
        const std::string buffer = "a " + std::to_string(*alloc_size) + "-byte buffer";
        if (n && report_starts_with(rest, " bytes after")) {
            const int64_t past = *n - 1;
            return past <= 0 ? "just past the end of " + buffer
                             : sanitizer_plural_bytes(past) + " past the end of " + buffer;
        }
        if (n && report_starts_with(rest, " bytes before"))
            return sanitizer_plural_bytes(*n) + " before the start of " + buffer;
    }
    if (all.find("is misaligned") != std::string_view::npos) return "a misaligned address";
    if (all.find("is out of bounds") != std::string_view::npos) return "an address outside every buffer";
    return "";
}

// "Invalid __global__ write of size 4 bytes" -> "invalid global write of 4 bytes"
std::string memcheck_what(std::string h) {
    for (const char* space : {"__global__", "__shared__", "__local__", "__device__", "__constant__"}) {
        const std::string s = space;
        if (size_t at = h.find(s); at != std::string::npos) h.replace(at, s.size(), s.substr(2, s.size() - 4));
    }
    if (size_t at = h.find(" of size "); at != std::string::npos) h.replace(at, 9, " of ");
    if (!h.empty()) h[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(h[0])));
    while (!h.empty() && h.back() == '.') h.pop_back();
    return h;
}

// "Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API
// call to cudaStreamSynchronize." -> "cudaStreamSynchronize returned cudaErrorLaunchFailure
// (unspecified launch failure)": an earlier kernel's fault, reported at a later call.
std::string sanitizer_host_call_what(std::string_view all) {
    std::string_view rest = all.substr(12);  // after "Program hit "
    const std::string error(rest.substr(0, rest.find(' ')));
    std::string why;
    if (size_t at = all.find("due to \""); at != std::string_view::npos) {
        const size_t close = all.find('"', at + 8);
        if (close != std::string_view::npos) why = std::string(all.substr(at + 8, close - at - 8));
    }
    std::string call;
    if (size_t at = all.find("API call to "); at != std::string_view::npos) {
        std::string_view c = all.substr(at + 12);
        c = c.substr(0, std::min(c.find('.'), c.find(' ')));
        call = std::string(c);
    }
    if (call.empty() || error.empty()) return std::string(all.substr(0, 300));
    return call + " returned " + error + (why.empty() ? "" : " (" + why + ")");
}

// A race's sites: "Write access at ... in f.cu:28 ... and Read access at ... in f.cu:30 [4 hazards]".
std::vector<SanitizerSite> sanitizer_race_sites(std::string_view all) {
    std::vector<size_t> starts;
    for (size_t at = all.find(" access at"); at != std::string_view::npos && starts.size() < 16;
         at = all.find(" access at", at + 1)) {
        size_t word = at;
        while (word > 0 && std::isalpha(static_cast<unsigned char>(all[word - 1]))) --word;
        if (word < at) starts.push_back(word);
    }
    std::vector<SanitizerSite> sites;
    for (size_t i = 0; i < starts.size(); ++i) {
        const size_t to = i + 1 < starts.size() ? starts[i + 1] : all.size();
        SanitizerSite s;
        s.access = std::string(all.substr(starts[i], all.find(' ', starts[i]) - starts[i]));
        for (char& c : s.access) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (auto p = sanitizer_place_between(all, starts[i], to)) s.file = p->file, s.line = p->line;
        const size_t open = all.substr(0, to).find('[', starts[i]);
        if (open != std::string_view::npos) s.hazards = sanitizer_count_at(all, open + 1).value_or(0);
        sites.push_back(std::move(s));
    }
    return sites;
}

std::string sanitizer_site_place(const SanitizerSite& s, const SanitizerSite& first) {
    if (s.line <= 0) return "with no source line";
    if (s.file == first.file && s.line == first.line) return "at this line";
    return s.file == first.file ? "at line " + std::to_string(s.line) : "at " + s.file + ":" + std::to_string(s.line);
}

SanitizerFinding read_sanitizer_record(const SanitizerRecord& r, const std::string& tool) {
    std::string joined = r.header;
    for (const auto& d : r.details) joined += " " + d;
    const std::string_view all(joined);
    SanitizerFinding f;
    f.tool = tool;
    f.severity = report_starts_with(all, "WARN") || report_starts_with(all, "Warning") ? "warning" : "error";
    if (all.find("Race reported between") != std::string_view::npos) {
        std::vector<SanitizerSite> sites = sanitizer_race_sites(all);
        if (!sites.empty()) {
            const SanitizerSite first = sites.front();
            f.file = first.file;
            f.line = first.line;
            f.what = "race between a " + first.access + " here";
            std::vector<std::string> partners;  // each distinct partner once: racecheck repeats them per warp
            for (size_t i = 1; i < sites.size(); ++i) {
                const std::string partner = " and a " + sites[i].access + " " + sanitizer_site_place(sites[i], first);
                if (std::find(partners.begin(), partners.end(), partner) == partners.end()) partners.push_back(partner);
                f.hazards += sites[i].hazards;
            }
            for (const auto& partner : partners) f.what += partner;
            f.others.assign(sites.begin() + 1, sites.end());
        } else {
            f.what = "race";
        }
        f.kernel = sanitizer_kernel_between(all, all.find(" access at"), all.size(), std::nullopt);
        return f;
    }
    if (report_starts_with(all, "Program hit ")) {
        f.what = sanitizer_host_call_what(all);
        return f;
    }
    f.what = memcheck_what(r.header.substr(0, 300));
    const size_t at = all.find(" at ");
    const size_t by = all.find("by thread");
    const std::optional<SanitizerPlace> place = sanitizer_place_between(all, at == std::string_view::npos ? 0 : at, by);
    if (place) f.file = place->file, f.line = place->line;
    f.kernel = sanitizer_kernel_between(all, at == std::string_view::npos ? 0 : at + 1, by, place);
    f.thread = sanitizer_triple_after(all, "by thread ");
    f.block = sanitizer_triple_after(all, "in block ");
    f.detail = memcheck_detail(all);
    return f;
}

// A record's finding with every string valid UTF-8 and of bounded length (a cut above may have
// split a character).
SanitizerFinding interpret_sanitizer_record(const SanitizerRecord& r, const std::string& tool) {
    SanitizerFinding f = read_sanitizer_record(r, tool);
    for (std::string* s : {&f.what, &f.file, &f.kernel, &f.thread, &f.block, &f.detail})
        *s = printable(*s, kMaxSanitizerTextChars);
    for (SanitizerSite& site : f.others) site.file = printable(site.file, kMaxSanitizerTextChars);
    return f;
}

// [SECTION] Lines into records

// A line without the "=========" prefix and its indentation, and that indentation.
std::string_view report_strip_prefix(std::string_view line, size_t* indent) {
    size_t i = 0;
    while (i < line.size() && line[i] == '=') ++i;
    size_t j = i;
    while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
    *indent = j - i;
    return report_trim(line.substr(j));
}

bool is_report_detail_start(std::string_view s) {
    for (std::string_view p : {"at ", "by thread", "Address ", "Access ", "and ", "in ", "of size", "Saved host",
                               "Host Frame", "Device Frame", "[", "Current Value", "Hazard", "Incoming Value"})
        if (report_starts_with(s, p)) return true;
    return false;
}

bool is_report_backtrace(std::string_view s) {
    return report_starts_with(s, "Saved host") || report_starts_with(s, "Host Frame") ||
           report_starts_with(s, "Device Frame");
}

// The first line of a record the tools document: memcheck's access, hardware, allocation and API
// errors, racecheck's races and hazards. Any other line that is not a detail is the tool's own
// message ("Internal Sanitizer Error: ...", "Target application returned an error").
bool is_record_start(std::string_view s) {
    if (s.find("Race reported") != std::string_view::npos || s.find("hazard detected") != std::string_view::npos)
        return true;
    for (std::string_view p : {"Invalid ", "Misaligned ", "Out-of-range ", "Uninitialized ", "Program hit ",
                               "Malloc/Free ", "Leaked ", "Warp ", "Illegal ", "Hardware ", "Barrier "})
        if (report_starts_with(s, p)) return true;
    return false;
}

std::string sanitizer_finding_key(const SanitizerFinding& f) {
    return f.what + '\n' + f.file + '\n' + std::to_string(f.line) + '\n' + f.kernel;
}

}  // namespace

SanitizerReport parse_sanitizer_report(std::string_view text, const std::string& tool) {
    SanitizerReport rep;
    if (text.size() > kMaxSanitizerReportBytes) {
        text = text.substr(0, kMaxSanitizerReportBytes);
        rep.truncated = true;
    }
    std::optional<SanitizerRecord> open;
    std::vector<std::string> keys;
    auto close = [&] {
        if (!open) return;
        SanitizerFinding f = interpret_sanitizer_record(*open, tool);
        open.reset();
        ++rep.records;
        const std::string key = sanitizer_finding_key(f);
        auto seen = std::find(keys.begin(), keys.end(), key);
        if (seen != keys.end()) {
            SanitizerFinding& g = rep.findings[static_cast<size_t>(seen - keys.begin())];
            if (g.count < 1'000'000'000) ++g.count;
            g.hazards = std::min<int64_t>(g.hazards + f.hazards, int64_t(1) << 60);
        } else if (rep.findings.size() < kMaxSanitizerFindings) {
            keys.push_back(key);
            rep.findings.push_back(std::move(f));
        }
    };
    std::optional<int64_t> racecheck_errors;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view raw = text.substr(pos, std::min(nl - pos, kMaxSanitizerLineBytes));
        pos = nl + 1;
        size_t indent = 0;
        // Control characters escaped and bytes that are not UTF-8 shown as \xNN: every string of a
        // finding can be printed and written as JSON.
        const std::string line = printable(report_strip_prefix(raw, &indent));
        const std::string_view s = line;
        if (s.empty()) {
            close();
            continue;
        }
        if (report_starts_with(s, "COMPUTE-SANITIZER") || report_starts_with(s, "CUDA-MEMCHECK")) continue;
        if (report_starts_with(s, "ERROR SUMMARY:")) {
            close();
            rep.error_summary = sanitizer_count_after(s, ": ");
            continue;
        }
        if (report_starts_with(s, "RACECHECK SUMMARY:") || report_starts_with(s, "LEAK SUMMARY:")) {
            close();
            if (report_starts_with(s, "RACECHECK")) racecheck_errors = sanitizer_count_after(s, "(");
            continue;
        }
        const bool detail = open && (indent > 1 || is_report_detail_start(s));
        if (detail) {
            if (!is_report_backtrace(s) && open->details.size() < 64) open->details.emplace_back(s);
            continue;
        }
        close();
        if (is_record_start(s)) {
            open = SanitizerRecord{std::string(s), {}};
        } else if (!is_report_detail_start(s) && rep.tool_messages.size() < 20) {  // (a detail with no record: dropped)
            rep.tool_messages.emplace_back(s.substr(0, 300));
        }
    }
    close();
    if (!rep.error_summary && racecheck_errors) rep.error_summary = racecheck_errors;
    return rep;
}

void rename_sanitizer_files(SanitizerReport& r, const std::string& from, const std::string& to) {
    for (auto& f : r.findings) {
        if (f.file == from) f.file = to;
        for (auto& s : f.others)
            if (s.file == from) s.file = to;
    }
}

std::string format_finding(const SanitizerFinding& f) {
    std::string where = !f.file.empty()     ? f.file + (f.line > 0 ? ":" + std::to_string(f.line) : "")
                        : !f.kernel.empty() ? "kernel " + f.kernel.substr(0, f.kernel.find('('))
                                            : "host";
    std::string s = where + ":  " + f.tool + ": " + f.what;
    if (!f.thread.empty()) s += ", thread " + f.thread + (f.block.empty() ? "" : " block " + f.block);
    if (!f.detail.empty()) s += ", " + f.detail;
    if (f.hazards > 0) s += " (" + std::to_string(f.hazards) + (f.hazards == 1 ? " hazard)" : " hazards)");
    if (f.count > 1) s += " (" + std::to_string(f.count) + " times)";
    return s;
}

nlohmann::json to_json(const SanitizerFinding& f) {
    nlohmann::json others = nlohmann::json::array();
    for (const auto& s : f.others)
        others.push_back({{"access", s.access}, {"file", s.file}, {"line", s.line}, {"hazards", s.hazards}});
    return {{"tool", f.tool},           {"severity", f.severity}, {"what", f.what},       {"file", f.file},
            {"line", f.line},           {"kernel", f.kernel},     {"thread", f.thread},   {"block", f.block},
            {"detail", f.detail},       {"others", others},       {"hazards", f.hazards}, {"count", f.count},
            {"text", format_finding(f)}};
}

SanitizerFinding finding_from_json(const nlohmann::json& j, const std::string& field) {
    if (!j.is_object()) throw InputError(field + ": expected an object");
    auto str = [&](const nlohmann::json& o, const char* key, const std::string& at) {
        auto it = o.find(key);
        if (it == o.end() || !it->is_string()) throw InputError(at + "." + key + ": expected a string");
        std::string v = it->get<std::string>();
        if (v.size() > 4 * kMaxSanitizerTextChars)
            throw InputError(at + "." + key + ": longer than " + std::to_string(4 * kMaxSanitizerTextChars) + " bytes");
        return v;
    };
    auto num = [&](const nlohmann::json& o, const char* key, const std::string& at, int64_t max) {
        auto it = o.find(key);
        if (it == o.end() || !it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > max)
            throw InputError(at + "." + key + ": expected an integer from 0 to " + std::to_string(max));
        return it->get<int64_t>();
    };
    SanitizerFinding f;
    f.tool = str(j, "tool", field);
    f.severity = str(j, "severity", field);
    f.what = str(j, "what", field);
    f.file = str(j, "file", field);
    f.line = static_cast<int>(num(j, "line", field, 100'000'000));
    f.kernel = str(j, "kernel", field);
    f.thread = str(j, "thread", field);
    f.block = str(j, "block", field);
    f.detail = str(j, "detail", field);
    f.hazards = num(j, "hazards", field, int64_t(1) << 60);
    f.count = static_cast<int>(num(j, "count", field, 1'000'000'000));
    auto others = j.find("others");
    if (others == j.end() || !others->is_array() || others->size() > 16)
        throw InputError(field + ".others: expected an array of at most 16 sites");
    for (size_t i = 0; i < others->size(); ++i) {
        const std::string at = field + ".others[" + std::to_string(i) + "]";
        const nlohmann::json& o = (*others)[i];
        if (!o.is_object()) throw InputError(at + ": expected an object");
        SanitizerSite s;
        s.access = str(o, "access", at);
        s.file = str(o, "file", at);
        s.line = static_cast<int>(num(o, "line", at, 100'000'000));
        s.hazards = num(o, "hazards", at, int64_t(1) << 60);
        f.others.push_back(std::move(s));
    }
    return f;
}

}  // namespace kl
