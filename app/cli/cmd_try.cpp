// `kladder fork LADDER RUNG`: a rung (or an exercise's starter) copied into the learner's workspace.
// `kladder try LADDER FILE.cu [--like RUNG] [--param K=V ...] [--size K=V ...] [--json]
//  [--exercise LESSON/STEP] [--compile-only]`: the learner's own kernel file, compiled, then on a
// GPU checked and timed as a rung of that ladder beside the rung it is like.
//   - The `--like` rung's manifest entry supplies parameters, launch geometry, inputs, reference
//     and tolerances (default: the workspace rung whose file this is, the exercise's starter, else
//     the ladder's first rung with a kernel).
//   - The file is read, never written beside: it is copied with exactly the headers it includes
//     (from its own folder, then the like rung's) to a fresh private folder in the cache
//     (try_staging.h), compiled there through the one compile path (compile_kernel, as `kladder
//     ptx` and every rung), and NVRTC's messages are named by the file as given: "broken.cu:4:37:
//     error: ...", exit 2. A file named like an option is given after `--` or as ./-name.cu.
//   - No GPU: exit 3 after a clean compile, saying there is no GPU to check and time it.
//   - GPU: the like rung and the file run at the same size (plus an exercise's hidden sizes,
//     checked, and the rungs its goal names to beat, timed), a table of the like rung, the file
//     and the rungs to beat; a failed check of the file is exit 1 with the mismatch count; an
//     exercise's goal not met is exit 1 too.
//   --json prints one object instead (docs/formats.md, section 6): the window's editor runs
//   `kladder try ... --json --compile-only` to get the diagnostics for its gutter.
//   --sanitize[=memcheck|racecheck] runs the check again under compute-sanitizer instead of
//   checking and timing (try_sanitize.h, cmd_try_sanitize.cpp); the window's Sanitize button runs
//   `kladder try ... --sanitize --json`.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/errors.h"
#include "base/paths.h"
#include "base/printable.h"
#include "base/version.h"
#include "base/watchdog.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/try_sanitize.h"
#include "course/exercise.h"
#include "course/lesson.h"
#include "gpu/calibration.h"
#include "gpu/compiler.h"
#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "model/compile_diagnostics.h"
#include "model/results_json.h"
#include "model/try_staging.h"
#include "model/workspace.h"

namespace fs = std::filesystem;

namespace kl::cli {

namespace {

struct TryOptions {
    std::string ladder, file, like, dtype, exercise, arch = "sm_90", sanitize;
    std::vector<std::string> params, sizes;
    bool json = false, compile_only = false;
    bool sanitize_child = false;  // the run compute-sanitizer starts: one check, untimed, no like rung
    int reps = 0, timeout_s = 120;
};

// What one `try` found out, printed as text or JSON.
struct TryOutcome {
    std::string ladder, file, like, rung_id;
    bool compiled = false;
    std::vector<CompileDiagnostic> diagnostics;
    bool gpu = false;
    std::string no_gpu_reason;
    ResultsFile results;                 // runs: like, mine, then mine at the hidden sizes
    std::optional<GoalVerdict> verdict;  // with --exercise
    std::string exercise, goal;
    std::optional<SanitizeOutcome> sanitize;  // with --sanitize
    int exit = 0;
};

// "My Kernel-2.cu" -> "my_kernel_2"
std::string rung_id_of(const std::string& file, const Ladder& L) {
    std::string id;
    for (char c : fs::path(file).stem().string())
        id += std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(static_cast<unsigned char>(c))) : '_';
    if (id.empty()) id = "yours";
    while (L.find_rung(id)) id += "_try";
    return id;
}

// The like rung: --like, else the exercise's starter, else the workspace rung whose file this is,
// else the ladder's first rung with a kernel.
std::string pick_like(const TryOptions& opt, const Ladder& L, const StepExercise* ex, const fs::path& file) {
    if (!opt.like.empty()) return opt.like;
    if (ex) return ex->starter_rung;
    std::error_code ec;
    for (const auto& r : L.rungs)
        if (r.learner && fs::equivalent(r.source_path, file, ec)) return r.id;
    for (const auto& r : L.rungs)
        if (!r.source_path.empty()) return r.id;
    throw InputError("ladder " + L.id + " has no rung with a kernel to be like");
}

void rename_diagnostics(std::vector<CompileDiagnostic>& ds, const std::string& staged, const std::string& shown) {
    for (auto& d : ds)
        if (d.file == staged) d.file = shown;
}

// The name the file is staged and compiled under: its own when that is a plain name (the
// sanitizer's report and NVRTC's messages then name the learner's file), else the rung id's. A
// plain name starts with a letter or digit: NVRTC reads a program name that starts with '-' as
// an option ("-DFOO.cu", "--help.cu": hostile.cache).
std::string staged_name_of(const std::string& file, const std::string& rung_id) {
    const std::string name = fs::path(file).filename().string();
    bool plain = name.size() > 3 && name.size() <= 100 && std::isalnum(static_cast<unsigned char>(name[0])) &&
                 name.substr(name.size() - 3) == ".cu";
    for (char c : name)
        plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.');
    return plain ? name : rung_id + ".cu";
}

// The child of `--sanitize`: the file checked once, untimed, with no calibration and no like rung.
void check_on_gpu_once(GpuContext& gpu, const Ladder& L, const Rung& mine, RunOptions ro, TryOutcome& out) {
    Runner runner(gpu, std::nullopt);
    out.results.device = gpu.device();
    ro.time = false;
    out.results.runs.push_back(runner.record(resolve_run(L, mine, ro, runner.num_sms())));
}

// What the sanitized child needs to run the same problem: sizes, parameters and dtype.
std::vector<std::string> child_args_of(const RunOptions& ro) {
    std::vector<std::string> args;
    for (const auto& [k, v] : ro.sizes) args.insert(args.end(), {"-s", k + "=" + std::to_string(v)});
    for (const auto& [k, v] : ro.params) args.insert(args.end(), {"-p", k + "=" + std::to_string(v)});
    if (ro.dtype) args.insert(args.end(), {"--dtype", to_string(*ro.dtype)});
    return args;
}

// Compiles the trial rung for `arch` (no GPU); fills diagnostics; false when it did not compile.
bool compile_trial(const Ladder& L, const Rung& mine, const RunOptions& ro, const std::string& arch,
                   const std::string& shown, TryOutcome& out) {
    CompileRequest req;
    req.source_path = mine.source_path;
    req.defines = compile_defines(mine, resolve_params(mine, ro.params), ro.dtype.value_or(mine.dtypes.front()));
    req.arch = rung_arch(mine, arch);
    req.label = L.id + "/" + mine.id;
    try {
        CompiledCode c = compile_kernel(req);
        out.diagnostics = diagnostics_of_compile(c.log, mine.source_path);
        out.compiled = true;
    } catch (const CompileError& e) {
        out.diagnostics = diagnostics_of_compile(e.log(), mine.source_path);
        if (out.diagnostics.empty()) out.diagnostics.push_back({shown, 0, 0, Severity::Error, e.what()});
        out.compiled = false;
    }
    rename_diagnostics(out.diagnostics, mine.source_path, shown);
    return out.compiled;
}

void run_on_gpu(GpuContext& gpu, const Ladder& L, const Rung& like, const Rung& mine, const RunOptions& ro,
                const StepExercise* ex, const std::string& shown, TryOutcome& out) {
    Calibration cal = load_or_measure_calibration(gpu);
    Runner runner(gpu, cal);
    out.results.device = gpu.device();
    out.results.calibration = cal;
    std::string log;
    out.results.runs.push_back(runner.record(resolve_run(L, like, ro, runner.num_sms()), {false, &log}));
    log.clear();
    out.results.runs.push_back(runner.record(resolve_run(L, mine, ro, runner.num_sms()), {false, &log}));
    if (!log.empty()) {
        out.diagnostics = diagnostics_of_compile(log, mine.source_path);
        rename_diagnostics(out.diagnostics, mine.source_path, shown);
    }
    std::vector<RunRecord> beside;  // the rungs the goal names (rung.ID.METRIC), after the hidden sizes
    if (ex)
        for (const std::string& id : ex->beat)
            if (const Rung* b = L.find_rung(id); b && id != like.id) {
                RunOptions its = ro;  // in the exercise's data type when the rung has it, else its own
                if (ro.dtype && std::find(b->dtypes.begin(), b->dtypes.end(), *ro.dtype) == b->dtypes.end())
                    its.dtype = b->dtypes.front();
                beside.push_back(runner.record(resolve_run(L, *b, its, runner.num_sms())));
            }
    if (ex) {
        for (const auto& sizes : ex->hidden_sizes) {
            RunOptions hidden = ro;
            for (const auto& [k, v] : sizes) hidden.sizes[k] = v;
            hidden.time = false;  // checked, not timed
            out.results.runs.push_back(runner.record(resolve_run(L, mine, hidden, runner.num_sms())));
        }
        GoalContext ctx;
        ctx.like = &out.results.runs[0];
        ctx.mine = &out.results.runs[1];
        const size_t hidden_end = out.results.runs.size();
        for (auto& b : beside) out.results.runs.push_back(std::move(b));
        for (size_t i = 2; i < hidden_end; ++i) ctx.hidden.push_back(&out.results.runs[i]);
        ctx.rungs[like.id] = &out.results.runs[0];
        for (size_t i = hidden_end; i < out.results.runs.size(); ++i)
            ctx.rungs[out.results.runs[i].rung] = &out.results.runs[i];
        ctx.calibration = cal;
        out.verdict = evaluate_goal(parse_goal(ex->goal), ctx);
    }
    fill_reference_ratios(out.results.runs);
}

nlohmann::json to_json(const TryOutcome& o) {
    nlohmann::json j = {{"schema", "kernel-ladder/try"},
                        {"version", 1},
                        {"ladder", o.ladder},
                        {"file", o.file},
                        {"like", o.like},
                        {"rung", o.rung_id},
                        {"compiled", o.compiled},
                        {"gpu", o.gpu},
                        {"exit", o.exit}};
    j["diagnostics"] = nlohmann::json::array();
    for (const auto& d : o.diagnostics) j["diagnostics"].push_back(kl::to_json(d));
    if (!o.gpu) j["reason"] = o.no_gpu_reason;
    j["sanitize"] = o.sanitize ? to_json(*o.sanitize) : nlohmann::json(nullptr);
    j["results"] = o.results.runs.empty() ? nlohmann::json(nullptr) : kl::to_json(o.results);
    if (o.verdict) {
        j["exercise"] = {
            {"id", o.exercise}, {"goal", o.goal}, {"met", o.verdict->met}, {"summary", o.verdict->summary}};
        j["exercise"]["clauses"] = o.verdict->lines;
    } else {
        j["exercise"] = nullptr;
    }
    return j;
}

void print_text(const TryOutcome& o) {
    for (const auto& d : o.diagnostics) std::fprintf(stderr, "%s\n", printable(format_diagnostic(d)).c_str());
    if (!o.compiled) {
        std::fprintf(stderr, "kladder: %s did not compile (%s)\n", printable(o.file).c_str(),
                     count_diagnostics(o.diagnostics).c_str());
        return;
    }
    if (o.sanitize) return print_sanitize_outcome(*o.sanitize, o.file);
    if (!o.gpu) {
        std::printf("%s compiled as a rung of %s like %s; %s: no GPU to check and time it\n", printable(o.file).c_str(),
                    o.ladder.c_str(), o.like.c_str(), printable(o.no_gpu_reason).c_str());
        return;
    }
    std::vector<std::vector<std::string>> rows;
    const auto& runs = o.results.runs;
    for (size_t i = 0; i < runs.size(); ++i) {
        const RunRecord& r = runs[i];
        if (i >= 2 && r.rung == o.rung_id) continue;  // a hidden size: listed below
        std::string ratio = "-";
        if (i > 0 && r.timing && runs[0].timing && r.timing->median_ms > 0)
            ratio = fmt(runs[0].timing->median_ms / r.timing->median_ms, 3) + "x";
        const bool flops = r.values.num(tag::flops) > 0 && r.values.num(tag::tflops) >= 0.01;
        rows.push_back({i == 0   ? r.rung + " (like)"
                        : i == 1 ? o.file
                                 : r.rung + " (to beat)",
                        !r.error.empty() ? r.error_kind + ": " + r.error
                        : r.correctness  ? r.correctness->summary()
                                         : "not checked",
                        r.timing ? fmt(r.timing->median_ms, 4) : "-", r.timing ? fmt(r.values.num(tag::gbps), 4) : "-",
                        r.timing && flops ? fmt(r.values.num(tag::tflops), 3) : "-", i == 0 ? "1x" : ratio});
    }
    std::printf("device: %s; ladder %s\n",
                o.results.device ? printable(o.results.device->name, kDeviceNameChars).c_str() : "?", o.ladder.c_str());
    std::printf("%s", format_table({"rung", "check", "median ms", "GB/s", "TFLOP/s", "speed vs like"}, rows).c_str());
    for (size_t i = 2; i < runs.size(); ++i) {
        if (runs[i].rung != o.rung_id) continue;  // a rung to beat: in the table
        std::string size;
        for (const auto& [k, v] : runs[i].sizes) size += (size.empty() ? "" : " ") + k + "=" + std::to_string(v);
        std::printf("hidden size %s: %s\n", size.c_str(),
                    !runs[i].error.empty() ? printable(runs[i].error_kind + ": " + runs[i].error).c_str()
                    : runs[i].correctness  ? runs[i].correctness->summary().c_str()
                                           : "not checked");
    }
    if (runs.size() > 1 && runs[1].correctness && !runs[1].correctness->passed)
        std::printf("%s: %lld mismatches of %lld elements\n", printable(o.file).c_str(),
                    static_cast<long long>(runs[1].correctness->mismatches),
                    static_cast<long long>(runs[1].correctness->elements));
    if (o.verdict) {
        std::printf("exercise %s: %s\n", printable(o.exercise).c_str(), printable(o.goal).c_str());
        for (const auto& l : o.verdict->lines) std::printf("  %s\n", printable(l).c_str());
        std::printf("%s\n", printable(o.verdict->summary).c_str());
    }
}

int exit_code(const TryOutcome& o) {
    if (!o.compiled) return static_cast<int>(ExitCode::BadInput);
    if (o.sanitize) return o.sanitize->exit;
    if (!o.gpu) return static_cast<int>(ExitCode::GpuError);
    int code = 0;
    for (size_t i = 1; i < o.results.runs.size(); ++i)  // the file's own runs, not the rungs beside
        if (o.results.runs[i].rung == o.rung_id)
            code = std::max(code, static_cast<int>(exit_code_of(o.results.runs[i])));
    if (o.verdict && !o.verdict->met) code = std::max(code, static_cast<int>(ExitCode::Incorrect));
    return code;
}

int try_file(const TryOptions& opt) {
    auto ladders = load_ladders_or_throw();
    Lesson lesson;
    const LessonStep* step = opt.exercise.empty() ? nullptr : find_exercise(opt.exercise, ladders, &lesson);
    const StepExercise* ex = step ? &*step->exercise : nullptr;
    if (step && step->ladder != opt.ladder)
        throw InputError("--exercise " + opt.exercise + " runs ladder " + step->ladder + ", not " + opt.ladder);
    Ladder L = find_ladder_or_throw(ladders, opt.ladder);
    std::string workspace_problem;  // a broken workspace only matters when --like names its rung
    try {
        merge_learner_rungs(L, workspace_root(), &workspace_problem);
    } catch (const InputError& e) { workspace_problem = e.what(); }
    const fs::path file(opt.file);
    read_file(opt.file);  // a regular file that can be read, or one clear line (exit 2)
    TryOutcome out;
    out.ladder = L.id;
    out.file = opt.file;
    out.like = pick_like(opt, L, ex, file);
    const Rung* like = L.find_rung(out.like);
    if (!like)
        throw InputError("--like: ladder " + L.id + " has no rung '" + out.like + "'" +
                         (workspace_problem.empty() ? "" : " (" + workspace_problem + ")"));
    if (like->source_path.empty())
        throw InputError("--like: " + L.id + "/" + like->id + " calls a library routine; pick a rung with a kernel");
    Rung mine = *like;
    mine.id = out.rung_id = rung_id_of(opt.file, L);
    mine.title = file.filename().string();
    mine.file = file.filename().string();
    // Staged under the rung id (letters, digits, '_'): the learner's own name may hold quotes or
    // newlines, and reaches NVRTC's log and the messages only as `shown` (rename_diagnostics).
    const TryStaging staging(opt.file, staged_name_of(opt.file, mine.id),
                             fs::path(like->source_path).parent_path().string());
    mine.source_path = staging.source();
    mine.learner = true;
    mine.reference = false;
    mine.forked_from = like->learner ? like->forked_from : like->id;
    mine.index = static_cast<int>(L.rungs.size());
    mine.number = "T";
    const std::string like_id = like->id;
    L.rungs.push_back(std::move(mine));
    const Rung& trial = L.rungs.back();
    RunOptions ro;
    if (ex) ro.sizes = ex->sizes;  // the exercise's size, then --size on top
    for (const auto& [k, v] : parse_assignments(opt.sizes, "--size")) ro.sizes[k] = v;
    ro.params = parse_assignments(opt.params, "--param");
    const std::string dtype = !opt.dtype.empty() ? opt.dtype : ex ? ex->dtype : "";
    if (!dtype.empty()) {
        auto d = parse_dtype(dtype);
        if (!d) throw InputError("--dtype: unknown type '" + dtype + "' (fp32, bf16, fp16)");
        ro.dtype = *d;
    }
    if (opt.reps > 0) ro.min_reps = ro.max_reps = opt.reps;
    resolve_run(L, trial, ro, 0);  // bad sizes, parameters or constraints: one line, exit 2
    if (ex) {
        out.exercise = opt.exercise;
        out.goal = ex->goal;
    }
    out.results.created = iso_now_utc();
    out.results.tool = kToolName;
    out.results.command = invocation();
    if (compile_trial(L, trial, ro, opt.arch, opt.file, out)) {
        if (opt.compile_only) {
            out.no_gpu_reason = "--compile-only";
        } else if (!opt.sanitize.empty()) {
            out.sanitize = run_sanitized_check({opt.sanitize, L.id, like_id, opt.file,
                                                fs::path(staging.source()).filename().string(), staging.folder(),
                                                child_args_of(ro), opt.timeout_s});
            out.gpu = out.sanitize->ran;
            out.no_gpu_reason = out.sanitize->ran ? "" : out.sanitize->reason;
        } else {
            try {
                // A learner's kernel may loop forever, and a kernel cannot be stopped from the host:
                // the process says so in one line and exits (3), which ends its CUDA context. The
                // window's runner has its own time-out and restart; this is the command line's.
                Watchdog watchdog(opt.timeout_s,
                                  "kladder: " + opt.file + " did not finish within " + std::to_string(opt.timeout_s) +
                                      " s (a kernel that never ends?); stopped",
                                  static_cast<int>(ExitCode::GpuError));
                GpuContext gpu;
                out.gpu = true;
                if (opt.sanitize_child)
                    check_on_gpu_once(gpu, L, trial, ro, out);
                else
                    run_on_gpu(gpu, L, *L.find_rung(like_id), trial, ro, ex, opt.file, out);
            } catch (const GpuError& e) {
                if (out.gpu) throw;
                out.no_gpu_reason = e.what();
            }
        }
    }
    out.exit = exit_code(out);
    if (opt.json)
        std::printf("%s\n", to_json(out).dump(1).c_str());
    else
        print_text(out);
    return out.exit;
}

struct ForkOptions {
    std::string ladder, rung, exercise;
};

// `kladder fork LADDER [RUNG] [--exercise LESSON/STEP]`: "Make it mine" from a terminal.
int fork_command(const ForkOptions& o) {
    auto ladders = load_ladders_or_throw();
    const Ladder& L = find_ladder_or_throw(ladders, o.ladder);
    std::string rung = o.rung, starter;
    Lesson lesson;
    if (!o.exercise.empty()) {
        const LessonStep* step = find_exercise(o.exercise, ladders, &lesson);
        if (step->ladder != L.id)
            throw InputError("--exercise " + o.exercise + " runs ladder " + step->ladder + ", not " + L.id);
        if (rung.empty()) rung = step->exercise->starter_rung;
        starter = step->exercise->starter_path;
    }
    if (rung.empty()) throw InputError("fork: name the rung to fork, or --exercise LESSON/STEP");
    const ForkedRung f = fork_rung(L, rung, workspace_root(), starter);
    std::printf("%s/%s: \"%s\", forked from %s%s\n  %s\n  %s\n", L.id.c_str(), f.id.c_str(),
                printable(f.title, kTitleChars).c_str(), rung.c_str(),
                starter.empty() ? "" : printable(" with the starter " + starter).c_str(),
                printable(f.source_path).c_str(), printable(f.manifest_path).c_str());
    return 0;
}

}  // namespace

Action add_fork_command(CLI::App& app) {
    auto opt = std::make_shared<ForkOptions>();
    app.add_option("ladder", opt->ladder, "ladder id (see `kladder list ladders`)")->required();
    app.add_option("rung", opt->rung, "the rung to copy (default with --exercise: the exercise's starter)");
    app.add_option("--exercise", opt->exercise, "fork a lesson exercise's starter, e.g. 01_first_kernel/8");
    return [opt] { return fork_command(*opt); };
}

Action add_try_command(CLI::App& app) {
    auto opt = std::make_shared<TryOptions>();
    app.add_option("ladder", opt->ladder, "ladder id (see `kladder list ladders`)")->required();
    app.add_option("file", opt->file, "your kernel, a .cu file anywhere (read, never written)")->required();
    app.add_option("--like", opt->like,
                   "the rung whose manifest entry (parameters, launches, inputs, reference, tolerance) the file uses, "
                   "and which runs beside it (default: the workspace rung of this file, the exercise's starter, or "
                   "the ladder's first kernel)");
    app.add_option("-p,--param", opt->params, "rung parameter, e.g. --param TPB=128 (repeatable)");
    app.add_option("-s,--size", opt->sizes, "problem size, e.g. --size n=1000003");
    app.add_option("--dtype", opt->dtype, "element type: fp32, bf16 or fp16 (default: the rung's first)");
    app.add_option("--arch", opt->arch, "compile target without a GPU (default sm_90); on a GPU, the GPU's");
    app.add_option("--reps", opt->reps, "timed repetitions (default: 10 to 300, about 0.4 s)")
        ->check(CLI::Range(1, 100000));
    app.add_option("--exercise", opt->exercise,
                   "check a lesson exercise's goal, e.g. 01_first_kernel/3 (its hidden sizes are checked too)");
    app.add_option("--timeout", opt->timeout_s,
                   "seconds the GPU part may take before the process stops it, exit 3 (default 120; 0: none)")
        ->check(CLI::Range(0, 86400));
    app.add_flag("--json", opt->json, "print one JSON object (docs/formats.md, section 6) instead of text");
    app.add_flag("--compile-only", opt->compile_only, "compile and report, even when a GPU is there");
    app.add_flag("--sanitize{memcheck}", opt->sanitize,
                 "run the check again under NVIDIA compute-sanitizer, not timed: --sanitize (memcheck: out-of-bounds "
                 "and misaligned accesses) or --sanitize=racecheck (shared-memory races); findings at your lines, exit "
                 "1 when there are any")
        ->check(CLI::IsMember({"memcheck", "racecheck"}));
    app.add_flag("--sanitize-child", opt->sanitize_child)->group("");  // the run --sanitize starts
    return [opt] { return try_file(*opt); };
}

}  // namespace kl::cli
