#include "course/class_merge.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "base/atomic_file.h"
#include "base/confined_path.h"
#include "base/errors.h"

namespace fs = std::filesystem;

namespace kl {

bool ClassEntry::refused() const {
    if (!sub.accepted()) return true;
    for (const auto& f : findings)
        if (f.level == Finding::Level::Refused) return true;
    return false;
}

bool ClassEntry::flagged() const {
    for (const auto& f : findings)
        if (f.level == Finding::Level::Flagged) return true;
    return false;
}

std::string ClassEntry::device() const { return sub.results.device ? sub.results.device->name : "unknown device"; }

std::string ClassEntry::status() const {
    if (!sub.accepted()) return sub.refusal();
    for (const auto& f : findings)
        if (f.level == Finding::Level::Refused) return "refused as impossible (" + f.check + "): " + f.detail;
    for (const auto& f : findings)
        if (f.level == Finding::Level::Flagged) return "flagged (" + f.check + "): " + f.detail;
    return "accepted";
}

std::vector<std::string> ClassMerge::exercises() const {
    std::set<std::string> s;
    for (const auto& e : entries) s.insert(e.sub.exercise);
    return {s.begin(), s.end()};
}

std::vector<const ClassEntry*> ClassMerge::leaderboard(const std::string& exercise) const {
    std::vector<const ClassEntry*> out;
    for (const auto& e : entries)
        if (e.sub.exercise == exercise && !e.refused() && !e.flagged() && e.median_us > 0) out.push_back(&e);
    std::stable_sort(out.begin(), out.end(),
                     [](const ClassEntry* a, const ClassEntry* b) { return a->pct_roof > b->pct_roof; });
    return out;
}

std::vector<ClassMerge::DeviceBoard> ClassMerge::device_leaderboards(const std::string& exercise) const {
    std::vector<DeviceBoard> out;
    for (const ClassEntry* e : leaderboard(exercise)) {
        auto it = std::find_if(out.begin(), out.end(), [&](const DeviceBoard& b) { return b.device == e->device(); });
        if (it == out.end()) it = out.insert(out.end(), DeviceBoard{e->device(), {}});
        it->ranked.push_back(e);
    }
    std::sort(out.begin(), out.end(), [](const DeviceBoard& a, const DeviceBoard& b) { return a.device < b.device; });
    for (DeviceBoard& b : out)
        std::stable_sort(b.ranked.begin(), b.ranked.end(),
                         [](const ClassEntry* x, const ClassEntry* y) { return x->median_us < y->median_us; });
    return out;
}

std::vector<const ClassEntry*> ClassMerge::not_ranked(const std::string& exercise) const {
    std::vector<const ClassEntry*> out;
    for (const auto& e : entries)
        if (e.sub.exercise == exercise && (e.refused() || e.flagged())) out.push_back(&e);
    return out;
}

ClassEntry class_entry_of(const std::string& file, Submission sub, const std::vector<Datasheet>& sheets) {
    ClassEntry e;
    e.file = file;
    e.findings = plausibility_findings(sub, sheets);
    if (const RunRecord* r = sub.mine_run(); r && r->timing && r->timing->median_ms > 0) {
        e.median_us = r->timing->median_ms * 1e3;
        e.gbps = r->values.num(tag::ideal_bytes) / (r->timing->median_ms * 1e-3) / 1e9;
    }
    e.pct_roof = pct_of_roof(sub);
    e.sub = std::move(sub);
    return e;
}

namespace {

// The folder's regular *.json files, by name; anything else is one line in `problems`.
std::vector<std::string> submission_files(const std::string& dir, std::vector<std::string>& problems) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw InputError(dir + ": not a folder of submissions");
    std::vector<std::string> names;
    fs::directory_iterator it(dir, ec);
    if (ec) throw InputError(dir + ": cannot list (" + ec.message() + ")");
    for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) throw InputError(dir + ": cannot list (" + ec.message() + ")");
        const std::string name = it->path().filename().string();
        if (name.empty() || name[0] == '.') continue;  // hidden files: an editor's, a staging folder
        struct stat st {};
        if (::lstat(it->path().c_str(), &st) != 0) continue;
        if (!S_ISREG(st.st_mode)) {
            problems.push_back(name + ": " + (S_ISLNK(st.st_mode) ? "a symbolic link" : file_kind_name(st.st_mode)) +
                               "; only regular files are read");
            continue;
        }
        if (it->path().extension() != ".json") continue;
        if (st.st_size > kMaxSubmissionBytes) {
            problems.push_back(name + ": " + std::to_string(st.st_size) + " bytes, more than a submission can be (" +
                               std::to_string(kMaxSubmissionBytes) + ")");
            continue;
        }
        names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    if (names.size() > size_t(kMaxClassFiles))
        throw InputError(dir + ": " + std::to_string(names.size()) + " files, more than " +
                         std::to_string(kMaxClassFiles));
    return names;
}

}  // namespace

ClassMerge merge_class(const std::string& submissions_dir, const ClassKey& key, const std::vector<Datasheet>& sheets) {
    ClassMerge m;
    std::map<std::string, std::string> by_mac;                     // signature -> file
    std::map<std::pair<std::string, std::string>, size_t> latest;  // (learner, exercise) -> entry
    for (const std::string& name : submission_files(submissions_dir, m.problems)) {
        try {
            const std::string text = read_file((fs::path(submissions_dir) / name).string(), kMaxSubmissionBytes);
            Submission sub = read_submission(text, name, key);
            const std::string mac = nlohmann::json::parse(text)["signature"]["mac"].get<std::string>();
            if (auto d = by_mac.find(mac); d != by_mac.end()) {
                m.problems.push_back(name + ": duplicate of " + d->second);
                continue;
            }
            by_mac[mac] = name;
            const auto who = std::make_pair(sub.learner, sub.exercise);
            ClassEntry e = class_entry_of(name, std::move(sub), sheets);
            auto prev = latest.find(who);
            if (prev == latest.end()) {
                latest[who] = m.entries.size();
                m.entries.push_back(std::move(e));
                continue;
            }
            ClassEntry& kept = m.entries[prev->second];
            const bool newer = e.sub.created > kept.sub.created;
            const std::string older = newer ? kept.file : e.file, newest = newer ? e.file : kept.file;
            m.problems.push_back(older + ": superseded by " + newest + " (a newer submission of " + who.second +
                                 " by the same learner)");
            if (newer) kept = std::move(e);
        } catch (const Error& err) {
            m.problems.push_back(err.what());
        } catch (const std::exception& err) {  // never one file's fault that stops the others
            m.problems.push_back(name + ": cannot be read (" + err.what() + ")");
        }
    }
    std::stable_sort(m.entries.begin(), m.entries.end(), [](const ClassEntry& a, const ClassEntry& b) {
        return std::tie(a.sub.exercise, a.sub.learner) < std::tie(b.sub.exercise, b.sub.learner);
    });
    return m;
}

}  // namespace kl
