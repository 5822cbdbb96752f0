// Fuzz target: the lesson loader (app/course/lesson.*) against the real ladders, with the
// lessons' Markdown files beside the mutated lesson.toml.
#include <string>

#include "base/errors.h"
#include "base/paths.h"
#include "course/lesson.h"
#include "fuzz_driver.h"
#include "fuzz_targets_common.h"
#include "model/manifest_load.h"

namespace {
std::string g_dir;
std::vector<kl::Ladder> g_ladders;
}  // namespace

int main(int argc, char** argv) {
    kl::fuzz::Target t;
    t.name = "lesson";
    t.extensions = {".toml"};
    t.dictionary = {"[[step]]",
                    "[lesson]",
                    "[[check]]",
                    "[[card]]",
                    "[exercise]",
                    "text = \"../../../etc/passwd\"",
                    "text = \"/dev/zero\"",
                    "text = \"/etc/passwd\"",
                    "number = 9999999999",
                    "correct = -1",
                    "ladder = \"matmul\"",
                    "rung = \"",
                    "params = { TPB = ",
                    "sizes = { n = ",
                    "plot = \"bars\"",
                    "metric = \"",
                    "sweep = { axis = \"",
                    "runner = { reps = ",
                    "choices = [",
                    "\"\"\"",
                    "\n"};
    t.setup = [] {
        g_dir = kl::fuzz::scratch_with_copies(kl::lessons_dir(), ".md");
        std::vector<std::string> errors;
        g_ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
    };
    t.run = [](const std::string& text) {
        std::string path = g_dir + "/lesson.toml";
        kl::fuzz::write_text(path, text);
        kl::load_lesson(path, g_ladders);
    };
    return kl::fuzz::main_for(t, argc, argv);
}
