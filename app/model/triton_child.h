// The Triton compile helper's child process (docs/security.md, "What a shared tree can and cannot
// make the program do"). The helper's Python text is part of the program, embedded at build time
// from app/model/triton_helper/kl_triton_compile.py: a kernels tree can neither provide nor
// replace it. Each run gets
//   - a private folder (mkdtemp, mode 0700) that is its working folder, HOME, TMPDIR and
//     TRITON_CACHE_DIR, removed afterwards;
//   - an environment of our own making: PATH = the interpreter's folder, /usr/bin and /bin, and
//     the three folders above; nothing inherited (no PYTHON*, TRITON_*, LD_* or CUDA_* variable);
//   - the interpreter isolated (`-I`: no PYTHON* variables, no user site-packages, no script
//     folder on sys.path) and writing no bytecode (`-B`), the helper's text passed with `-c`;
//   - no descriptor of ours but its three pipes, no core files, files of at most 1 GiB, at most
//     64 MiB of output, and a time limit after which its whole process group is killed.
#pragma once
#include <string>
#include <vector>

#include "base/child_exec.h"

namespace kl {

// The helper's Python text, as the build embedded it.
const std::string& triton_helper_source();

// A folder only we can enter, removed with everything in it when this goes out of scope.
class PrivateFolder {
  public:
    PrivateFolder();  // throws InputError when the temporary folder cannot be made
    ~PrivateFolder();
    PrivateFolder(const PrivateFolder&) = delete;
    PrivateFolder& operator=(const PrivateFolder&) = delete;
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

// "NAME=value" lines: the whole environment the helper gets.
std::vector<std::string> triton_helper_environment(const std::string& python, const std::string& folder);

// Runs `python -I -B -c <helper> args...` in `folder` (a PrivateFolder's), `input` on its stdin.
ExecResult run_triton_helper(const std::string& python, const std::vector<std::string>& args, const std::string& input,
                             const std::string& folder, double timeout_s);

}  // namespace kl
