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
Action add_try_command(CLI::App& app);
Action add_fork_command(CLI::App& app);
Action add_tune_command(CLI::App& app);

// The figure and handout commands (export, export-lesson), where the program has them:
// cmd_export.cpp in `kladder`; no_report_commands.cpp (none) in `kladder-core`, which leaves
// out cairo. main.cpp is then compiled once for both programs.
struct CommandSpec {
    const char* name;
    const char* help;
    Action (*adder)(CLI::App&);
};
std::vector<CommandSpec> report_commands();

}  // namespace kl::cli
