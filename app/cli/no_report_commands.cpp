// `kladder-core` has no figure or handout commands, and class has no merge: they need cairo, which
// the GPU machine lacks (see report_commands() in commands.h).
#include "commands.h"

namespace kl::cli {

std::vector<CommandSpec> report_commands() {
    return {{"class", "Class mode for instructors: make a class key, verify submissions (merge: full kladder)",
             [](CLI::App& a) { return add_class_command(a, nullptr); }}};
}

}  // namespace kl::cli
