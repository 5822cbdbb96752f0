// Fuzz target: the NVRTC log parser (app/model/compile_diagnostics.*) and the exercise goal
// parser (app/course/exercise.*). A log is the compiler's text about the learner's own file, so
// any line of it may hold anything the learner typed; a goal is lesson data. Neither may crash,
// and every diagnostic must survive the runner protocol's JSON round trip.
#include <cstdio>
#include <cstdlib>

#include "base/errors.h"
#include "course/exercise.h"
#include "fuzz_driver.h"
#include "model/compile_diagnostics.h"
#include "model/results_json.h"

int main(int argc, char** argv) {
    kl::fuzz::Target t;
    t.name = "nvrtc_log";
    t.extensions = {".log", ".goal"};
    t.dictionary = {"mine.cu(",
                    "): error: ",
                    "): warning #177-D: ",
                    "): catastrophic error: ",
                    "  ^\n",
                    "\t",
                    "\n",
                    "detected during instantiation of ",
                    " at line ",
                    " of \"",
                    "nvrtc: error: ",
                    "correct and ",
                    "gbps >= ",
                    " * device.copy_gbps",
                    "like.us",
                    "99999999999"};
    t.run = [](const std::string& text) {
        auto ds = kl::parse_nvrtc_log(text, "mine.cu", "/ws/mine.cu");
        if (ds.size() > kl::kMaxDiagnostics) std::abort();
        for (const auto& d : ds) {
            if (d.line < 0 || d.column < 0) std::abort();
            if (!(kl::diagnostic_from_json(kl::to_json(d), "d") == d)) std::abort();
            (void)kl::format_diagnostic(d);
        }
        try {
            kl::parse_goal(text);
        } catch (const kl::InputError&) {
            // a goal that does not parse is refused with a message
        }
    };
    return kl::fuzz::main_for(t, argc, argv);
}
