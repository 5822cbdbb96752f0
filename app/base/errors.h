// Error types of the engine. Each carries one clear line for the user; the CLI maps the kind
// to an exit code (see ExitCode), the GUI shows the message in a panel.
#pragma once
#include <stdexcept>
#include <string>

namespace kl {

// Exit codes of every program built on the engine (documented in README and `kladder --help`).
enum class ExitCode : int {
    Ok = 0,
    Incorrect = 1,  // a rung ran but failed its correctness check
    BadInput = 2,   // a bad file, field, value or command line
    GpuError = 3,   // no usable GPU, or a CUDA / NVRTC / cuBLAS failure
};

class Error : public std::runtime_error {
  public:
    Error(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
    ExitCode code() const { return code_; }

  private:
    ExitCode code_;
};

// Bad input: a manifest, lesson, results file, parameter or size the user can fix.
struct InputError : Error {
    explicit InputError(const std::string& m) : Error(ExitCode::BadInput, m) {}
};

// No GPU, no driver, or a device-side failure (launch error, fault, out of memory).
struct GpuError : Error {
    explicit GpuError(const std::string& m) : Error(ExitCode::GpuError, m) {}
};

// NVRTC rejected a kernel; the message holds the compiler log.
struct CompileError : Error {
    CompileError(const std::string& m, std::string log) : Error(ExitCode::BadInput, m), log_(std::move(log)) {}
    const std::string& log() const { return log_; }

  private:
    std::string log_;
};

}  // namespace kl
