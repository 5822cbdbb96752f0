// `kladder run`, `kladder sweep`, `kladder calibrate`: the commands that need a GPU.
// [SECTION] index: options / printing / run / sweep / calibrate
#include <array>
#include <cstdio>
#include <memory>
#include <optional>

#include "base/errors.h"
#include "base/paths.h"
#include "base/printable.h"
#include "base/version.h"
#include "cli_common.h"
#include "commands.h"
#include "course/lesson.h"
#include "course/selection.h"
#include "course/sweep_spec.h"
#include "gpu/calibration.h"
#include "gpu/gpu_context.h"
#include "gpu/runner.h"
#include "model/counters.h"
#include "model/device_profile.h"
#include "model/results_json.h"
#include "model/run_modes.h"
#include "model/timing_notes.h"
#include "model/tuned_store.h"
#include "gpu/shared_hold.h"

namespace kl::cli {

// [SECTION] Options shared by run and sweep

namespace {

struct MeasureOptions {
    std::string ladder, rung = "all", dtype, json_path;
    std::vector<std::string> sizes, params;
    int warmup = 2, reps = 0;
    std::string mode;       // [modes] run_modes.h
    bool timeline = false;  // [timeline]
    bool warm_l2 = false, no_check = false, counters = false;
    bool tuned = false;  // [tuned] the learner's tuned settings for this GPU (model/tuned_store.h)
    uint64_t seed = 20261122;
};

void add_measure_options(CLI::App& app, MeasureOptions& o) {
    app.add_option("ladder", o.ladder, "ladder id (see `kladder list ladders`)")->required();
    app.add_option("--size,-s", o.sizes,
                   "problem size, e.g. --size n=2^20+3 is not allowed; --size M=4096,N=4096,K=4096");
    app.add_option("--param,-p", o.params, "rung parameter, e.g. --param TPB=128 (repeatable)");
    app.add_option("--dtype", o.dtype, "element type: fp32, bf16 or fp16 (default: the rung's first)");
    app.add_option("--json", o.json_path, "write the results (schema kernel-ladder/results v2) to this file");
    app.add_option("--warmup", o.warmup, "untimed runs before timing (default 2)")->check(CLI::Range(0, 1000));
    app.add_option("--reps", o.reps, "timed repetitions (default: 10 to 300, about 0.4 s of GPU time)")
        ->check(CLI::Range(1, 100000));
    app.add_flag("--warm-l2", o.warm_l2, "do not flush L2 between repetitions (measures the cache for small buffers)");
    app.add_flag("--no-check", o.no_check, "skip the correctness check");
    app.add_flag("--timeline", o.timeline,
                 "also trace one repetition's kernels with CUPTI after timing: start, end, gaps, summed time");
    app.add_option("--mode", o.mode,
                   "also measure a measuring mistake beside the right figure: " + kl::run_mode_names());
    app.add_flag(
        "--counters", o.counters,
        "also read hardware counters (DRAM, L2, shared memory) with CUPTI in a separate replay pass after timing");
    app.add_option("--seed", o.seed, "seed of the random inputs");
    app.add_flag("--tuned", o.tuned,
                 "run with the settings `kladder tune` stored for this GPU and source (says so when there are "
                 "none or they are stale; a --param still wins)");
}

RunOptions to_run_options(const MeasureOptions& o) {
    RunOptions r;
    r.sizes = parse_assignments(o.sizes, "--size");
    r.params = parse_assignments(o.params, "--param");
    if (!o.dtype.empty()) {
        auto d = parse_dtype(o.dtype);
        if (!d) throw InputError("--dtype: unknown type '" + o.dtype + "' (fp32, bf16, fp16)");
        r.dtype = *d;
    }
    r.warmup = o.warmup;
    if (o.reps > 0) r.min_reps = r.max_reps = o.reps;
    r.cold_l2 = !o.warm_l2;
    auto mode = parse_run_mode(o.mode);  // [modes]
    if (!mode) throw InputError("--mode: unknown mode '" + o.mode + "' (" + run_mode_names() + ")");
    r.mode = *mode;
    r.timeline = o.timeline;
    r.check = !o.no_check;
    r.counters = o.counters;  // [counters]
    r.seed = o.seed;
    return r;
}

// [SECTION] Printing

std::string params_text(const RunRecord& r) {
    std::string s;
    for (const auto& [k, v] : r.params) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
    return s.empty() ? "-" : s;
}

std::string sizes_text(const std::map<std::string, int64_t>& sizes) {
    std::string s;
    for (const auto& [k, v] : sizes) s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
    return s;
}

// regs ("72", "255 +96 B spilled"), shared memory per block, occupancy ("75% registers") of the
// launch with the lowest occupancy; "-" for library rungs.
std::array<std::string, 3> resources_columns(const RunRecord& r) {
    const LaunchResources* l = r.main_launch();
    if (!l) return {"-", "-", "-"};
    std::string regs = std::to_string(l->kernel.regs_per_thread);
    if (l->kernel.local_bytes > 0) regs += " +" + std::to_string(l->kernel.local_bytes) + " B local";
    const int64_t smem = l->kernel.static_smem_bytes + l->dynamic_smem_bytes;
    std::string occ = fmt(100.0 * l->occupancy.fraction(), 3) + "% " + l->occupancy.limiter;
    if (l->runtime_blocks_per_sm && *l->runtime_blocks_per_sm != l->occupancy.blocks_per_sm)
        occ += " (runtime: " + std::to_string(*l->runtime_blocks_per_sm) + " blocks)";
    return {regs, smem ? human_bytes(double(smem)) : std::string("0"), occ};
}

void print_runs(const std::vector<RunRecord>& runs, const std::string& first_column) {
    std::vector<std::vector<std::string>> rows;
    // Against the roof of each run's read:write mix when the calibration has one (roof.h), else
    // against the copy line; "!" marks a run above its roof by more than its spread.
    const bool roofs =
        std::any_of(runs.begin(), runs.end(), [](const RunRecord& r) { return r.values.has(tag::pct_roof); });
    bool flagged = false;
    for (const auto& r : runs) {
        std::string key = first_column == "rung" ? r.rung : first_column;
        if (first_column != "rung") {
            auto it = r.params.find(first_column);
            key = it != r.params.end() ? std::to_string(it->second)
                                       : std::to_string(r.sizes.count(first_column) ? r.sizes.at(first_column) : 0);
        }
        if (!r.error.empty()) {
            rows.push_back(
                {key, params_text(r), "-", "-", "-", "-", "-", "-", "-", "-", "-", r.error_kind + ": " + r.error});
            continue;
        }
        const auto res = resources_columns(r);
        auto pct = [](const std::optional<double>& v) { return v ? fmt(*v, 3) + "%" : std::string("-"); };
        std::string time = r.timing ? fmt(r.timing->median_ms, 4) : "-";
        std::string spread = r.timing ? fmt(100 * r.timing->rel_spread, 2) + "%" : "-";
        std::string share = pct(r.values.get(roofs ? tag::pct_roof : tag::pct_copy));
        if (r.values.num(tag::above_roof) > 0) {
            share += " !";
            flagged = true;
        }
        rows.push_back({key, params_text(r), time, spread, fmt(r.values.num(tag::gbps), 4), share,
                        fmt(r.values.num(tag::tflops), 3), pct(r.values.get(tag::pct_reference)), res[0], res[1],
                        res[2], r.correctness ? r.correctness->summary() : "not checked"});
    }
    std::printf("%s", format_table({first_column, "params", "median ms", "spread", "GB/s", roofs ? "% roof" : "% copy",
                                    "TFLOP/s", "% ref", "regs", "smem", "occupancy", "check"},
                                   rows)
                          .c_str());
    if (flagged)
        std::printf(
            "! above the memory roof of its read:write mix by more than its spread: no correct kernel doing "
            "this work can be, so the timing is wrong (docs/tuning/timing.md)\n");
}

using Jobs = std::vector<std::pair<const Rung*, RunOptions>>;

// One job of measure(), resolved before the GPU is touched: its run, or (a run over many rungs or
// points) why its sizes do not fit its rung. `key` names it in listings: the rung, or "N=1025".
struct Slot {
    ResolvedRun run;
    std::string unfit, key;
    RunSettings settings;  // [tuned]
};

std::string job_key(const Rung& r, const RunOptions& ro, const std::string& first_column) {
    if (first_column == "rung") return r.id;
    const auto p = ro.params.find(first_column);
    const auto z = ro.sizes.find(first_column);
    const int64_t v = p != ro.params.end() ? p->second : z != ro.sizes.end() ? z->second : 0;
    return first_column + "=" + std::to_string(v);
}

// Each job resolved once, before the GPU is touched: bad input is one clear line, exit 2. With
// skip_unfit (a run of every rung, a sweep) a job whose sizes its rung cannot take is kept as a
// skip while the others run; sizes that no job can take are bad input.
std::vector<Slot> resolve_jobs(const Ladder& L, const Jobs& jobs, bool skip_unfit, const std::string& first_column) {
    std::vector<Slot> slots;
    for (const auto& [rung, ro] : jobs) {
        Slot s;
        s.key = job_key(*rung, ro, first_column);
        if (skip_unfit) {
            LadderRung lr = resolve_ladder_rung(L, *rung, ro, 0);
            s.run = std::move(lr.run);
            s.unfit = std::move(lr.unfit);
        } else {
            s.run = resolve_run(L, *rung, ro, 0);
        }
        slots.push_back(std::move(s));
    }
    if (slots.empty() || std::any_of(slots.begin(), slots.end(), [](const Slot& s) { return s.unfit.empty(); }))
        return slots;
    const Slot& first = slots.front();
    const size_t n = slots.size() - 1;  // the others, all refused too
    const std::string others =
        std::to_string(n) + (first_column == "rung" ? " other rung" : " other value") + (n == 1 ? "" : "s") + " too";
    if (first_column == "rung")
        throw InputError("no rung of ladder " + L.id + " takes " + sizes_text(first.run.problem.sizes) + ": " +
                         first.key + ": " + first.unfit + (n ? " (" + others + ")" : ""));
    throw InputError("no value of " + first_column + " fits rung " + first.run.rung->id + ": " + first.key + ": " +
                     first.unfit + (n ? " (" + others + ")" : ""));
}

// The skipped runs, each listed once in a block after the table rather than as an error.
struct SkipLists {
    std::string arch;                      // rungs `run all` leaves out by design on this device
    std::string unfit;                     // jobs at sizes their rung cannot take
    std::string no_triton, no_triton_why;  // Triton rungs, skipped where Python has no Triton: one line
    std::vector<bool> listed;              // per record: shown in a block, so not on stderr
};

// Runs one job, or records its skip. `run all` skips the rungs this device's architecture cannot
// run (whatever the sizes) and those that cannot take the sizes; a named rung fails instead.
RunRecord record_slot(Runner& runner, const Slot& slot, bool ladder_run, int device_cc, SkipLists& lists) {
    const Rung& rung = *slot.run.rung;
    if (!slot.unfit.empty()) {
        const std::string need = ladder_run ? rung_arch_refusal(rung, device_cc) : "";
        (need.empty() ? lists.unfit : lists.arch) +=
            "\n  " + slot.key + ": " + printable(need.empty() ? slot.unfit : need);
        lists.listed.push_back(true);
        return skipped_record(slot.run, need.empty() ? slot.unfit : need);
    }
    std::string compile_log;
    RunRecord rec = runner.record(slot.run, {ladder_run, &compile_log});
    if (!compile_log.empty()) std::fprintf(stderr, "%s\n", printable_lines(compile_log).c_str());
    bool listed = false;
    if (rec.error_kind == "skipped" && rec.error.rfind("needs ", 0) == 0) {
        lists.arch += "\n  " + rec.rung + ": " + printable(rec.error);
        listed = true;
    } else if (rec.error_kind == "skipped" && rung.is_triton()) {
        lists.no_triton += (lists.no_triton.empty() ? "" : ", ") + rec.rung;
        lists.no_triton_why = rec.error;
        listed = true;
    }
    lists.listed.push_back(listed);
    rec.settings = slot.settings;  // [tuned]
    return rec;
}

// [tuned] Each job that runs takes the tuned settings for this device and its source, where they
// are valid; a line says which settings each rung runs with (each line once: a sweep's points share them).
void apply_tuned_settings(const Ladder& L, std::vector<Slot>& slots, const TunedStore& store, const DeviceInfo& dev) {
    std::vector<std::string> said;
    for (auto& slot : slots) {
        if (!slot.unfit.empty()) continue;
        const Rung& rung = *slot.run.rung;
        TunedChoice c = apply_tuned(store, tuned_device_of(dev), L, rung, slot.run.options, dev.sm_count);
        slot.run = resolve_run(L, rung, c.options, 0);
        slot.settings = c.settings;
        std::string line = c.note.empty() || c.settings.kind == "tuned" ? "" : c.note;
        if (c.settings.kind == "tuned")
            line = "tuned settings for " + rung.id + " (tuned " + c.settings.tuned_at + ", " +
                   std::to_string(c.settings.points_tried) + " of " + std::to_string(c.settings.points_total) +
                   " points" + (c.settings.partial ? ", partial" : "") + (c.note.empty() ? "" : ", " + c.note) + ")";
        if (!line.empty() && std::find(said.begin(), said.end(), line) == said.end()) {
            said.push_back(line);
            std::printf("%s\n", printable(line).c_str());
        }
    }
}

void print_skips(const SkipLists& lists, const DeviceInfo& device) {
    if (!lists.arch.empty())
        std::printf("skipped on this GPU (%s, %s), recorded results show them:%s\n",
                    printable(device.name, kDeviceNameChars).c_str(), device.arch().c_str(), lists.arch.c_str());
    if (!lists.unfit.empty()) std::printf("skipped at sizes they cannot take:%s\n", lists.unfit.c_str());
    if (!lists.no_triton.empty())
        std::printf("skipped %s: %s\n", lists.no_triton.c_str(), printable(lists.no_triton_why).c_str());
}

// Runs the jobs on one GPU context, recording errors and skips per job. Returns the exit code: 3
// on a GPU error, 2 on bad input, 1 when a rung failed its check, else 0 (skips included).
int measure(const Ladder& L, const Jobs& jobs, const MeasureOptions& mo, const std::string& first_column,
            bool skip_unfit) {
    std::vector<Slot> slots = resolve_jobs(L, jobs, skip_unfit, first_column);
    std::optional<TunedStore> tuned;  // [tuned] read, and refused when broken, before the GPU is touched
    if (mo.tuned) tuned = load_tuned_store(tuned_store_path());
    GpuContext gpu;  // throws GpuError "no CUDA GPU found on this machine" -> exit 3
    Calibration cal = load_or_measure_calibration(gpu);
    Runner runner(gpu, cal);
    ResultsFile out;
    out.created = iso_now_utc();
    out.tool = kToolName;
    out.command = invocation();
    out.device = gpu.device();
    out.calibration = cal;
    std::printf(
        "device: %s (%s, %d SMs, %s L2); copy %.0f GB/s, cuBLAS fp32 %.1f / bf16 %.0f TFLOP/s (calibrated %s)\n",
        printable(gpu.device().name, kDeviceNameChars).c_str(), gpu.device().arch().c_str(), gpu.device().sm_count,
        human_bytes(double(gpu.device().l2_bytes)).c_str(), cal.copy_gbps, cal.sgemm_tflops, cal.bf16_tflops,
        cal.measured_at.c_str());
    if (tuned) apply_tuned_settings(L, slots, *tuned, gpu.device());
    std::vector<const ResolvedRun*> runnable;  // [hold] peers beside rungs: one hold for all
    for (const auto& s : slots)
        if (s.unfit.empty()) runnable.push_back(&s.run);
    if (const SharedHold hold = shared_hold(runner, runnable); hold.us > 0) {
        for (auto& s : slots) s.run.options.hold_floor_us = hold.us;
        std::printf("one hold for every rung of this run: %.0f us, the longest a peer needs (%s)\n", hold.us,
                    hold.set_by.c_str());
    }
    int code = 0;
    SkipLists lists;
    for (const auto& slot : slots) {
        RunRecord rec = record_slot(runner, slot, mo.rung == "all", gpu.device().cc(), lists);
        code = std::max(code, static_cast<int>(exit_code_of(rec)));
        out.runs.push_back(std::move(rec));
    }
    fill_reference_ratios(out.runs);
    if (!out.runs.empty())
        std::printf("ladder %s, %s, L2 %s\n", L.id.c_str(), printable(sizes_text(out.runs.front().sizes)).c_str(),
                    mo.warm_l2 ? "warm" : "cold (flushed)");
    print_runs(out.runs, first_column);
    if (mo.counters)  // [counters] one line per run: the traffic, or why it could not be read
        for (const auto& r : out.runs)
            if (r.error.empty())
                std::printf("counters %s: %s\n", r.rung.c_str(),
                            printable(counters_summary(r.counters, r.counters_note)).c_str());
    for (const auto& r : out.runs)  // [modes] [timeline] [clock]
        for (const auto& line : timing_notes(r)) std::printf("%s\n", printable(line).c_str());
    print_skips(lists, gpu.device());
    if (!mo.json_path.empty()) {
        save_results(mo.json_path, out);
        std::printf("results written to %s\n", printable(mo.json_path).c_str());
    }
    for (size_t i = 0; i < out.runs.size(); ++i)
        if (const RunRecord& r = out.runs[i]; !r.error.empty() && !lists.listed[i])
            std::fprintf(stderr, "kladder: %s/%s: %s\n", r.ladder.c_str(), r.rung.c_str(),
                         printable(r.error, kMessageChars).c_str());
    return code;
}

// `run --plan-on PROFILE`: what `run` would do on that device with these options, without a GPU:
// the rungs it would run, and those it would skip (for a newer GPU, or at sizes they cannot take).
// A named rung that could not run there is an error, as `run` would make it.
int print_plan(const Ladder& L, const Jobs& jobs, const DeviceInfo& d, bool ladder_run) {
    const std::vector<Slot> slots = resolve_jobs(L, jobs, ladder_run, "rung");
    const std::string asked = jobs.empty() ? "" : sizes_text(jobs.front().second.sizes);
    // The profile is a file: its device name is shown capped, control characters visible.
    std::printf("ladder %s on %s (%s, %d SMs)%s:\n", L.id.c_str(), printable(d.name, kDeviceNameChars).c_str(),
                d.arch().c_str(), d.sm_count, asked.empty() ? "" : (" at " + asked).c_str());
    int skipped = 0;
    for (const auto& s : slots) {
        std::string skip = rung_arch_refusal(*s.run.rung, d.cc());
        if (!skip.empty() && !ladder_run)
            throw InputError(L.id + "/" + s.run.rung->id + ": " + skip + "; " + d.name + " is " + d.arch());
        if (skip.empty()) skip = s.unfit;
        if (skip.empty())
            std::printf("  run   %s\n", s.run.rung->id.c_str());
        else
            std::printf("  skip  %-16s %s\n", s.run.rung->id.c_str(), printable(skip).c_str());
        skipped += !skip.empty();
    }
    std::printf("%zu rung%s: %zu run, %d skipped\n", slots.size(), slots.size() == 1 ? "" : "s", slots.size() - skipped,
                skipped);
    return 0;
}

}  // namespace

// [SECTION] run

Action add_run_command(CLI::App& app) {
    auto mo = std::make_shared<MeasureOptions>();
    add_measure_options(app, *mo);
    app.add_option("--rung,-r", mo->rung, "rung id, or all (default)");
    auto plan_on = std::make_shared<std::string>();
    app.add_option("--plan-on", *plan_on,
                   "print which rungs would run and which are skipped (for a newer GPU, or at sizes they "
                   "cannot take) on the device of this profile (assets/devices/*.json), then exit; needs no GPU");
    return [mo, plan_on] {
        auto ladders = load_ladders_or_throw();
        const Ladder& L = find_ladder_or_throw(ladders, mo->ladder);
        std::optional<DeviceInfo> profile;
        if (!plan_on->empty()) profile = load_device_profile(*plan_on);
        RunOptions base = to_run_options(*mo);
        Jobs jobs;
        for (const Rung* rp : L.every_rung()) {
            const Rung& r = *rp;
            if (mo->rung == "all" ? r.lab : r.id != mo->rung) continue;  // lab rungs run when named
            RunOptions ro = base;
            if (mo->rung == "all") {
                // With all rungs, a --param applies to the rungs that have it (not pinned: a lab switch of the
                // teaching rung); a dtype to those that support it.
                ro.params.clear();
                for (const auto& [k, v] : base.params)
                    if (const ParamSpec* p = r.find_param(k); p && !p->pinned) ro.params[k] = v;
                if (base.dtype && std::find(r.dtypes.begin(), r.dtypes.end(), *base.dtype) == r.dtypes.end()) continue;
            }
            jobs.emplace_back(&r, ro);
        }
        if (jobs.empty()) {
            if (mo->rung != "all" && !L.find_rung(mo->rung)) {
                std::string known;
                for (const auto& r : L.rungs) known += (known.empty() ? "" : ", ") + r.id;
                throw InputError("ladder " + L.id + " has no rung '" + mo->rung + "' (rungs: " + known + ")");
            }
            throw InputError(mo->dtype.empty() ? "ladder " + L.id + " has only lab rungs: name one with --rung"
                                               : "no rung of ladder " + L.id + " supports dtype " + mo->dtype);
        }
        // A run of every rung skips those that cannot take the sizes; a named rung fails instead.
        if (profile) return print_plan(L, jobs, *profile, mo->rung == "all");
        return measure(L, jobs, *mo, "rung", mo->rung == "all");
    };
}

// [SECTION] sweep

Action add_sweep_command(CLI::App& app) {
    auto mo = std::make_shared<MeasureOptions>();
    auto axis = std::make_shared<std::string>();
    auto values = std::make_shared<std::vector<std::string>>();
    auto tie = std::make_shared<std::vector<std::string>>();
    add_measure_options(app, *mo);
    app.add_option("--rung,-r", mo->rung, "rung id")->required();
    app.add_option("--axis", *axis, "size axis or parameter to vary")->required();
    app.add_option("--values", *values,
                   "values, e.g. --values 1792,1793,2048,2049 or 2^10,2^12 (default: the sweep a lesson step "
                   "defines for this ladder and axis, else the window's default points)")
        ->delimiter(',');
    app.add_option("--tie", *tie, "size axes set to the same value as --axis at every point, e.g. --tie M,K")
        ->delimiter(',');
    return [mo, axis, values, tie] {
        auto ladders = load_ladders_or_throw();
        const Ladder& L = find_ladder_or_throw(ladders, mo->ladder);
        const Rung* r = L.find_rung(mo->rung);
        if (!r) throw InputError("ladder " + L.id + " has no rung '" + mo->rung + "'");
        RunOptions base = to_run_options(*mo);
        bool is_param = r->find_param(*axis) != nullptr;
        auto is_size = [&](const std::string& a) {
            for (const auto& [k, v] : L.default_sizes)
                if (k == a) return true;
            return false;
        };
        if (!is_param && !is_size(*axis))
            throw InputError("--axis: '" + *axis + "' is neither a size axis of " + L.id + " nor a parameter of " +
                             r->id);
        std::vector<int64_t> xs;
        std::vector<std::string> tied = *tie;
        for (const auto& v : *values) xs.push_back(parse_integer(v, "--values"));
        if (xs.empty()) {
            // The sweep as the window makes it (course/selection.h): the values and ties a lesson
            // step defines for this ladder and axis, else the default points; --tie replaces the ties.
            std::vector<Lesson> lessons = load_all_lessons(lessons_dir(), ladders, nullptr);
            SelectionChoice c;
            c.ladder = &L;
            c.rung = r;
            c.sizes.insert(L.default_sizes.begin(), L.default_sizes.end());
            for (const auto& [k, v] : base.sizes) c.sizes[k] = v;
            c.sweep_axis = *axis;
            c.step = find_lesson_sweep(lessons, L.id, r->id, *axis);
            SweepSpec sweep = sweep_of(c);
            xs = sweep.values;
            if (tied.empty()) tied = sweep.tie;
        }
        for (const auto& t : tied)
            if (!is_size(t) || is_param || t == *axis)
                throw InputError("--tie: '" + t + "' is not another size axis of " + L.id +
                                 " (ties follow a size axis)");
        Jobs jobs;
        for (int64_t x : xs) {
            RunOptions ro = base;
            (is_param ? ro.params : ro.sizes)[*axis] = x;
            for (const auto& t : tied) ro.sizes[t] = x;
            jobs.emplace_back(r, ro);
        }
        // Points at sizes the rung cannot take are skipped with their reason (as nvbench does).
        return measure(L, jobs, *mo, *axis, true);
    };
}

// [SECTION] calibrate

Action add_calibrate_command(CLI::App& app) {
    auto force = std::make_shared<bool>(false);
    app.add_flag("--force", *force, "measure again even if this device has cached figures");
    return [force] {
        GpuContext gpu;
        Calibration c = load_or_measure_calibration(gpu, *force);
        std::printf("device            %s (%s, %d SMs)\n", gpu.device().name.c_str(), gpu.device().arch().c_str(),
                    gpu.device().sm_count);
        std::printf("measured at       %s\n", c.measured_at.c_str());
        std::printf("copy bandwidth    %.0f GB/s (device-to-device, read + write)\n", c.copy_gbps);
        for (const auto& p : c.bandwidth)  // the memory roof's kernels (model/roof.h)
            std::printf("  roof point      %-7s reads %3.0f%% of the bytes: %.0f GB/s\n", p.kernel.c_str(),
                        100 * p.read_fraction, p.gbps);
        std::printf("cuBLAS fp32       %.1f TFLOP/s (4096^3, TF32 off)\n", c.sgemm_tflops);
        std::printf("cuBLAS bf16       %.0f TFLOP/s (4096^3, fp32 accumulate)\n", c.bf16_tflops);
        std::printf("fp32 peak (model) %.1f TFLOP/s from %d SMs x 128 lanes x 2 x %.2f GHz\n", c.fp32_peak_tflops,
                    gpu.device().sm_count, gpu.device().sm_clock_khz / 1e6);
        return 0;
    };
}

}  // namespace kl::cli
