// `kladder try --sanitize` (try_sanitize.h): the check run again under compute-sanitizer.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "base/child_exec.h"
#include "base/paths.h"
#include "base/printable.h"
#include "cli/try_sanitize.h"
#include "gpu/gpu_context.h"

namespace fs = std::filesystem;

namespace kl::cli {

namespace {

bool sanitizer_is_executable(const std::string& path) {
    std::error_code ec;
    return !path.empty() && fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// The folders a CUDA toolkit may hold the sanitizer in, from its include folder:
// <root>/include, or <root>/targets/<arch>-linux/include.
std::vector<std::string> sanitizer_candidates() {
    std::vector<std::string> out;
    const fs::path include = cuda_include_dir();
    for (const fs::path& root : {include.parent_path(), include.parent_path().parent_path().parent_path()}) {
        if (root.empty()) continue;
        out.push_back((root / "bin" / "compute-sanitizer").string());
        out.push_back((root / "compute-sanitizer" / "compute-sanitizer").string());
    }
    return out;
}

// "%" starts a pattern in the sanitizer's --log-file (%p: the process id): a literal one is "%%".
std::string sanitizer_log_pattern(const std::string& path) {
    std::string out;
    for (char c : path) out += c == '%' ? std::string("%%") : std::string(1, c);
    return out;
}

std::string read_sanitizer_log(const std::string& path, bool* found) {
    std::ifstream in(path, std::ios::binary);
    *found = in.good();
    std::string text(kMaxSanitizerReportBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(in.good() || in.eof() ? static_cast<size_t>(in.gcount()) : 0);
    return text;
}

std::string sanitizer_first_line(const std::string& text) {
    const size_t start = text.find_first_not_of("\n ");
    if (start == std::string::npos) return "";
    return printable(text.substr(start, text.find('\n', start) - start), 300);
}

// The child's `try --json` object: its one run's verdict, or why it could not run.
void read_child_verdict(const std::string& out, SanitizeOutcome& o, bool* gpu) {
    *gpu = false;
    const nlohmann::json j = nlohmann::json::parse(out, nullptr, false);
    if (!j.is_object() || j.value("schema", "") != "kernel-ladder/try") return;
    try {
        *gpu = j.value("gpu", false);
        if (!*gpu) {
            o.reason = printable(j.value("reason", std::string("no GPU")), 300);
            return;
        }
        const nlohmann::json& run = j.at("results").at("runs").at(0);
        if (run.contains("error") && run["error"].is_object()) {
            o.check = printable(run["error"].value("kind", "") + ": " + run["error"].value("message", ""), 300);
        } else if (run.contains("correctness") && run["correctness"].is_object()) {
            const nlohmann::json& c = run["correctness"];
            o.check = c.value("passed", false) ? "passed"
                                               : std::to_string(c.value("mismatches", int64_t(0))) + " mismatches of " +
                                                     std::to_string(c.value("elements", int64_t(0))) + " elements";
        }
    } catch (const nlohmann::json::exception&) {
        o.check.clear();  // a record this cannot read: the report stands on its own
    }
}

}  // namespace

std::string find_compute_sanitizer(std::string* looked) {
    if (const char* named = std::getenv("KL_COMPUTE_SANITIZER")) {
        if (sanitizer_is_executable(named)) return named;
        *looked = "KL_COMPUTE_SANITIZER=" + printable(named, 300) + " is not an executable file";
        return "";
    }
    std::vector<std::string> folders;
    for (const std::string& c : sanitizer_candidates()) {
        if (sanitizer_is_executable(c)) return c;
        folders.push_back(fs::path(c).parent_path().string());
    }
    if (std::string on_path = find_on_path("compute-sanitizer"); sanitizer_is_executable(on_path)) return on_path;
    *looked = "not in " + folders.front() + " (beside the CUDA toolkit) nor on PATH";
    return "";
}

SanitizeOutcome run_sanitized_check(const SanitizeRequest& req) {
    SanitizeOutcome o;
    o.tool = req.tool;
    std::string looked, no_gpu;
    const std::string sanitizer = find_compute_sanitizer(&looked);
    const bool gpu = GpuContext::available(&no_gpu);
    if (!gpu || sanitizer.empty()) {
        o.reason = "--sanitize needs " + (gpu ? std::string() : "a GPU (" + no_gpu + ")") +
                   (!gpu && sanitizer.empty() ? " and " : "") +
                   (sanitizer.empty() ? "NVIDIA compute-sanitizer, part of the CUDA toolkit (" + looked + ")" : "");
        o.exit = 3;
        return o;
    }
    std::error_code ec;
    std::string self = fs::read_symlink("/proc/self/exe", ec).string();
    if (ec || self.empty()) self = "kladder";
    const std::string log = req.log_folder + "/compute-sanitizer.log";
    std::vector<std::string> argv = {
        sanitizer, "--tool",   req.tool, "--log-file", sanitizer_log_pattern(log), "--print-limit", "1000",      self,
        "try",     req.ladder, "--like", req.like,     "--sanitize-child",         "--json",        "--timeout", "0"};
    argv.insert(argv.end(), req.child_args.begin(), req.child_args.end());
    argv.insert(argv.end(), {"--", req.file});
    ExecOptions how;
    how.max_output = 16u << 20;
    const ExecResult run = run_program(argv, "", req.timeout_s > 0 ? req.timeout_s : 7 * 24 * 3600.0, how);
    if (!run.started || run.timed_out || run.overflowed) {
        o.reason = !run.started    ? "compute-sanitizer did not start: " + run.failure
                   : run.timed_out ? "the sanitized run did not finish within " + std::to_string(req.timeout_s) +
                                         " s (--timeout); stopped"
                                   : "the sanitized run printed more than 16 MiB; stopped";
        o.exit = 3;
        return o;
    }
    bool child_gpu = false;
    read_child_verdict(run.out, o, &child_gpu);
    bool found = false;
    const std::string text = read_sanitizer_log(log, &found);
    if (!found) {
        const std::string said =
            sanitizer_first_line(run.err).empty() ? sanitizer_first_line(run.out) : sanitizer_first_line(run.err);
        o.reason = "compute-sanitizer wrote no report (exit " + std::to_string(run.exit_code) + ")" +
                   (said.empty() ? "" : ": " + said);
        o.exit = 3;
        return o;
    }
    o.report = parse_sanitizer_report(text, req.tool);
    rename_sanitizer_files(o.report, req.staged_name, printable(req.file));
    o.ran = child_gpu || !o.report.findings.empty();
    if (!o.ran && o.reason.empty()) o.reason = "the check did not run under compute-sanitizer";
    if (!o.report.error_summary && o.reason.empty())
        o.reason = "compute-sanitizer's report ends before its ERROR SUMMARY (it stopped early?)";
    const bool unread = o.report.error_summary && *o.report.error_summary > 0 && o.report.findings.empty();
    if (!o.report.findings.empty() || unread)
        o.exit = 1;
    else if (!o.ran || !o.report.error_summary)
        o.exit = 3;
    else
        o.exit = o.check.rfind("fault", 0) == 0 ? 3 : (o.check.empty() || o.check == "passed") ? 0 : 1;
    if (unread) o.reason = "compute-sanitizer counted errors this workbook could not read (its messages below)";
    return o;
}

nlohmann::json to_json(const SanitizeOutcome& o) {
    nlohmann::json findings = nlohmann::json::array(), messages = nlohmann::json::array();
    for (const auto& f : o.report.findings) findings.push_back(to_json(f));
    for (const auto& m : o.report.tool_messages) messages.push_back(m);
    return {{"tool", o.tool},
            {"ran", o.ran},
            {"reason", o.reason},
            {"check", o.check},
            {"findings", findings},
            {"records", o.report.records},
            {"error_summary", o.report.error_summary ? nlohmann::json(*o.report.error_summary) : nlohmann::json()},
            {"tool_messages", messages},
            {"truncated", o.report.truncated}};
}

void print_sanitize_outcome(const SanitizeOutcome& o, const std::string& file) {
    if (!o.ran && o.report.findings.empty()) {
        std::fprintf(stderr, "kladder: %s\n", printable(o.reason).c_str());
        return;
    }
    for (const auto& f : o.report.findings) std::printf("%s\n", format_finding(f).c_str());
    for (const auto& m : o.report.tool_messages) std::printf("compute-sanitizer: %s\n", m.c_str());
    const size_t n = o.report.findings.size();
    std::string summary = "compute-sanitizer " + o.tool + " on " + printable(file) + ": ";
    summary += n == 0 ? std::string("no errors") : std::to_string(n) + (n == 1 ? " finding" : " distinct findings");
    if (o.report.error_summary && n > 0)
        summary += " (" + std::to_string(*o.report.error_summary) + " errors reported in all)";
    if (!o.check.empty()) summary += "; the check run: " + o.check;
    if (o.report.truncated)
        summary += "; the report was cut at " + std::to_string(kMaxSanitizerReportBytes >> 20) + " MiB";
    std::printf("%s\n", summary.c_str());
    if (!o.reason.empty()) std::printf("%s\n", printable(o.reason).c_str());
}

}  // namespace kl::cli
