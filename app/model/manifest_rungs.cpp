// A ladder's rungs once read (docs/formats.md, section 1): their numbers, the lab twins of rungs
// with measuring or ablation switches, and the limit on what a teaching rung offers the learner
// (issue 37: at most kTeachingParams parameters, each an idea).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "base/errors.h"
#include "model/manifest_load.h"

namespace fs = std::filesystem;

namespace kl {

namespace {

[[noreturn]] void fail(const Ladder& L, const Rung& rung, const std::string& field, const std::string& problem) {
    throw InputError(L.manifest_path + ":" + std::to_string(rung.line) + ": rung '" + rung.id + "'" +
                     (field.empty() ? "" : "." + field) + ": " + problem);
}

// The file's number ("11" for 11_wgmma_bf16.cu), "R1", "R2", ... for library references (no
// file), else the position ("03"); a `number` in the manifest wins.
void number_rungs(Ladder& L) {
    int references = 0;
    for (auto& rung : L.rungs) {
        if (rung.reference && rung.file.empty()) ++references;  // counted even when numbered by hand
        if (!rung.number.empty()) continue;
        const std::string stem = fs::path(rung.file).filename().string();
        size_t digits = 0;
        while (digits < stem.size() && std::isdigit(static_cast<unsigned char>(stem[digits]))) ++digits;
        char position[16];
        std::snprintf(position, sizeof position, "%02d", rung.index + 1);
        rung.number = digits > 0 && digits < stem.size() && stem[digits] == '_' ? stem.substr(0, digits)
                      : rung.file.empty() && rung.reference                     ? "R" + std::to_string(references)
                                                                                : std::string(position);
    }
}

// The rung as its lab switches' lab twin: every switch free, off the strip.
Rung lab_twin(const Rung& rung) {
    Rung twin = rung;
    twin.id = rung.id + "_lab";
    twin.title = rung.title + " (lab)";
    twin.short_label.clear();
    twin.lab = true;
    twin.lab_of = rung.id;
    return twin;
}

void pin_lab_switches(Rung& rung) {
    for (auto& p : rung.params) {
        if (!p.lab) continue;
        p.pinned = true;
        p.values = {p.default_value};
        p.min = p.max = 0;
        p.pow2 = false;
    }
}

}  // namespace

void finish_rungs(Ladder& L) {
    number_rungs(L);
    std::vector<Rung> teaching, lab;
    for (auto& rung : L.rungs) {
        const bool has_switches = std::any_of(rung.params.begin(), rung.params.end(), [](auto& p) { return p.lab; });
        if (rung.lab) {
            lab.push_back(std::move(rung));
            continue;
        }
        if (has_switches) {
            lab.push_back(lab_twin(rung));
            pin_lab_switches(rung);
        }
        if (rung.free_params() > kTeachingParams)
            fail(L, rung, "params",
                 std::to_string(rung.free_params()) + " parameters; a teaching rung has at most " +
                     std::to_string(kTeachingParams) +
                     ": mark its measuring and ablation switches lab = true (its lab twin '" + rung.id +
                     "_lab' keeps them), or make it a lab rung");
        teaching.push_back(std::move(rung));
    }
    std::map<std::string, const Rung*> ids;
    for (const auto& r : teaching) ids[r.id] = &r;
    for (const auto& r : lab) {
        if (ids.count(r.id))
            fail(L, *ids[r.id], "id",
                 "'" + r.id + "' is taken by the lab twin of rung '" + r.lab_of + "' (a rung with lab switches)");
        ids[r.id] = &r;
    }
    for (const auto& r : teaching)  // the one number text, strip, plots and `kladder list` share
        for (const auto& o : teaching) {
            if (&o == &r) break;
            if (o.number == r.number)
                fail(L, r, "number",
                     "'" + r.number + "' is already rung '" + o.id +
                         "''s number (give one of them its own `number`, such as \"04b\")");
        }
    for (const auto& r : lab)  // a standalone lab rung has its own number; a twin shares its rung's
        for (const auto& o : teaching)
            if (r.lab_of.empty() && o.number == r.number)
                fail(L, r, "number", "'" + r.number + "' is already rung '" + o.id + "''s number");
    L.rungs = std::move(teaching);
    for (size_t i = 0; i < L.rungs.size(); ++i) L.rungs[i].index = static_cast<int>(i);
    for (size_t i = 0; i < lab.size(); ++i) {  // a twin keeps its rung's colour
        const Rung* t = lab[i].lab_of.empty() ? nullptr : L.find_rung(lab[i].lab_of);
        lab[i].index = t ? t->index : static_cast<int>(L.rungs.size() + i);
    }
    L.lab_rungs = std::move(lab);
}

}  // namespace kl
