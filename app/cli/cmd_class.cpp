// Class mode (issue 41, docs/class-mode.md):
// `kladder submit LESSON/STEP FILE.cu --name NAME --key class.key -o FILE`: the learner's kernel
//   judged on this GPU (the exercise's hidden checks, course/judge.h), timed beside the ladder's
//   rungs of the same operation, and written as a signed submission (course/submission.h). Exit 0
//   when every check passed, 1 when one refused it (the file is written either way, so the
//   instructor sees the attempt), 2 bad input, 3 no GPU. --json prints one object for the window.
// `kladder class keygen -o class.key [--class NAME]`: a new class key (0600; never overwrites).
// `kladder class verify FILE --key class.key`: one file checked as the merge would.
// `kladder class merge` is in cmd_class_merge.cpp (it draws figures, which kladder-core leaves out).
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/paths.h"
#include "base/printable.h"
#include "base/sha256.h"
#include "base/version.h"
#include "base/watchdog.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "course/class_merge.h"
#include "course/exercise.h"
#include "course/judge.h"
#include "course/plausibility.h"
#include "course/submission.h"
#include "gpu/calibration.h"
#include "gpu/compiler.h"
#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "model/compile_diagnostics.h"
#include "model/device_profile.h"
#include "model/try_staging.h"

namespace fs = std::filesystem;

namespace kl::cli {

namespace {

constexpr long long kMaxSourceBytes = 1 << 20;
constexpr size_t kMaxNameChars = 80;

struct SubmitOptions {
    std::string exercise, file, name, key, out;
    int timeout_s = 600;
    bool json = false;
};

void check_learner_name(const std::string& name) {
    if (name.empty() || name.size() > kMaxNameChars)
        throw InputError("--name: give the learner's name (1 to " + std::to_string(kMaxNameChars) + " characters)");
    if (printable(name) != name)
        throw InputError("--name: '" + printable(name) + "' holds control characters or invalid UTF-8");
}

// The file's text, which must be UTF-8 (the submission carries it in JSON).
std::string read_source(const std::string& file) {
    std::string text = read_file(file, kMaxSourceBytes);
    try {
        (void)nlohmann::json(text).dump();
    } catch (const nlohmann::json::exception&) { throw InputError(file + ": not UTF-8 text"); }
    return text;
}

void check_output_path(const std::string& out) {
    const fs::path parent = fs::path(out).parent_path().empty() ? fs::path(".") : fs::path(out).parent_path();
    std::error_code ec;
    if (!fs::is_directory(parent, ec))
        throw InputError("-o " + out + ": folder '" + parent.string() + "' does not exist");
    if (fs::exists(fs::symlink_status(out, ec)) && !fs::is_regular_file(fs::symlink_status(out, ec)))
        throw InputError("-o " + out + ": exists and is not a regular file");
}

// The learner's file as a rung of the ladder like `like`, staged in a private folder.
Rung trial_rung(const Ladder& L, const Rung& like, const std::string& file, const TryStaging& staging) {
    Rung mine = like;
    mine.id = "submitted";
    while (L.find_rung(mine.id)) mine.id += "_";
    mine.title = fs::path(file).filename().string();
    mine.file = mine.title;
    mine.source_path = staging.source();
    mine.learner = true;
    mine.reference = false;
    mine.forked_from = like.id;
    mine.index = static_cast<int>(L.rungs.size());
    mine.number = "S";
    return mine;
}

// A run that could not even be resolved (a hidden size the rung's constraints refuse): a failed record.
RunRecord unresolved_record(const Ladder& L, const Rung& r, const RunOptions& o, const std::string& why) {
    RunRecord rec;
    rec.ladder = L.id;
    rec.rung = r.id;
    rec.title = r.title;
    rec.operation = r.operation;
    rec.sizes = o.sizes;
    rec.error_kind = "input";
    rec.error = why;
    return rec;
}

// The ladder's rungs of the same operation (the like rung among them), at the exercise's size.
// A rung the goal names to beat (`beat`) runs even when it lacks the exercise's data type, in
// its own (an fp32 rung beside a bf16 tensor-core exercise: the same problem, its own inputs).
std::vector<RunRecord> rungs_beside(Runner& runner, const GpuContext& gpu, const Ladder& L, const Rung& like,
                                    const RunOptions& ro, const std::vector<std::string>& beat) {
    std::vector<RunRecord> out;
    for (const Rung& r : L.rungs) {
        if (r.learner || r.operation != like.operation || !rung_arch_refusal(r, gpu.device().cc()).empty()) continue;
        RunOptions mine = ro;
        if (ro.dtype && std::find(r.dtypes.begin(), r.dtypes.end(), *ro.dtype) == r.dtypes.end()) {
            if (std::find(beat.begin(), beat.end(), r.id) == beat.end()) continue;
            mine.dtype = r.dtypes.front();
        }
        try {
            out.push_back(runner.record(resolve_run(L, r, mine, runner.num_sms())));
        } catch (const InputError&) {}  // a rung that cannot take this size is not shown beside
    }
    return out;
}

// The exercise's goal over the judged runs, as `kladder try --exercise` judges it.
void judge_goal(const StepExercise& ex, const std::string& like_id, const Calibration& cal, Submission& s) {
    GoalContext ctx;
    ctx.mine = s.mine_run();
    ctx.calibration = cal;
    for (size_t i = 0; i < s.results.runs.size(); ++i) {
        const RunRecord& r = s.results.runs[i];
        if (int(i) < s.mine && r.rung == like_id) ctx.like = &r;
        if (int(i) < s.mine) ctx.rungs[r.rung] = &r;                 // the rungs beside: rung.ID.METRIC
        if (int(i) > s.mine && !r.timing) ctx.hidden.push_back(&r);  // the checked runs
    }
    const GoalVerdict v = evaluate_goal(parse_goal(ex.goal), ctx);
    s.goal = ex.goal;
    s.goal_met = v.met;
    s.goal_summary = v.summary;
}

// Compiled before any GPU is opened (for sm_90 when there is none; NVRTC needs no GPU): a file
// that does not compile is its NVRTC messages, named by the file as given, and exit 2, nothing
// written, as `kladder try` does.
void compile_or_refuse(const Rung& trial, const RunOptions& ro, const std::string& shown) {
    CompileRequest req;
    req.source_path = trial.source_path;
    req.defines = compile_defines(trial, resolve_params(trial, ro.params), ro.dtype.value_or(trial.dtypes.front()));
    req.arch = rung_arch(trial, "sm_90");
    req.label = "submitted " + shown;
    try {
        compile_kernel(req);
    } catch (const CompileError& e) {
        std::vector<CompileDiagnostic> ds = diagnostics_of_compile(e.log(), trial.source_path);
        for (auto& d : ds) {
            if (d.file == trial.source_path) d.file = shown;
            std::fprintf(stderr, "%s\n", printable(format_diagnostic(d)).c_str());
        }
        throw InputError(shown + " did not compile (" + count_diagnostics(ds) + "); nothing was judged or written");
    }
}

struct Judged {
    Submission sub;
    std::vector<CompileDiagnostic> diagnostics;
};

Judged judge_on_gpu(const Ladder& L, const Rung& like, const Rung& trial, const RunOptions& ro, const StepExercise& ex,
                    const std::string& shown) {
    GpuContext gpu;
    Judged out;
    Calibration cal = load_or_measure_calibration(gpu);
    Runner runner(gpu, cal);
    out.sub.results.device = gpu.device();
    out.sub.results.calibration = cal;
    out.sub.results.runs = rungs_beside(runner, gpu, L, like, ro, ex.beat);
    std::string log;
    const JudgeMeasure measure = [&](const RunOptions& o, JudgedRun::Role role) {
        JudgedRun j;
        j.role = role;
        try {
            j.record = runner.record(resolve_run(L, trial, o, runner.num_sms()), {false, &log, &j.evidence});
        } catch (const InputError& e) { j.record = unresolved_record(L, trial, o, e.what()); }
        return j;
    };
    const auto accepts = [&](const std::map<std::string, int64_t>& sizes) {
        RunOptions o = ro;
        o.sizes = sizes;
        try {
            resolve_run(L, trial, o, runner.num_sms());
            return true;
        } catch (const InputError&) { return false; }
    };
    JudgeOutcome judged = run_judge({ro, ex.hidden_sizes, 2, accepts}, measure);
    out.sub.mine = static_cast<int>(out.sub.results.runs.size());
    for (auto& j : judged.runs) out.sub.results.runs.push_back(std::move(j.record));
    out.sub.checks = std::move(judged.checks);
    judge_goal(ex, like.id, cal, out.sub);
    fill_reference_ratios(out.sub.results.runs);
    if (!log.empty()) {
        out.diagnostics = diagnostics_of_compile(log, trial.source_path);
        for (auto& d : out.diagnostics)
            if (d.file == trial.source_path) d.file = shown;
    }
    return out;
}

void print_submission(const Submission& s, const std::vector<Finding>& findings, const std::string& out) {
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < s.results.runs.size() && int(i) <= s.mine; ++i) {
        const RunRecord& r = s.results.runs[i];
        rows.push_back({int(i) == s.mine ? s.source_name : r.rung,
                        !r.error.empty() ? r.error_kind + ": " + r.error
                        : r.correctness  ? r.correctness->summary()
                                         : "not checked",
                        r.timing ? fmt(r.timing->median_ms * 1e3, 4) : "-",
                        r.timing ? fmt(r.values.num(tag::gbps), 4) : "-"});
    }
    std::printf("device: %s; exercise %s\n",
                s.results.device ? printable(s.results.device->name, kDeviceNameChars).c_str() : "?",
                printable(s.exercise).c_str());
    std::printf("%s", format_table({"rung", "check", "median us", "GB/s"}, rows).c_str());
    for (const auto& c : s.checks)
        std::printf("  %-18s %s  %s\n", c.name.c_str(), c.passed ? "passed" : "FAILED", printable(c.detail).c_str());
    for (const auto& f : findings)
        std::printf("  %s (%s): %s\n", f.level == Finding::Level::Refused ? "impossible" : "flagged", f.check.c_str(),
                    printable(f.detail).c_str());
    if (!s.goal.empty())
        std::printf("exercise goal %s: %s\n", printable(s.goal).c_str(), printable(s.goal_summary).c_str());
    if (s.accepted())
        std::printf("accepted; signed submission written to %s\n", printable(out).c_str());
    else
        std::printf("%s\nsigned submission written to %s (the instructor sees the refusal)\n",
                    printable(s.refusal()).c_str(), printable(out).c_str());
}

nlohmann::json submit_json(const Submission& s, const std::vector<Finding>& findings,
                           const std::vector<CompileDiagnostic>& diagnostics, const std::string& out) {
    nlohmann::json checks = nlohmann::json::array(), found = nlohmann::json::array(), diags = nlohmann::json::array();
    for (const auto& c : s.checks) checks.push_back({{"name", c.name}, {"passed", c.passed}, {"detail", c.detail}});
    for (const auto& f : findings)
        found.push_back({{"level", f.level == Finding::Level::Refused ? "refused" : "flagged"},
                         {"check", f.check},
                         {"detail", f.detail}});
    for (const auto& d : diagnostics) diags.push_back(kl::to_json(d));
    return {{"schema", "kernel-ladder/submit"},
            {"version", 1},
            {"file", out},
            {"accepted", s.accepted()},
            {"refusal", s.refusal()},
            {"checks", checks},
            {"findings", found},
            {"diagnostics", diags},
            {"goal", {{"text", s.goal}, {"met", s.goal_met}, {"summary", s.goal_summary}}}};
}

int submit(const SubmitOptions& o) {
    check_learner_name(o.name);
    const ClassKey key = load_class_key(o.key);
    const std::string source = read_source(o.file);
    check_output_path(o.out);
    auto ladders = load_ladders_or_throw();
    Lesson lesson;
    const LessonStep* step = find_exercise(o.exercise, ladders, &lesson);
    Ladder L = find_ladder_or_throw(ladders, step->ladder);
    const Rung* like = L.find_rung(step->exercise->starter_rung);
    if (!like || like->source_path.empty())
        throw InputError(o.exercise + ": the starter rung '" + step->exercise->starter_rung +
                         "' has no kernel to be like");
    const TryStaging staging(o.file, "submitted.cu", fs::path(like->source_path).parent_path().string());
    const Rung like_copy = *like;
    L.rungs.push_back(trial_rung(L, like_copy, o.file, staging));
    const Rung& trial = L.rungs.back();
    RunOptions ro;
    ro.sizes = step->exercise->sizes;
    if (!step->exercise->dtype.empty()) ro.dtype = parse_dtype(step->exercise->dtype);
    resolve_run(L, trial, ro, 0);  // bad sizes or parameters: one line, exit 2, before the GPU
    compile_or_refuse(trial, ro, o.file);
    Watchdog watchdog(o.timeout_s,
                      "kladder: " + o.file + " was not judged within " + std::to_string(o.timeout_s) +
                          " s (a kernel that never ends?); stopped, nothing written",
                      static_cast<int>(ExitCode::GpuError));
    Judged j = judge_on_gpu(L, *L.find_rung(like_copy.id), trial, ro, *step->exercise, o.file);
    Submission& s = j.sub;
    s.learner = o.name;
    s.exercise = o.exercise;
    s.ladder = L.id;
    s.like = like_copy.id;
    s.source_name = fs::path(o.file).filename().string();
    s.source = source;
    s.source_sha256 = sha256_hex(source);
    s.workbook = kToolName;
    s.created = s.results.created = iso_now_utc();
    s.results.tool = kToolName;
    s.results.command = invocation();
    const std::vector<Finding> findings = plausibility_findings(s, load_datasheets(assets_dir() + "/devices"));
    write_file_atomically(o.out, sign_submission(s, key));
    if (o.json) {
        std::printf("%s\n", submit_json(s, findings, j.diagnostics, o.out).dump(1).c_str());
    } else {
        for (const auto& d : j.diagnostics) std::fprintf(stderr, "%s\n", printable(format_diagnostic(d)).c_str());
        print_submission(s, findings, o.out);
    }
    return s.accepted() ? 0 : static_cast<int>(ExitCode::Incorrect);
}

int keygen(const std::string& out, const std::string& name) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(out, ec)))
        throw InputError("-o " + out +
                         ": exists; a class key is never overwritten (the class's files are signed with it)");
    const ClassKey key = make_class_key(name);
    write_file_atomically(out, class_key_to_text(key));
    if (::chmod(out.c_str(), 0600) != 0) throw InputError("-o " + out + ": cannot make it private (chmod 600)");
    std::printf("class key %s written to %s (0600): hand it to the class; keep a copy to merge with\n",
                key.id().c_str(), printable(out).c_str());
    return 0;
}

int verify(const std::string& file, const std::string& key_path) {
    const ClassKey key = load_class_key(key_path);
    const Submission s = read_submission(read_file(file, kMaxSubmissionBytes), file, key);
    const ClassEntry e =
        class_entry_of(fs::path(file).filename().string(), s, load_datasheets(assets_dir() + "/devices"));
    std::printf("%s: %s, %s on %s: %s\n", printable(file).c_str(), printable(s.learner).c_str(),
                printable(s.exercise).c_str(), printable(e.device()).c_str(), printable(e.status()).c_str());
    return e.refused() || e.flagged() ? static_cast<int>(ExitCode::Incorrect) : 0;
}

}  // namespace

Action add_submit_command(CLI::App& app) {
    auto opt = std::make_shared<SubmitOptions>();
    app.add_option("exercise", opt->exercise, "the exercise, LESSON/STEP, e.g. 01_first_kernel/3")->required();
    app.add_option("file", opt->file, "your kernel, a .cu file (read, never written)")->required();
    app.add_option("--name", opt->name, "your name as the class knows it")->required();
    app.add_option("--key", opt->key, "the class key file your instructor gave you")->required();
    app.add_option("-o,--output", opt->out, "the submission file to write (hand it in)")->required();
    app.add_option("--timeout", opt->timeout_s,
                   "seconds the judging may take before it is stopped, exit 3 (default 600)")
        ->check(CLI::Range(0, 86400));
    app.add_flag("--json", opt->json, "print one JSON object (docs/formats.md, section 9) instead of text");
    return [opt] { return submit(*opt); };
}

Action add_class_command(CLI::App& app, Action (*add_merge)(CLI::App&)) {
    app.require_subcommand(1);
    auto keygen_out = std::make_shared<std::string>(), class_name = std::make_shared<std::string>();
    CLI::App* kg = app.add_subcommand("keygen", "Make a new class key (instructor)");
    kg->add_option("-o,--output", *keygen_out, "the key file to write (never overwritten)")->required();
    kg->add_option("--class", *class_name, "the class's name, for people");
    auto verify_file = std::make_shared<std::string>(), verify_key = std::make_shared<std::string>();
    CLI::App* vf = app.add_subcommand("verify", "Check one submission's signature and plausibility (instructor)");
    vf->add_option("file", *verify_file, "a submission file")->required();
    vf->add_option("--key", *verify_key, "the class key file")->required();
    CLI::App* mg = app.add_subcommand("merge",
                                      "Verify a folder of submissions and write the class's leaderboards, "
                                      "handout and gradebook (instructor)");
    Action merge;
    if (add_merge) {
        merge = add_merge(*mg);
    } else {  // kladder-core: no cairo, so no figures; one line saying so, not "a subcommand is required"
        mg->allow_extras();
        merge = []() -> int {
            throw InputError(
                "class merge draws figures, which this build (kladder-core) leaves out: run the full kladder");
        };
    }
    return [=] {
        if (kg->parsed()) return keygen(*keygen_out, *class_name);
        if (vf->parsed()) return verify(*verify_file, *verify_key);
        return merge();
    };
}

}  // namespace kl::cli
