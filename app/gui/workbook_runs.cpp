// Jobs for the runner process and what comes back from it. A job (run one rung, the whole
// ladder, or a sweep) is a list of requests; its progress is the share of them answered. The
// runner's events arrive on a worker thread and are taken here once per frame.
// [SECTION] index: runner start / requests / jobs / sweeps / events

#include <algorithm>
#include <cmath>

#include "base/errors.h"
#include "base/printable.h"
#include "gui/workbook.h"
#include "model/counters.h"
#include "model/operation.h"
#include "model/stopwatch_label.h"

namespace kl::gui {

// [SECTION] Runner start

void Workbook::start_runner() {
    std::string why;
    std::vector<std::string> command = find_runner_command(&why);
    if (command.empty()) {
        runner_.unavailable = why;
        runner_.status = "live runs unavailable: " + why;
        log(runner_.status, true);
        return;
    }
    RunnerOptions o;
    o.command = command;
    o.environment["KL_STOPWATCH"] = settings_.stopwatch;  // [stopwatch] the whole runner process times with it
    o.request_timeout_s = options_.request_timeout_s;
    runner_.client = std::make_unique<RunnerClient>(o);
    runner_.client->start();
    runner_.status = "starting the GPU runner\xE2\x80\xA6";
    std::string joined;
    for (const auto& c : command) joined += (joined.empty() ? "" : " ") + c;
    log("runner: " + joined);
}

// [SECTION] Requests

RunRequest Workbook::make_request(const Rung& r, const ParamValues& params, const Sizes& sizes) const {
    RunRequest req;
    req.ladder = ladder_->id;
    req.rung = r.id;
    req.sizes = sizes;
    req.params = params;
    req.dtype = dtype_;
    if (const LessonStep* s = step()) {
        // A step may demonstrate measuring mistakes: no warm-up, a single repetition, warm L2.
        req.warmup = s->runner.warmup;
        req.reps = s->runner.reps;
        req.cold_l2 = s->runner.cold_l2;
        req.mode = s->runner.mode;  // [modes] the wrong figure beside the right one
    }
    req.counters = params_ui_.counters;
    if (strip_.tuned) {  // [tuned] the tuned values replace every parameter the learner left at its default
        req.tuned = true;
        for (const auto& p : r.params)
            if (auto it = req.params.find(p.name); it != req.params.end() && it->second == p.default_value)
                req.params.erase(it);
    }
    // [timeline] a rung of several kernels shows them on a timeline (one traced repetition)
    req.timeline = r.launches.size() > 1 || std::any_of(r.launches.begin(), r.launches.end(),
                                                        [](const LaunchSpec& l) { return !l.repeat.empty(); });
    return req;
}

// [SECTION] Jobs

namespace {
bool supports_dtype(const Rung& r, DType dtype) {
    return r.dtypes.empty() || std::find(r.dtypes.begin(), r.dtypes.end(), dtype) != r.dtypes.end();
}

Job new_job(Job::Kind kind, std::string label) {
    Job job;
    job.kind = kind;
    job.label = std::move(label);
    job.started = std::chrono::steady_clock::now();
    return job;
}
}  // namespace

void Workbook::submit_to(Job& job, const Rung& r, const ParamValues& params, const Sizes& sizes, bool skip_unfit,
                         const RunBatch* batch) {
    RunRequest req = make_request(r, params, sizes);
    req.skip_unfit = skip_unfit;
    if (batch) req.batch = *batch;
    uint64_t id = runner_.client->submit(req);
    job.requests.push_back(id);
    job.open.insert(id);
}

void Workbook::start_job(Job job, const std::string& why_empty) {
    if (job.requests.empty()) {
        runner_.last_error_title = "Not run";
        runner_.last_error = why_empty;
        return;
    }
    runner_.job = std::move(job);
    runner_.last_error.clear();
    strip_.hold_line.clear();  // [hold] the header speaks of the last run only
}

namespace {
// [hold] Each batch of this window's runs has its own id: the runner learns one hold per id.
uint64_t next_batch_id() {
    static uint64_t last = 0;
    return ++last;
}
}  // namespace

void Workbook::run_rung() {
    if (!runner_.client || !ladder_ || !rung_ || runner_.job) return;
    const std::string problem = selection_view().selection.refusal;
    if (!problem.empty()) {
        runner_.last_error_title = "Not run";
        runner_.last_error = problem;
        return;
    }
    Job job = new_job(Job::Kind::Rung, rung_->title);
    submit_to(job, *rung_, resolve_params(*rung_, params_), sizes_);
    start_job(std::move(job), "");
    log("run " + ladder_->id + "/" + rung_->id + " at " + format_sizes(sizes_));
}

void Workbook::run_ladder() {
    if (!runner_.client || !ladder_ || runner_.job) return;
    Job job = new_job(Job::Kind::Ladder, "the " + ladder_->title + " ladder");
    std::vector<const Rung*> rungs;
    RunBatch batch{next_batch_id(), {}};  // [hold] PyTorch peers among them: one hold for all
    for (const auto& r : ladder_->rungs) {
        if (!supports_dtype(r, dtype_)) continue;
        // A rung this GPU cannot run keeps its recorded results on its card ("needs sm_90").
        if (std::string need = arch_refusal_here(r); !need.empty()) {
            log("skipped " + r.id + ": " + need + " (recorded results show it)");
            continue;
        }
        rungs.push_back(&r);
        batch.runs.push_back({r.id, params_for(r), sizes_});
    }
    // The runner resolves each rung: one that cannot take these sizes comes back skipped, with the
    // reason its card shows, and the others run.
    for (const Rung* r : rungs) submit_to(job, *r, params_for(*r), sizes_, true, &batch);
    size_t submitted = job.requests.size();
    start_job(std::move(job), "no rung of this ladder runs " + to_string(dtype_) + " on this GPU");
    if (!submitted) return;
    log("run ladder " + ladder_->id + " (" + std::to_string(submitted) + " rungs) at " + format_sizes(sizes_));
}

// [SECTION] Sweeps

void Workbook::run_sweep() {
    if (!runner_.client || !ladder_ || !rung_ || runner_.job) return;
    const Selection& sel = selection_view().selection;
    const SweepSpec& sweep = sel.sweep;
    if (sweep.axis.empty()) return;
    Job job = new_job(Job::Kind::Sweep, "sweep of " + sweep.axis);
    const bool is_param = rung_->find_param(sweep.axis) != nullptr;
    int skipped = 0;
    RunBatch batch{next_batch_id(), {}};  // [hold] a peer's points share one hold, as `kladder sweep` gives them
    for (int64_t v : sweep.values) {
        ParamValues p = sel.params;
        Sizes z = sizes_;
        (is_param ? p[sweep.axis] : z[sweep.axis]) = v;
        for (const auto& t : sweep.tie) z[t] = v;
        // Invalid combinations are skipped with their reason, as nvbench does.
        if (std::string why = refusal_at(*rung_, z, p); !why.empty()) {
            log("sweep: skipped " + sweep.axis + "=" + std::to_string(v) + ": " + why);
            ++skipped;
            continue;
        }
        batch.runs.push_back({rung_->id, p, z});
    }
    for (const BatchRun& b : batch.runs) submit_to(job, *rung_, b.params, b.sizes, false, &batch);
    size_t submitted = job.requests.size();
    start_job(std::move(job), "every value of " + sweep.axis + " breaks a constraint at these settings");
    if (!submitted) return;
    log("sweep " + ladder_->id + "/" + rung_->id + " over " + sweep.axis + ": " + std::to_string(submitted) +
        " points" + (skipped ? ", " + std::to_string(skipped) + " skipped" : ""));
}

void Workbook::cancel_job() {
    if (!runner_.job || !runner_.client) return;
    runner_.job->cancelled = true;
    runner_.client->cancel();
    log("cancel requested");
}

// [SECTION] Events

namespace {
std::string hello_summary(bool restart, bool gpu, const std::string& device, const std::string& no_gpu_reason) {
    return std::string(restart ? "runner restarted: " : "runner ready: ") +
           (gpu ? device : "no GPU (" + no_gpu_reason + ")");
}
}  // namespace

void Workbook::on_runner_hello(const Hello& h) {
    bool restart = runner_.hello;
    runner_.hello = true;
    runner_.gpu = h.gpu;
    if (runner_.gpu && h.device) {
        runner_.device = printable(h.device->name, kDeviceNameChars);  // as the store shows recorded names
        runner_.device_info = h.device;
        runner_.num_sms = h.device->sm_count;
        runner_.device_arch = h.device->arch();
        store_.set_live_device(runner_.device);  // its runs show under its name, never another's
        if (h.calibration) {
            runner_.calibration = h.calibration;
            store_.set_live_calibration(runner_.calibration);
        }
        runner_.status = "GPU runner ready: " + runner_.device + " \xC2\xB7 " + stopwatch_label(h.stopwatch);
        runner_.no_gpu_reason.clear();
    } else {
        runner_.gpu = false;
        runner_.no_gpu_reason = h.reason.empty() ? "unknown reason" : h.reason;
        runner_.status = "no GPU: " + runner_.no_gpu_reason;
    }
    // [stopwatch] A span asked for and not available here is said, never a silent fall-back: the
    // hello says why (each record says it again), and a runner that times otherwise than asked too.
    runner_.stopwatch_note = h.stopwatch_note;
    if (runner_.gpu && runner_.stopwatch_note.empty() && h.stopwatch != settings_.stopwatch)
        runner_.stopwatch_note = "asked for " + stopwatch_label(settings_.stopwatch) + ", the runner times with " +
                                 stopwatch_label(h.stopwatch);
    if (runner_.gpu && !runner_.stopwatch_note.empty()) {
        runner_.status += " (" + runner_.stopwatch_note + ")";
        log("stopwatch: " + runner_.stopwatch_note);
    }
    if (restart) ++runner_.restarts_seen;
    bind_step_device(step());  // the GPU's own runs now, unless the learner picked a recording
    bound_.numbers.reset();    // device facts now speak of this GPU (or again of the recorded one)
    log(hello_summary(restart, runner_.gpu, runner_.device, runner_.no_gpu_reason));
}

void Workbook::on_runner_result(const RunnerEvent& e) {
    const RunRecord& rec = *e.record;
    store_.add_live(rec);
    if (e.hold && strip_.hold_line.empty()) {  // [hold] once per run: the runner held every rung alike
        strip_.hold_line = batch_hold_line(*e.hold);
        strip_.hold_ladder = rec.ladder;
        log(strip_.hold_line);
    }
    ++runner_.results_received;
    on_learner_record(e, rec);  // the learner's panel says what became of their rung
    if (rec.error_kind == "skipped") {
        // Not a failure: the rung cannot take these sizes (its card says why); the others run.
        log(rec.ladder + "/" + rec.rung + " skipped: " + rec.error);
        if (runner_.job && runner_.job->open.count(e.request_id)) ++runner_.job->skipped;
    } else if (!rec.error.empty()) {
        runner_.last_error_title = rec.title.empty() ? rec.rung : rec.title;
        runner_.last_error = rec.error_kind + ": " + rec.error;
        log(rec.ladder + "/" + rec.rung + " failed: " + runner_.last_error, true);
        // A fault poisons the runner's CUDA context: it exits, and a fresh one starts.
        if (rec.error_kind == "fault") runner_.awaiting_exit = true;
    } else {
        std::string line = rec.ladder + "/" + rec.rung + ": ";
        // Predict, then reveal: the log is on screen too, so a time this step or a later one asks
        // to predict waits there ("time hidden until step 5's prediction").
        const std::string withheld = withheld_why(rec);
        if (rec.timing)
            line +=
                !withheld.empty() ? "time hidden " + withheld + ", " : std::to_string(rec.timing->median_ms) + " ms, ";
        line += rec.correctness ? rec.correctness->summary() : "not checked";
        log(line);
        // Counters asked for but not read: say why once per run (the tooltip keeps it too).
        if (params_ui_.counters) log("  counters: " + counters_summary(rec.counters, rec.counters_note));
    }
    if (runner_.job && runner_.job->open.erase(e.request_id)) ++runner_.job->done;
}

void Workbook::poll_runner() {
    if (!runner_.client) return;
    for (auto& e : runner_.client->poll()) {
        switch (e.kind) {
            case RunnerEvent::Kind::Hello:
                if (e.hello) on_runner_hello(*e.hello);
                break;
            case RunnerEvent::Kind::Progress:
                if (runner_.job) {
                    int answered = runner_.job->done + runner_.job->failed;
                    runner_.status = "running " + std::to_string(answered + 1) + " of " +
                                     std::to_string(runner_.job->requests.size()) + ": " + e.message;
                }
                break;
            case RunnerEvent::Kind::Result:
                if (e.record) on_runner_result(e);
                break;
            case RunnerEvent::Kind::Failed: {
                bool was_cancel = e.message == "cancelled" && runner_.job && runner_.job->cancelled;
                if (!was_cancel) {
                    ++runner_.failures;
                    runner_.last_error_title = "Request failed";
                    runner_.last_error = e.message;
                    log("request " + std::to_string(e.request_id) + " failed: " + e.message, true);
                }
                on_learner_failure(e.request_id, e.message);
                if (runner_.job && runner_.job->open.erase(e.request_id)) ++runner_.job->failed;
                break;
            }
            case RunnerEvent::Kind::Exited:
                ++runner_.exits_seen;
                runner_.awaiting_exit = false;
                log("runner exited: " + e.message +
                    (runner_.job && !runner_.job->cancelled ? "; a fresh runner takes the next request" : ""));
                runner_.status = "runner exited (" + e.message + "); a fresh one starts with the next run";
                break;
            case RunnerEvent::Kind::Incompatible:
                // One line, in the status bar, the log and on stderr; the runner is not used.
                runner_.unavailable = e.message;
                runner_.status = "live runs unavailable: " + e.message;
                log(runner_.status, true);
                std::fprintf(stderr, "kernel-ladder: %s\n", printable(e.message, kMessageChars).c_str());
                break;
            case RunnerEvent::Kind::Log: log("runner: " + e.message); break;
        }
    }
    finish_job_if_answered();
}

void Workbook::finish_job_if_answered() {
    if (runner_.job && runner_.job->open.empty()) {
        const Job& j = *runner_.job;
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - j.started).count();
        char buf[64];
        std::snprintf(buf, sizeof buf, " in %.1f s", secs);
        std::string summary =
            j.label + ": " + std::to_string(j.done) + " of " + std::to_string(j.requests.size()) + " done" +
            (j.skipped ? ", " + std::to_string(j.skipped) + " skipped" : "") +
            (j.failed ? ", " + std::to_string(j.failed) + (j.cancelled ? " cancelled" : " failed") : "") + buf;
        log(summary);
        runner_.status =
            (runner_.gpu ? "GPU runner ready: " + runner_.device + "  \xC2\xB7  " : std::string()) + "last: " + summary;
        runner_.job.reset();
    }
}

}  // namespace kl::gui
