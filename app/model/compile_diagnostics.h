// NVRTC's compile log, read into one message per problem, each at its place in the learner's
// file: the editor's gutter, the list under it, and `kladder try` (broken.cu:LINE:COL: error: ...)
// all show these. No CUDA: the window and the runner protocol use them.
//
// API (stable; the window's editor builds on it):
//   struct CompileDiagnostic { file, line, column, severity, message }
//     line and column are 1-based; column is 0 when the log gives no caret, line 0 for a
//     message about the whole compile ("nvrtc: error: ...").
//   parse_nvrtc_log(log, program_name, shown_name)
//     program_name is the name the source was compiled under (the .cu file's name, which
//     compile_kernel passes to nvrtcCreateProgram); messages about it are renamed shown_name
//     (say the learner's path). Headers keep the names NVRTC prints.
//   diagnostics_of_compile(log, source_path)   the same for compile_kernel's log of that file
//   format_diagnostic(d)      "broken.cu:4:37: error: identifier \"x\" is undefined"
//   to_json / diagnostic_from_json (the runner protocol's encoding; from_json throws InputError
//     naming `field`).
//
// What NVRTC 13.0 prints (captured from compile_kernel's own options):
//   broken.cu(4): error: identifier "undefined_thing" is undefined
//         if (i < n) y[i] = a[i] + b[i] + undefined_thing;     <- the line, indented by 2
//                                         ^                     <- caret under the column
//   broken.cu(3): warning #177-D: variable "unused" was declared but never referenced
//   inc.cu(1): catastrophic error: cannot open source file "nothere.cuh"
//             detected during instantiation of "void f<N>() [with N=3]" at line 3   <- a note
//   nvrtc: error: failed to open libnvrtc-builtins.so.13.0.
//   ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async instructions are serialized
//     due to ... in the function 'k'      <- the assembler's note on a kernel that compiled: read
//     as a warning about the whole file (line 0), "ptxas: (C7510) Potential Performance Loss: ...".
//     A rung that hits it (a branch or a call between wgmmas) runs every wgmma one at a time.
// The caret line repeats the tabs of the source line, so the caret's offset (minus the 2 of
// indentation) is the column in characters, a tab counting as one.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kl {

enum class Severity { Error, Warning, Note };
const char* severity_name(Severity s);  // "error", "warning", "note"

struct CompileDiagnostic {
    std::string file;  // shown name ("" for a message about the whole compile)
    int line = 0;      // 1-based; 0 when absent
    int column = 0;    // 1-based; 0 when absent
    Severity severity = Severity::Error;
    std::string message;
    bool operator==(const CompileDiagnostic& o) const {
        return file == o.file && line == o.line && column == o.column && severity == o.severity && message == o.message;
    }
};

// At most kMaxDiagnostics are kept (a runaway log of a generated file cannot flood the window).
constexpr size_t kMaxDiagnostics = 200;

std::vector<CompileDiagnostic> parse_nvrtc_log(const std::string& log, const std::string& program_name,
                                               const std::string& shown_name);
// A line of the log in which ptxas reports a "Potential Performance Loss" (C7510, C7520, ...).
bool is_ptxas_performance_note(const std::string& line);
// The log of compile_kernel for the source at `source_path`, its messages named by that path.
std::vector<CompileDiagnostic> diagnostics_of_compile(const std::string& log, const std::string& source_path);
std::string format_diagnostic(const CompileDiagnostic& d);
// Errors first count: "2 errors, 1 warning".
std::string count_diagnostics(const std::vector<CompileDiagnostic>& ds);

nlohmann::json to_json(const CompileDiagnostic& d);
CompileDiagnostic diagnostic_from_json(const nlohmann::json& j, const std::string& field);

}  // namespace kl
