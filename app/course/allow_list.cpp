#include "course/allow_list.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>

#include "base/errors.h"
#include "base/toml_reader.h"

namespace fs = std::filesystem;

namespace kl {

std::vector<AllowedNumber> load_allowed_numbers(const std::string& path) {
    std::vector<AllowedNumber> out;
    std::error_code ec;
    if (!fs::exists(path, ec)) return out;
    TomlReader r(path);
    r.allow_only(r.root(), "", {"allow"});
    const toml::node* n = r.root().get("allow");
    if (!n) return out;
    const toml::array* arr = n->as_array();
    if (!arr) r.fail(line_of(*n), "allow", "expected [[allow]] entries");
    for (size_t i = 0; i < arr->size(); ++i) {
        std::string f = "allow[" + std::to_string(i) + "]";
        const toml::table* t = arr->get(i)->as_table();
        if (!t) r.fail(line_of(*arr->get(i)), f, "expected a table");
        r.allow_only(*t, f, {"lesson", "text", "source", "kind", "names", "pending"});
        AllowedNumber a;
        a.line = line_of(*t);
        a.lesson = r.string(*t, "lesson", f);
        a.text = r.string(*t, "text", f);
        a.source = r.string(*t, "source", f);
        if (const toml::node* p = t->get("pending")) {
            if (!p->as_boolean()) r.fail(a.line, f + ".pending", "expected true or false");
            a.pending = p->as_boolean()->get();
        }
        if (a.source.size() < 8) r.fail(a.line, f + ".source", "say where the number comes from");
        if (t->get("kind")) a.kind = r.string(*t, "kind", f);
        if (t->get("names")) a.names = r.string(*t, "names", f);
        // A figure of the device shown is a binding, never typed: only what is true on every
        // GPU, or a citation that says whose figure it is, stands here (pending ones aside).
        if (a.kind != "algorithm" && a.kind != "citation" && !(a.pending && a.kind.empty()))
            r.fail(a.line, f + ".kind",
                   "'" + a.kind +
                       "': expected \"algorithm\" (true on every GPU) or \"citation\" (a datasheet, paper or "
                       "note, named in the text); a figure of the device shown is a binding");
        if (a.kind == "citation" && a.names.size() < 2)
            r.fail(a.line, f + ".names", "a citation names whose figure it is (\"H100\", \"CS336\")");
        if (a.kind != "citation" && !a.names.empty()) r.fail(a.line, f + ".names", "only a citation names a source");
        std::vector<UnitNumber> one = find_unit_numbers(a.text);
        if (one.size() != 1 || one[0].text != a.text)
            r.fail(a.line, f + ".text", "'" + a.text + "' is not one number with a unit");
        out.push_back(a);
    }
    return out;
}

std::vector<UnitNumber> find_unit_numbers(const std::string& text) {
    // A number (digits, thousands commas, decimals), an optional space, then a unit of time,
    // bandwidth or FLOP rate, a clock rate, a percentage, a count of SMs, registers or counter
    // events, a cache size, or a memory size in binary units ("24 GiB", "512 MiB", "16 KiB": a
    // GPU's memory, a run's peak, a buffer); the unit may open the next line; not the start of a
    // longer word; seconds only after a space ("0.1 s", not "counting 1s"). Decimal GB, MB and KB
    // standing alone are not checked: the lessons count the bytes a kernel moves in them (some 260
    // worked figures over the sizes), while a binary size is a capacity or a footprint, the kind of
    // figure a device or a run gives. A ratio is a decimal number with x right after it ("0.84x": "2x" is
    // a planning figure, "4096 x 4096" a shape).
    static const std::regex re(
        "([0-9][0-9,]*(\\.[0-9]+)?)([ \n]?(ms|µs|μs|us|ns|GB/s|TB/s|MB/s|GiB/s|TiB/s|TFLOP/s|GFLOP/s|PFLOP/s|"
        "TFLOPS|GFLOPS|TFLOPs|GFLOPs|cycles|GHz|MHz|%|SMs|registers|sectors|transactions|wavefronts|bank conflicts|"
        "(MB|MiB|KB|KiB) (of )?(L2|L1|shared memory|cache)|TiB|GiB|MiB|KiB)| s)(?![A-Za-z0-9/])|"
        "[0-9]+\\.[0-9]+(x|×)(?![A-Za-z0-9])");
    std::vector<UnitNumber> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
        size_t pos = static_cast<size_t>(it->position(0));
        // Not part of an identifier or a longer number ("x2ms", "sm_90 s").
        if (pos > 0) {
            unsigned char c = static_cast<unsigned char>(text[pos - 1]);
            if (std::isalnum(c) || c == '_' || c == '.') continue;
        }
        // A unit at the start of the next line ("reported at 51\nregisters") is the same typing.
        std::string typed = it->str(0);
        std::replace(typed.begin(), typed.end(), '\n', ' ');
        out.push_back({pos, typed});
    }
    return out;
}

std::string citation_unnamed(const AllowedNumber& a, const std::string& text, size_t pos) {
    if (a.kind != "citation") return "";
    size_t from = text.rfind("\n\n", pos), to = text.find("\n\n", pos);
    from = from == std::string::npos ? 0 : from + 2;
    to = to == std::string::npos ? text.size() : to;
    // A table's caption is the paragraph above it ("... measured on an H100:" then the rows).
    if (text.compare(from, 1, "|") == 0 && from >= 3) {
        const size_t above = text.rfind("\n\n", from - 3);  // the blank line above the caption
        from = above == std::string::npos ? 0 : above + 2;
    }
    const std::string paragraph = text.substr(from, to - from);
    // `names` may offer alternatives: "CS336|lecture".
    for (size_t at = 0; at <= a.names.size();) {
        size_t bar = a.names.find('|', at);
        if (bar == std::string::npos) bar = a.names.size();
        const std::string one = a.names.substr(at, bar - at);
        if (!one.empty() && paragraph.find(one) != std::string::npos) return "";
        at = bar + 1;
    }
    return "'" + a.text + "' is allow-listed as a citation of " + a.names + ", but its paragraph names none of " +
           "them: say whose figure it is, or bind it";
}

}  // namespace kl
