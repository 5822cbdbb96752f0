// `kladder-core` has no figure or handout commands: export needs cairo, which the GPU machine
// lacks (see report_commands() in commands.h).
#include "commands.h"

namespace kl::cli {

std::vector<CommandSpec> report_commands() { return {}; }

}  // namespace kl::cli
