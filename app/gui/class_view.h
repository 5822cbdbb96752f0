// Class mode in the window (docs/class-mode.md): Submit for the step's exercise, and a class folder
// opened to read. The window decides nothing here:
// - Submit runs `kladder submit EXERCISE FILE --name N --key K -o FILE --json` in a child process,
//   as the editor runs `kladder try --json` (learner_compile.h): the same judged submission as the
//   command line, and the window shows what it printed. Without a GPU it says so in one line and
//   starts nothing.
// - Open class folder runs course/class_merge.h's merge_class with the profiles' datasheets, the
//   same merge `kladder class merge` makes, on a worker thread; the class window (workbook_class.cpp)
//   draws its leaderboards with the report's figures (report/class_handout.h) and writes nothing.
// No ImGui here: tests drive this part headless.
#pragma once
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "course/class_merge.h"
#include "course/lesson.h"
#include "gui/child_process.h"
#include "plot/scene.h"

namespace kl::gui {

// What `kladder submit --json` said (docs/class-mode.md), as the window shows it.
struct SubmitOutcome {
    bool written = false;             // a signed submission was written
    bool accepted = false;            // every check passed
    std::string line;                 // one line: "accepted: ..." or the refusal, or why nothing was judged
    std::vector<std::string> checks;  // "passed  correct: ...", one per hidden check
    std::vector<std::string> findings;
    std::string file;  // the submission written
};
// A child that printed no object (no GPU, a bad key file, a file that does not compile) is its last
// line of stderr (`kladder: ...`), which names the problem.
SubmitOutcome submit_outcome(int exit_code, const std::string& out, const std::string& err);

// The exercise as `kladder submit` names it: the lesson's folder and the step, from 1
// ("01_first_kernel/8").
std::string exercise_spec(const Lesson& lesson, int step_index);
// Where the window writes a submission: data_dir()/submissions/<exercise>_<UTC time>.json.
std::string submission_path(const std::string& exercise_spec);

// A merged class folder, as the class window shows it.
struct OpenedClass {
    std::string folder, key_id;
    ClassMerge merge;
    std::string error;  // the folder or the key could not be read: one line, nothing merged
};
// merge_class over `folder` with the key file and the device profiles' datasheets.
OpenedClass open_class(const std::string& folder, const std::string& key_file, const std::string& devices_dir);

class ClassView {
  public:
    // [SECTION] Submit
    // Starts `kladder submit` on the learner's file (a submission started before is cancelled).
    void start_submit(const std::string& exercise, const std::string& source, const std::string& learner,
                      const std::string& key_file);
    bool submit_running() const;
    void refuse_submit(const std::string& line);  // shown as the outcome, nothing started
    // The finished submission's outcome, once it is in (kept for drawing).
    const std::optional<SubmitOutcome>& submit_outcome_shown();
    char name[96] = "", key[512] = "";  // the Submit popup's fields (prefilled from the settings)

    // [SECTION] Class folder
    void start_open(const std::string& folder, const std::string& key_file);
    bool open_running() const;
    const OpenedClass* opened();  // the class shown; null before one was opened
    bool window_open = false;
    char folder[512] = "", folder_key[512] = "";
    std::string exercise_shown;  // the exercise whose leaderboards the window shows
    struct Figures {             // the report's two figures of the exercise shown, laid out for the window
        std::string built_for;   // exercise, size and theme they were laid out for
        plot::Scene times, roof;
    } figures;
    bool editing_identity = false;  // the Submit fields shown although the settings hold both

    bool busy() const { return submit_running() || open_running(); }
    nlohmann::json report() const;

  private:
    std::shared_future<SubmitOutcome> submit_;
    ChildCancel submit_cancel_;  // after submit_: destroyed first, so closing never waits on the child
    std::optional<SubmitOutcome> submit_shown_;
    std::future<OpenedClass> open_;
    std::shared_ptr<OpenedClass> opened_;
};

}  // namespace kl::gui
