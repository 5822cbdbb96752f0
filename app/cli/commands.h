// The `kladder` subcommands. Each registers its options on a CLI11 app and returns an exit
// code (kl::ExitCode) when run; errors are thrown as kl::Error and printed by main().
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <vector>

namespace kl::cli {

using Action = std::function<int()>;

Action add_list_command(CLI::App& app);
Action add_run_command(CLI::App& app);
Action add_sweep_command(CLI::App& app);
Action add_calibrate_command(CLI::App& app);
Action add_check_kernels_command(CLI::App& app);
Action add_serve_command(CLI::App& app);
Action add_export_command(CLI::App& app);
Action add_export_lesson_command(CLI::App& app);
Action add_check_lessons_command(CLI::App& app);
Action add_make_cards_command(CLI::App& app);
Action add_ptx_command(CLI::App& app);
Action add_trace_command(CLI::App& app);  // cmd_trace.cpp: the address view
Action add_try_command(CLI::App& app);
Action add_fork_command(CLI::App& app);
Action add_tune_command(CLI::App& app);
Action add_submit_command(CLI::App& app);
Action add_hint_command(CLI::App& app);       // cmd_exercise.cpp
Action add_solution_command(CLI::App& app);   // cmd_exercise.cpp
Action add_exercises_command(CLI::App& app);  // cmd_exercise.cpp
// `kladder class`: keygen and verify; merge when `add_merge` is given (kladder, not kladder-core).
Action add_class_command(CLI::App& app, Action (*add_merge)(CLI::App&));
Action add_class_merge_command(CLI::App& app);

// The commands that differ with app/report (cairo): in `kladder` (cmd_export.cpp) export,
// export-lesson and class with its merge; in `kladder-core` (no_report_commands.cpp), which
// leaves out cairo, class without merge. main.cpp is then compiled once for both programs.
struct CommandSpec {
    const char* name;
    const char* help;
    Action (*adder)(CLI::App&);
};
std::vector<CommandSpec> report_commands();

}  // namespace kl::cli
