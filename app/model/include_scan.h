// What a kernel source #includes, found and read by the workbook itself, so that NVRTC never
// opens a file of the tree: compile_kernel hands every header to nvrtcCreateProgram in memory,
// under the name written in the #include, and compiles with --no-source-include and only CUDA's
// include folder on the search path. A header that is a FIFO, a device, a folder or a link out of
// the tree is refused with one line naming the #include and the file that holds it, before NVRTC
// runs (NVRTC would block forever on a FIFO). No CUDA here: `kladder try` stages with it too.
//
// Names are looked up as NVRTC's -I would: "name" beside the file that includes it, then in
// `dirs` in order; <name> in `dirs` only. A name found in none of them is left to NVRTC (CUDA's
// own headers, or NVRTC's "cannot open source file"), unless it could reach outside CUDA's
// include folder (an absolute name, or one whose `..` leads out of it to a file that exists):
// that is refused. So is `#include MACRO` (NVRTC would open a name the scan never saw).
// `__has_include` operands are looked up like #include names (NVRTC opens them to answer).
#pragma once
#include <string>
#include <vector>

namespace kl {

struct IncludeSearch {
    std::vector<std::string> dirs;   // -I order: kernels/common, then the rung's folder
    std::vector<std::string> roots;  // the real path of every header read must lie in one of these
    std::string system_dir;          // CUDA's include folder: trusted, left to NVRTC
};

// One #include or __has_include found in a source, as written.
struct IncludeDirective {
    std::string name;
    bool angle = false;   // <name> rather than "name"
    int line = 0;         // 1-based, in the file as stored (before line splices)
    bool shadow = false;  // inside a comment or raw string: only checked, never read
    bool test = false;    // __has_include(...) rather than #include
};

struct IncludedFile {
    std::string name;  // as written in the #include: the name NVRTC is given
    std::string path;  // where it was read
    std::string text;
    std::string includer;          // the file whose #include named it first
    int line = 0;                  // that #include's line
    bool beside_includer = false;  // found in the includer's own folder (not through `dirs`)
};

struct ScannedSource {
    std::string path, text;
    // Every header of the tree it includes, directly or not, in the order found (an includer
    // before the headers it names).
    std::vector<IncludedFile> headers;
};

// The search a rung's #includes get (the compiler's, and the tuned settings' source hash):
// kernels/common, then the rung's folder; each header must lie in the kernels folder or the rung's own.
IncludeSearch rung_include_search(const std::string& source_path);

// At most this many headers per compile, together at most kMaxReadBytes.
constexpr size_t kMaxIncludedFiles = 256;

// Reads `source_path` and every header it includes. Throws InputError naming the file and line.
ScannedSource scan_source(const std::string& source_path, const IncludeSearch& search);

// The #include and __has_include names of one text. Throws InputError ("PATH:LINE: ...") for a
// NUL byte and for `#include MACRO`.
std::vector<IncludeDirective> find_includes(const std::string& text, const std::string& path);

// Throws InputError "PATH:LINE: a NUL byte ..." when `text` holds one (NVRTC reads a C string
// and would silently ignore everything after it).
void refuse_nul_bytes(const std::string& text, const std::string& path);

}  // namespace kl
