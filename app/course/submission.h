// A judged submission (`kladder submit`) and the class key that signs it (docs/class-mode.md,
// docs/formats.md section 9). No CUDA.
//
// The file is one JSON object: the learner, the exercise, the source and its SHA-256, the
// workbook's version, the results file of the judged runs (device, calibration, the ladder's rungs
// beside the learner's, each run's clock), the index of the learner's timed run, the judge's checks,
// and a signature: HMAC-SHA256 (base/hmac.h) under the class key over the canonical text of
// everything but the signature (nlohmann's compact dump: keys sorted, no spaces, numbers as they
// round-trip), so re-reading and re-writing the file keeps it valid and any edit breaks it.
//
// The signature proves that someone holding the class key made the file and nobody changed it
// afterwards; it does not prove that the workbook was unmodified or the GPU real.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "course/judge.h"
#include "model/results.h"

namespace kl {

inline constexpr const char* kSubmissionSchema = "kernel-ladder/submission";
inline constexpr int kSubmissionVersion = 1;
inline constexpr const char* kClassKeySchema = "kernel-ladder/class-key";
inline constexpr long long kMaxSubmissionBytes = 8LL << 20;  // a source and a few dozen runs: far less

// The instructor's per-class secret: 32 random bytes, kept in a file (0600) the class receives.
struct ClassKey {
    std::string name;    // the class, for people ("GPU programming, spring")
    std::string secret;  // raw bytes
    // The first 16 hex digits of SHA-256("kernel-ladder class key" + secret): names the key in
    // files and messages without giving it away, so a file signed by another class says so.
    std::string id() const;
};
ClassKey make_class_key(const std::string& name);  // from getrandom(); throws Error when it fails
std::string class_key_to_text(const ClassKey& key);
ClassKey class_key_from_text(const std::string& text, const std::string& origin);  // InputError "<origin>: ..."
ClassKey load_class_key(const std::string& path);

struct Submission {
    std::string learner;
    std::string exercise;  // LESSON/STEP, e.g. "01_first_kernel/3"
    std::string ladder, like;
    std::string source_name, source, source_sha256;
    std::string workbook;  // kToolName of the program that judged it
    std::string created;   // ISO 8601 UTC
    ResultsFile results;   // device, calibration, the rungs beside, then the learner's judged runs
    int mine = -1;         // index in results.runs of the learner's timed run
    std::vector<JudgeCheck> checks;
    // The exercise's goal (course/exercise.h) judged on the accepted runs: a grade, not a check.
    std::string goal, goal_summary;  // "" when not judged
    bool goal_met = false;
    bool accepted() const;  // every check passed
    std::string refusal() const;
    const RunRecord* mine_run() const;  // null when `mine` is out of range
};

nlohmann::json to_json(const Submission& s);  // without the signature
// The signed file's text (indented for people; the signature does not depend on the spaces).
std::string sign_submission(const Submission& s, const ClassKey& key);

// Reads and verifies a signed submission, in this order, each refusal one InputError line
// "<origin>: <problem>": not JSON or cut short ("truncated"), not a submission, a version this
// workbook does not read ("future version"), no signature, signed with another class's key
// ("foreign key"), a signature that does not match the content ("tampered"), a malformed field.
Submission read_submission(const std::string& text, const std::string& origin, const ClassKey& key);
// The same without a key: the fields only (the fuzzer, and reading a file to show it).
Submission parse_submission_fields(const nlohmann::json& j, const std::string& origin);

}  // namespace kl
