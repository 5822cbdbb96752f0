// NVIDIA compute-sanitizer's report (memcheck, racecheck), read into one finding per distinct
// problem, each at its place in the learner's file: `kladder try --sanitize` prints them as
// "mine.cu:16:  memcheck: ...", and the window's Sanitize list moves the editor to the line. No
// CUDA, no process: a pure function of the report's text, which is untrusted (it quotes kernel
// names and paths, and a broken run can leave anything in the file): the text is cut at
// kMaxSanitizerReportBytes, every line at kMaxSanitizerLineBytes, findings at
// kMaxSanitizerFindings, and no text makes the parser throw.
//
// What compute-sanitizer prints (its documentation; every detail line carries the "=========
// " prefix, and the details are indented under the record's first line; a line with only the
// prefix ends a record):
//   Invalid __global__ write of size 4 bytes                         <- memcheck record
//       at vector_add(float *, const float *, const float *, long long)+0x1d0 in mine.cu:16
//       by thread (31,0,0) in block (976,0,0)
//       Address 0x7f3a2c3d0000 is out of bounds                    (newer: "Access to 0x...")
//       and is 1 bytes after the nearest allocation at 0x7f3a2c000000 of size 4,000,012 bytes
//       Saved host backtrace up to driver entry point at kernel launch time
//       Host Frame: ...
//   Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA
//       API call to cudaStreamSynchronize.                          <- the host's asynchronous error
//   Error: Race reported between Write access at k(float *)+0xb0 in mine.cu:28   <- racecheck
//       and Read access at k(float *)+0xc0 in mine.cu:30 [1024 hazards]
//       (also split over lines: "Write access at" / "k(...)+0xb0 in mine.cu:28" / "and Read ...")
//   ERROR SUMMARY: 2 errors          RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
// Older releases (cuda-memcheck's format) write the place as "at 0x000000c8 in /path/mine.cu:16:
// kernel(float*)" and the severity of a race as "WARN:" or "WARNING:"; both are read.
//
// "N bytes after the nearest allocation at B of size S" counts from the allocation's last byte:
// an access at B + S (the first byte past the end) is "1 bytes after". The finding counts from
// the end: "just past the end of a 4096-byte buffer", "4 bytes past the end of a 4096-byte buffer".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace kl {

constexpr size_t kMaxSanitizerReportBytes = 8u << 20;  // the rest of a longer report is not read
constexpr size_t kMaxSanitizerLineBytes = 4096;        // a longer line is cut
constexpr size_t kMaxSanitizerFindings = 200;          // distinct findings kept

// Another access of a race: "and Read access at ... in mine.cu:30 [4 hazards]".
struct SanitizerSite {
    std::string access;  // "read", "write", "atomic"
    std::string file;    // "" when the report gives no source line
    int line = 0;
    int64_t hazards = 0;
};

struct SanitizerFinding {
    std::string tool;      // "memcheck", "racecheck" (the tool that was asked for)
    std::string severity;  // "error", "warning"
    std::string what;      // "invalid global write of 4 bytes", "race: write against read", "cudaStreamSynchronize ..."
    std::string file;      // where (a race: its first access); "" when no line is given (no -lineinfo, a host call)
    int line = 0;
    std::string kernel;                 // "vector_add(float *, ...)", "" when not given
    std::string thread, block;          // "(31,0,0)", "(976,0,0)" (the first occurrence)
    std::string detail;                 // "just past the end of a 4000012-byte buffer"
    std::vector<SanitizerSite> others;  // a race's other accesses
    int64_t hazards = 0;                // a race: hazards of all its sites
    int count = 1;                      // records of the report grouped into this finding
};

struct SanitizerReport {
    std::vector<SanitizerFinding> findings;  // distinct, in order of first appearance
    int records = 0;                         // records read (findings count them)
    std::optional<int64_t> error_summary;    // "ERROR SUMMARY: N errors" (racecheck: its errors)
    std::vector<std::string> tool_messages;  // the tool's own complaints ("Internal Sanitizer Error: ...")
    bool truncated = false;                  // the text was longer than kMaxSanitizerReportBytes
};

// `tool` names the findings ("memcheck" or "racecheck").
SanitizerReport parse_sanitizer_report(std::string_view text, const std::string& tool);

// The files of findings named `from` (the name the source was compiled under) renamed `to`.
void rename_sanitizer_files(SanitizerReport& r, const std::string& from, const std::string& to);

// "mine.cu:16:  memcheck: invalid global write of 4 bytes, thread (3,0,0) block (976,0,0), just
// past the end of a 4000012-byte buffer (445 times)"; a finding with no line is named by its
// kernel ("kernel vector_add: ...") or, a host call's error, "host: ...".
std::string format_finding(const SanitizerFinding& f);

nlohmann::json to_json(const SanitizerFinding& f);
// Throws InputError naming `field`.
SanitizerFinding finding_from_json(const nlohmann::json& j, const std::string& field);

}  // namespace kl
