// The learner's rung under NVIDIA compute-sanitizer: the Mine tab's "Sanitize" button runs
// `kladder try LADDER FILE --sanitize[=TOOL] --json` in a child process (the window links no CUDA
// library, and a kernel that faults under the tool cannot touch the window) at the window's
// sizes, parameters and dtype, and lists the findings under the editor; a click on one puts the
// caret on its line. Without a GPU nothing is started and nothing is written: one line says
// Sanitize needs one. One run at a time: a new start cancels the one before.
#pragma once
#include <future>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gui/child_process.h"
#include "gui/learner_compile.h"
#include "model/dtype.h"
#include "model/manifest.h"
#include "model/sanitizer_report.h"

namespace kl::gui {

class CodeEditor;

struct LearnerSanitizeOutcome {
    std::vector<SanitizerFinding> findings;
    std::string summary;  // one line: "2 findings (memcheck)", "no errors (memcheck); the check passed", why not
    bool error = false;   // findings, or the run did not happen
};

// The outcome of `kladder try --sanitize --json` (docs/formats.md section 6) as the panel shows
// it; a child that printed no object is its first line of stderr, as an error.
LearnerSanitizeOutcome learner_sanitize_outcome(int exit_code, const std::string& out, const std::string& err);

class LearnerSanitize {
  public:
    // `gpu`: the runner said it has one. Without, nothing starts: the line says so.
    void start(bool gpu, const std::string& tool, const std::string& ladder, const std::string& path,
               const ParamValues& params, const std::map<std::string, int64_t>& sizes, DType dtype);
    // The tool the next run uses (memcheck or racecheck), drawn as a small choice beside the button.
    const std::string& draw_tool_choice(float width);
    const std::string& tool_choice() const { return choice_; }
    bool running() const;
    bool has_content() const { return running() || !shown_.summary.empty(); }
    // The line and the findings, taking a finished run first; a click moves `editor` to a line
    // of the learner's file.
    void draw(CodeEditor& editor, const std::string& path, float height);
    nlohmann::json report() const;  // for the test driver: the line and the findings

  private:
    void take();
    std::shared_future<LearnerSanitizeOutcome> result_;
    LearnerSanitizeOutcome shown_;
    std::string tool_;  // of the run shown or running
    std::string choice_ = "memcheck";
    ChildCancel cancel_;  // after result_: destroyed first, so closing never waits on the child
};

}  // namespace kl::gui
