// `kladder class merge`: a folder of signed submissions verified one by one and gathered into a
// class (docs/class-mode.md). No CUDA; the handout is the report's (report/class_handout.h).
//
// Only the folder's own entries are read (no subfolder, no link, nothing else): regular files
// named *.json of at most kMaxSubmissionBytes. Each bad one is one line "<file>: <problem>" in
// `problems`, and the merge goes on: tampered, truncated, foreign-key, future-version files, a
// second copy of a file (duplicate), an older submission of the same learner and exercise
// (superseded by the newer one).
#pragma once
#include <string>
#include <vector>

#include "course/plausibility.h"
#include "course/submission.h"

namespace kl {

inline constexpr int kMaxClassFiles = 5000;

struct ClassEntry {
    std::string file;  // its name in the submissions folder
    Submission sub;
    std::vector<Finding> findings;  // plausibility
    double median_us = 0, gbps = 0, pct_roof = 0;
    bool refused() const;  // by a judge check or as impossible
    bool flagged() const;
    std::string device() const;
    std::string status() const;  // "accepted", "refused by check '...': ...", "flagged: ..."
};

struct ClassMerge {
    std::vector<ClassEntry> entries;    // by exercise, then learner
    std::vector<std::string> problems;  // one line per file not merged
    std::vector<std::string> exercises() const;
    // The accepted, unflagged entries of one exercise, best share of their device's roof first.
    std::vector<const ClassEntry*> leaderboard(const std::string& exercise) const;
    // The same entries per device (by name), fastest first: one leaderboard per GPU, by time.
    struct DeviceBoard {
        std::string device;
        std::vector<const ClassEntry*> ranked;
    };
    std::vector<DeviceBoard> device_leaderboards(const std::string& exercise) const;
    // The entries of one exercise that are not ranked (refused by a check, impossible, flagged).
    std::vector<const ClassEntry*> not_ranked(const std::string& exercise) const;
};

// Throws InputError only when the folder itself cannot be listed.
ClassMerge merge_class(const std::string& submissions_dir, const ClassKey& key, const std::vector<Datasheet>& sheets);

// One verified submission as the merge keeps it (tests; `merge_class` for each file).
ClassEntry class_entry_of(const std::string& file, Submission sub, const std::vector<Datasheet>& sheets);

}  // namespace kl
