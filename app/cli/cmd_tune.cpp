// `kladder tune LADDER`: searches each rung's declared parameter space on this GPU
// (model/tuner.h, with the runner as its measurement) and stores the best settings per device and
// source in the learner's tuned settings (model/tuned_store.h). Progress on stderr; Ctrl-C stops
// after the measurement under way and keeps what was found, marked partial.
// [SECTION] index: options / measuring / progress / tuning / command
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>

#include "base/errors.h"
#include "base/printable.h"
#include "cli_common.h"
#include "commands.h"
#include "gpu/calibration.h"
#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "model/device_profile.h"
#include "model/tuned_store.h"
#include "model/tuner.h"
#include "model/workspace.h"

namespace kl::cli {

namespace {

// [SECTION] Options

struct TuneOptions {
    std::string ladder, rung = "all", dtype;
    std::vector<std::string> sizes;
    double budget_s = 120;
    bool list = false;
};

// Set by SIGINT: the search stops after the measurement under way. The handler resets itself,
// so a second Ctrl-C ends the program at once.
std::atomic<bool> g_cancel{false};
extern "C" void on_sigint(int) { g_cancel.store(true); }

class SigintCatcher {
  public:
    SigintCatcher() {
        struct sigaction sa {};
        sa.sa_handler = on_sigint;
        sa.sa_flags = SA_RESETHAND | SA_RESTART;  // a system call under way (a compile child's wait) goes on
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_);
    }
    ~SigintCatcher() { sigaction(SIGINT, &old_, nullptr); }
    SigintCatcher(const SigintCatcher&) = delete;
    SigintCatcher& operator=(const SigintCatcher&) = delete;

  private:
    struct sigaction old_ {};
};

// [SECTION] Measuring: the runner as the search's measurement

// The screen times briefly and unchecked; the confirmation with the runner's full protocol
// (warm-up, 10..300 repetitions, about 0.4 s, L2 flushed) and the check.
RunOptions protocol_options(RunOptions o, TuneProtocol how) {
    if (how == TuneProtocol::Screen) {
        o.warmup = 1;
        o.min_reps = 3;
        o.max_reps = 20;
        o.budget_ms = 20;
        o.check = false;
    } else {
        o.check = true;
    }
    return o;
}

PointResult measure_point(Runner& runner, const ResolvedRun& point, TuneProtocol how) {
    ResolvedRun run = point;
    run.options = protocol_options(point.options, how);
    const auto start = std::chrono::steady_clock::now();
    std::string compile_log;  // a setting that does not compile is skipped; its log is not shown
    RunRecord rec = runner.record(run, {false, &compile_log});
    PointResult p;
    p.cost_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    p.why = printable(rec.error, kMessageChars);
    if (runner.context_lost()) {
        p.kind = PointResult::Kind::Stop;
        p.why = "the GPU context was lost: " + p.why;
    } else if (rec.error_kind == "skipped") {
        p.kind = PointResult::Kind::Stop;
    } else if (rec.error_kind == "input" || rec.error_kind == "compile") {
        p.kind = PointResult::Kind::Refused;
    } else if (!rec.error.empty() || !rec.timing) {
        p.kind = PointResult::Kind::Failed;
    } else {
        p.median_ms = rec.timing->median_ms;
        p.checked = rec.correctness && rec.correctness->passed;
    }
    return p;
}

// [SECTION] Progress

// One line on stderr, rewritten in place on a terminal; elsewhere (a log) every tenth point.
class ProgressLine {
  public:
    explicit ProgressLine(std::string ladder) : ladder_(std::move(ladder)), tty_(isatty(STDERR_FILENO) != 0) {}
    void rung(int index, int count, double ladder_left_s) {
        index_ = index;
        count_ = count;
        ladder_left_s_ = ladder_left_s;
    }
    void operator()(const TuneProgress& p) {
        char line[256];
        std::snprintf(line, sizeof line,
                      "tune %s: rung %d/%d %s: %d/%d points, %.0f s, about %.0f s left (ladder: at most %.0f s left)",
                      ladder_.c_str(), index_, count_, p.rung.c_str(), p.done, p.planned, p.spent_s, p.left_s,
                      std::max(0.0, ladder_left_s_ - p.spent_s));
        if (tty_)
            std::fprintf(stderr, "\r\033[K%s", printable(line).c_str());
        else if (p.done % 10 == 0)
            std::fprintf(stderr, "%s\n", printable(line).c_str());
        std::fflush(stderr);
    }
    void end_rung() {
        if (tty_) std::fprintf(stderr, "\r\033[K");
    }

  private:
    std::string ladder_;
    bool tty_;
    int index_ = 0, count_ = 0;
    double ladder_left_s_ = 0;
};

// [SECTION] Tuning

std::string params_text(const ParamValues& p) {
    std::string s;
    for (const auto& [k, v] : p) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
    return s.empty() ? "-" : s;
}

TunedEntry entry_of(const TuneOutcome& out, const ResolvedRun& at, const DeviceInfo& d, const std::string& hash,
                    double budget_s) {
    TunedEntry e;
    e.device = tuned_device_of(d);
    e.ladder = at.ladder->id;
    e.rung = at.rung->id;
    e.dtype = to_string(at.problem.dtype);
    e.sizes = at.problem.sizes;
    e.params = out.best;
    e.source_sha256 = hash;
    e.tuned_at = iso_now_utc();
    e.points_tried = out.points_tried;
    e.points_total = out.points_total;
    e.points_refused = out.points_refused;
    e.partial = out.partial;
    e.checked = out.checked;
    e.best_ms = out.best_ms.value_or(0);
    e.default_ms = out.default_ms;
    e.budget_s = budget_s;
    return e;
}

std::vector<std::string> result_row(const Rung& r, const TuneOutcome& out) {
    if (!out.tuned()) return {r.id, "-", "-", "-", "-", "-", "-", printable(out.stopped, 100)};
    const bool beats = out.default_ms && out.best_ms && out.best != out.defaults;
    std::string note = out.cancelled ? "cancelled: best so far" : out.partial ? "budget ended: best so far" : "";
    if (!out.checked) note += std::string(note.empty() ? "" : ", ") + "not checked";
    if (!out.refusals.empty()) note += std::string(note.empty() ? "" : "; ") + "skipped: " + out.refusals.front();
    return {r.id,
            params_text(out.best),
            out.best_ms ? fmt(*out.best_ms, 4) : "-",
            out.default_ms ? fmt(*out.default_ms, 4) : "-",
            beats ? fmt(*out.default_ms / *out.best_ms, 3) + "x" : "1x",
            std::to_string(out.points_tried) + "/" + std::to_string(out.points_total) +
                (out.points_refused ? " (" + std::to_string(out.points_refused) + " skipped)" : ""),
            fmt(out.spent_s, 3) + " s",
            printable(note, 120)};
}

// The rungs to tune: those named (or all), with parameters, for this dtype, runnable on this GPU.
std::vector<const Rung*> rungs_to_tune(const Ladder& L, const TuneOptions& o, const RunOptions& base, int cc,
                                       std::vector<std::vector<std::string>>& rows) {
    std::vector<const Rung*> out;
    for (const auto& r : L.rungs) {
        if (o.rung != "all" && r.id != o.rung) continue;
        auto skip = [&](const std::string& why) { rows.push_back({r.id, "-", "-", "-", "-", "-", "-", why}); };
        if (r.params.empty()) {
            if (o.rung != "all") throw InputError("rung " + r.id + " has no parameters to tune");
            continue;
        }
        if (base.dtype && std::find(r.dtypes.begin(), r.dtypes.end(), *base.dtype) == r.dtypes.end()) {
            if (o.rung != "all") throw InputError("rung " + r.id + " does not support dtype " + o.dtype);
            continue;
        }
        if (const std::string need = rung_arch_refusal(r, cc); !need.empty()) {
            skip("skipped: " + need);
            continue;
        }
        out.push_back(&r);
    }
    return out;
}

// Tunes the rungs on one GPU context, storing each rung's settings as it finishes.
int tune_ladder(const Ladder& L, const TuneOptions& o, const RunOptions& base, TunedStore& store,
                const std::string& store_path) {
    SigintCatcher sigint;  // from here: a Ctrl-C while the GPU opens or calibrates stops before the first rung
    g_cancel = false;
    GpuContext gpu;  // throws GpuError "no CUDA GPU found on this machine" -> exit 3
    Calibration cal = load_or_measure_calibration(gpu);
    Runner runner(gpu, cal);
    const DeviceInfo& dev = gpu.device();
    std::vector<std::vector<std::string>> rows;
    const std::vector<const Rung*> rungs = rungs_to_tune(L, o, base, dev.cc(), rows);
    std::printf("tuning %s on %s (%s, driver %d) within %.0f s\n", L.id.c_str(),
                printable(dev.name, kDeviceNameChars).c_str(), dev.arch().c_str(), dev.driver_version, o.budget_s);
    double weights_left = 0, left_s = o.budget_s;
    for (const Rung* r : rungs) weights_left += tune_weight(*r);
    ProgressLine progress(L.id);
    int code = 0;
    for (size_t i = 0; i < rungs.size() && !g_cancel; ++i) {
        const Rung& r = *rungs[i];
        TuneRequest req;
        req.ladder = &L;
        req.rung = &r;
        req.options = base;
        req.num_sms = dev.sm_count;
        req.budget_s = rung_share(left_s, tune_weight(r), weights_left);
        req.cancel = &g_cancel;
        progress.rung(int(i + 1), int(rungs.size()), left_s);
        req.progress = [&](const TuneProgress& p) { progress(p); };
        const LadderRung at = resolve_ladder_rung(L, r, base, dev.sm_count);
        if (!at.unfit.empty()) {
            rows.push_back({r.id, "-", "-", "-", "-", "-", "-", "skipped at these sizes: " + printable(at.unfit, 100)});
            weights_left -= tune_weight(r);
            continue;
        }
        const std::string hash = rung_source_hash(r);
        const TuneOutcome out =
            tune_rung(req, [&](const ResolvedRun& run, TuneProtocol how) { return measure_point(runner, run, how); });
        progress.end_rung();
        weights_left -= tune_weight(r);
        left_s -= out.spent_s;
        rows.push_back(result_row(r, out));
        if (out.tuned()) {
            put_tuned_entry(store, entry_of(out, at.run, dev, hash, req.budget_s));
            save_tuned_store(store_path, store);
        }
        if (runner.context_lost()) code = static_cast<int>(ExitCode::GpuError);
        if (g_cancel || runner.context_lost()) break;
    }
    std::printf(
        "%s", format_table({"rung", "tuned", "ms", "default ms", "speed-up", "points", "time", "note"}, rows).c_str());
    if (g_cancel) std::printf("cancelled: the settings found so far are stored, marked partial\n");
    std::printf("settings stored in %s (use them with kladder run %s --tuned)\n", printable(store_path).c_str(),
                L.id.c_str());
    return code;
}

// `--list`: the stored settings of the ladder, each with whether its source still matches. No GPU.
int list_tuned(const Ladder& L, const TunedStore& store) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& e : store.entries) {
        if (e.ladder != L.id) continue;
        const Rung* r = L.find_rung(e.rung);
        std::string state = "rung gone";
        if (r) {
            try {
                state = rung_source_hash(*r) == e.source_sha256 ? "current" : "stale: source changed";
            } catch (const InputError& err) { state = std::string("unreadable: ") + err.what(); }
        }
        std::string sizes;
        for (const auto& [k, v] : e.sizes) sizes += (sizes.empty() ? "" : " ") + k + "=" + std::to_string(v);
        rows.push_back(
            {e.rung, printable(e.device.name, kDeviceNameChars), std::to_string(e.device.driver), e.dtype, sizes,
             params_text(e.params), fmt(e.best_ms, 4),
             std::to_string(e.points_tried) + "/" + std::to_string(e.points_total) + (e.partial ? " partial" : ""),
             e.tuned_at, state});
    }
    if (rows.empty()) {
        std::printf("no tuned settings for %s yet (kladder tune %s)\n", L.id.c_str(), L.id.c_str());
        return 0;
    }
    std::printf("%s", format_table({"rung", "device", "driver", "dtype", "sizes", "settings", "ms", "points",
                                    "tuned at", "source"},
                                   rows)
                          .c_str());
    return 0;
}

}  // namespace

// [SECTION] tune

Action add_tune_command(CLI::App& app) {
    auto o = std::make_shared<TuneOptions>();
    app.add_option("ladder", o->ladder, "ladder id (see `kladder list ladders`)")->required();
    app.add_option("--rung,-r", o->rung, "rung id, or all (default)");
    app.add_option("--size,-s", o->sizes, "problem size to tune at, e.g. --size n=2^24 (default: the ladder's)");
    app.add_option("--dtype", o->dtype, "element type: fp32, bf16 or fp16 (default: each rung's first)");
    app.add_option("--budget", o->budget_s, "seconds of measuring for the whole ladder (default 120)")
        ->check(CLI::Range(1.0, 86400.0));
    app.add_flag("--list", o->list, "print the stored settings of the ladder and whether they are current; no GPU");
    return [o] {
        auto ladders = load_ladders_or_throw();
        Ladder L = find_ladder_or_throw(ladders, o->ladder);
        std::string workspace_error;  // a learner's rung is tuned like the ladder's own
        if (o->rung != "all" && !L.find_rung(o->rung)) merge_learner_rungs(L, workspace_root(), &workspace_error);
        if (o->rung != "all" && !L.find_rung(o->rung))
            throw InputError(workspace_error.empty() ? "ladder " + L.id + " has no rung '" + o->rung + "'"
                                                     : workspace_error);
        // The store is read (and refused when broken) before the GPU is touched.
        const std::string path = tuned_store_path();
        TunedStore store = load_tuned_store(path);
        if (o->list) return list_tuned(L, store);
        RunOptions base;
        base.sizes = parse_assignments(o->sizes, "--size");
        if (!o->dtype.empty()) {
            auto d = parse_dtype(o->dtype);
            if (!d) throw InputError("--dtype: unknown type '" + o->dtype + "' (fp32, bf16, fp16)");
            base.dtype = *d;
        }
        for (const auto& r : L.rungs)  // sizes no rung has, or that are not integers: exit 2 before the GPU
            if ((o->rung == "all" || r.id == o->rung) && !r.params.empty() &&
                (!base.dtype || std::find(r.dtypes.begin(), r.dtypes.end(), *base.dtype) != r.dtypes.end()))
                resolve_ladder_rung(L, r, base, 0);
        return tune_ladder(L, *o, base, store, path);
    };
}

}  // namespace kl::cli
