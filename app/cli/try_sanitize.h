// `kladder try LADDER FILE --sanitize[=memcheck|racecheck]`: the learner's check run (not the
// timing) again under NVIDIA compute-sanitizer, its report mapped to the learner's lines.
//   - The sanitizer is looked for beside the CUDA toolkit the build used (and CUDA_HOME's), then
//     on PATH; KL_COMPUTE_SANITIZER names one exactly (tests). It must start the program it
//     checks, so the parent runs `compute-sanitizer --tool T --log-file F kladder try ...
//     --sanitize-child`: the child compiles the same file (a cache hit: the same staged name and
//     options) and checks it once at the same sizes, parameters and dtype, untimed and without
//     the like rung, and prints its record as `try --json` does.
//   - NVRTC compiles every rung with -lineinfo, under the staged file's name, which is the
//     learner's own file name when it is a plain one ("mine.cu"); the report's places in that
//     file are renamed to the file as given on the command line.
//   - The report (model/sanitizer_report.h) is read as untrusted text: size-limited, grouped.
// No GPU or no compute-sanitizer: one line saying which, exit 3. Findings: exit 1; clean: the
// check run's own exit (0 when it passed, 1 for wrong results, 3 for a fault).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/sanitizer_report.h"

namespace kl::cli {

struct SanitizeRequest {
    std::string tool;  // "memcheck" or "racecheck"
    std::string ladder, like;
    std::string file;                     // as given on the command line
    std::string staged_name;              // the name NVRTC compiled it under (the sanitizer's file name)
    std::string log_folder;               // a private folder for the report (the staging folder)
    std::vector<std::string> child_args;  // -p, -s, --dtype: the same problem in the child
    int timeout_s = 120;                  // the whole sanitized run; 0: none
};

struct SanitizeOutcome {
    std::string tool;
    bool ran = false;    // the check ran under the sanitizer and its report was read
    std::string reason;  // why it did not run, or why the report is incomplete
    std::string check;   // the check run's verdict ("passed", "12 mismatches of 1000003 elements", "fault: ...")
    SanitizerReport report;
    int exit = 0;
};

// The first compute-sanitizer found, or "" with *looked saying where it looked.
std::string find_compute_sanitizer(std::string* looked);

SanitizeOutcome run_sanitized_check(const SanitizeRequest& req);

nlohmann::json to_json(const SanitizeOutcome& o);
// Findings, one a line, then one line of summary (stdout); a run that did not happen: one line
// on stderr.
void print_sanitize_outcome(const SanitizeOutcome& o, const std::string& file);

}  // namespace kl::cli
