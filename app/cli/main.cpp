// kladder: the Kernel Ladder command line. Lists lessons and ladders, runs and sweeps rungs on
// the GPU, calibrates the device, compile-checks every rung (no GPU needed).
// Exit codes: 0 ok, 1 a rung failed correctness, 2 bad input, 3 no GPU or a CUDA error.
#include <cstdio>
#include <filesystem>
#include <map>

#include "base/errors.h"
#include "base/printable.h"
#include "base/version.h"
#include "cli_common.h"
#include "commands.h"

int main(int argc, char** argv) {
    CLI::App app{
        "kladder: run, check and measure the rungs of Kernel Ladder's GPU kernel ladders.\n"
        "Exit codes: 0 ok, 1 a rung failed its correctness check, 2 bad input, 3 no GPU or a CUDA error."};
    app.set_version_flag("--version", kl::kToolName);
    app.require_subcommand(1);
    std::map<CLI::App*, kl::cli::Action> actions;
    auto add = [&](const char* name, const char* help, kl::cli::Action (*adder)(CLI::App&)) {
        CLI::App* sub = app.add_subcommand(name, help);
        actions[sub] = adder(*sub);
    };
    add("list", "List lessons, ladders, rungs and their parameters", kl::cli::add_list_command);
    add("run", "Run rungs of a ladder on the GPU: check against the reference, then time", kl::cli::add_run_command);
    add("sweep", "Run one rung over a range of a size axis or a parameter", kl::cli::add_sweep_command);
    add("tune", "Search each rung's parameters on this GPU for its fastest settings; run them with --tuned",
        kl::cli::add_tune_command);
    add("calibrate", "Measure this GPU's copy bandwidth and cuBLAS GEMM rates (cached per device)",
        kl::cli::add_calibrate_command);
    add("check-kernels", "Compile every rung with NVRTC at default parameters and range ends (no GPU needed)",
        kl::cli::add_check_kernels_command);
    add("check-lessons", "Check that every measured number in the lessons is bound to a recording (no GPU needed)",
        kl::cli::add_check_lessons_command);
    add("make-cards", "Write the device reference cards (assets/recorded/cards/) from the recordings",
        kl::cli::add_make_cards_command);
    add("ptx", "Print the PTX NVRTC makes of a rung at given parameters (no GPU needed)", kl::cli::add_ptx_command);
    add("trace", "For one warp of a rung's kernel on the GPU: each lane's addresses, sectors and banks",
        kl::cli::add_trace_command);
    add("fork", "Copy a rung (or a lesson exercise's starter) into your workspace as your own rung",
        kl::cli::add_fork_command);
    add("try", "Compile your own kernel file as a rung of a ladder; on a GPU check and time it beside --like",
        kl::cli::add_try_command);
    add("submit", "Judge your kernel for a class exercise on this GPU and write a signed submission",
        kl::cli::add_submit_command);
    add("exercises", "List the lessons' live exercises (id, ladder, starter, rungs to beat, hints, solution)",
        kl::cli::add_exercises_command);
    add("hint", "Show an exercise's hints 1..N, one more each time you ask", kl::cli::add_hint_command);
    add("solution", "Print an exercise's reference solution (only when you ask)", kl::cli::add_solution_command);
    add("serve", "Runner process for the GUI: JSON-line requests on stdin, replies on stdout",
        kl::cli::add_serve_command);
    for (const kl::cli::CommandSpec& c : kl::cli::report_commands()) add(c.name, c.help, c.adder);
    for (int i = 0; i < argc; ++i) kl::cli::invocation() += (i ? " " : "") + std::string(argv[i]);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
        // One line, like every other error (CLI11's own output adds a second "Run with --help").
        std::fprintf(stderr, "kladder: %s (see kladder --help)\n", kl::printable(e.what(), kl::kMessageChars).c_str());
        return static_cast<int>(kl::ExitCode::BadInput);
    }
    try {
        for (auto& [sub, action] : actions)
            if (sub->parsed()) return action();
    } catch (const kl::Error& e) {
        // A ladder that failed to load is named before what it broke (a lesson, a figure). Messages
        // quote values from files: printable() keeps them on one line, free of terminal control
        // sequences.
        std::fprintf(stderr, "kladder: %s\n",
                     kl::printable(kl::cli::with_ladder_cause(e.what()), kl::kMessageChars).c_str());
        return static_cast<int>(e.code());
    } catch (const std::filesystem::filesystem_error& e) {
        // A path the user gave (or a file in the data tree) that cannot be used: bad input.
        std::fprintf(stderr, "kladder: %s\n", kl::printable(e.what(), kl::kMessageChars).c_str());
        return static_cast<int>(kl::ExitCode::BadInput);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "kladder: internal error: %s\n", kl::printable(e.what(), kl::kMessageChars).c_str());
        return static_cast<int>(kl::ExitCode::GpuError);
    }
    return 0;
}
