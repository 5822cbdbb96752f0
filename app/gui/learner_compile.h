// The learner's rung compiled without a GPU: when no runner can check and time it, "Save and run"
// still compiles it with NVRTC, in a `kladder try LADDER FILE --json --compile-only` child process
// (the window links no CUDA library), and the editor marks NVRTC's messages at line:col, as the
// command line prints them. One compile at a time: a new start cancels the one before.
#pragma once
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "gui/child_process.h"
#include "model/compile_diagnostics.h"
#include "model/dtype.h"
#include "model/manifest.h"

namespace kl::gui {

struct LearnerCompileOutcome {
    bool compiled = false;
    std::vector<CompileDiagnostic> diagnostics;
    std::string summary;  // one line for the learner's panel
};

// The outcome of `kladder try --json` (docs/formats.md section 6) as the panel shows it; a child
// that printed no object (a bad file, a missing kladder) is its one line of stderr, as an error.
LearnerCompileOutcome learner_compile_outcome(int exit_code, const std::string& out, const std::string& err,
                                              const std::string& file);

class LearnerCompile {
  public:
    void start(const std::string& ladder, const std::string& path, const ParamValues& params, DType dtype);
    bool running() const;
    // The finished compile's outcome, once; nothing while it runs or when none was started.
    std::optional<LearnerCompileOutcome> take();

  private:
    std::shared_future<LearnerCompileOutcome> result_;
    ChildCancel cancel_;  // after result_: destroyed first, so closing never waits on the child
};

}  // namespace kl::gui
