// [SECTION] index: figures / handout / export (the staging folder: export_staging.h)
#include "report/lesson_export.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "base/errors.h"
#include "base/file_set.h"
#include "base/paths.h"
#include "base/printable.h"
#include "course/bindings.h"
#include "course/prediction.h"
#include "course/reveal.h"
#include "course/selection.h"
#include "plot/file_write.h"
#include "plot/ticks.h"
#include "report/export_staging.h"
#include "report/figure_files.h"
#include "report/handout.h"
#include "report/handout_pdf.h"
#include "report/handout_results.h"
#include "report/key_numbers.h"
#include "report/timeline_table.h"

namespace kl::report {

namespace fs = std::filesystem;

std::string step_figure_name(size_t step_index, const std::string& plot) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "step%02zu_", step_index + 1);
    return buf + plot;
}

namespace {

// "NVIDIA H100 80GB HBM3, measured 2026-11-22: vector_add TPB=256 ..." (who, when and what; the
// file a recording came from stays out of the handout).
std::string cited(const BoundValue& v) {
    if (!v.ok) return "unresolved: " + v.error;
    return v.device + (v.date.empty() ? "" : ", measured " + v.date) + (v.what.empty() ? "" : ": " + v.what);
}

// One device per paragraph. A paragraph whose measured numbers would come from two devices (the
// handout's device lacks one run, which another device's recording fills in: "Measured on the
// NVIDIA H200: 2.81 ms unfused, 0.710 ms fused", the second the H100's) is bound from that other
// device's recordings instead, device name and facts included, when they hold every number of
// it; else it stays as it was, each number citing its own device.
struct CoherentNumbers {
    const NumberSources& main;
    const std::vector<Ladder>& ladders;
    const std::string& device;
    std::unique_ptr<NumberSources> recorded;  // the recordings alone, read when first needed

    static std::set<std::string> measured_devices(const std::vector<BoundValue>& values, bool* unresolved) {
        std::set<std::string> devices;
        for (const BoundValue& v : values) {
            if (!v.ok && !v.withheld) *unresolved = true;
            if (v.ok && !v.date.empty()) devices.insert(v.device);
        }
        return devices;
    }
    // The sources to bind `text` with (a gate withholds a prediction's numbers, reveal.h).
    const NumberSources& pick(const std::string& text, const RevealGate* gate) {
        auto values_of = [&](const NumberSources& n) {
            std::vector<BoundValue> values;
            if (gate)
                gate->render(n, text, &values);
            else
                n.render(text, &values);
            return values;
        };
        bool unresolved = false;
        std::set<std::string> devices = measured_devices(values_of(main), &unresolved);
        if (devices.size() < 2) return main;
        devices.erase(device);
        if (devices.size() != 1) return main;
        if (!recorded) {
            recorded = std::make_unique<NumberSources>(&ladders);
            std::vector<std::string> errors;  // as for `main`: what does not load stays unresolved
            recorded->load_recorded(assets_dir() + "/recorded", &errors);
        }
        recorded->set_preferred_device(*devices.begin());
        bool other_unresolved = false;
        const bool one_device = measured_devices(values_of(*recorded), &other_unresolved).size() == 1;
        return one_device && !other_unresolved ? *recorded : main;
    }
    // `text` bound paragraph by paragraph (whole, when an `{{ if }}` spans paragraphs).
    std::string render(const std::string& text, const RevealGate* gate,
                       const std::function<std::string(const BoundValue&)>& cite) {
        std::vector<std::string> paragraphs;
        for (size_t at = 0;;) {
            size_t end = text.find("\n\n", at);
            paragraphs.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end + 2 - at));
            if (end == std::string::npos) break;
            at = end + 2;
        }
        for (const std::string& p : paragraphs) {
            size_t ifs = 0, ends = 0;
            for (size_t k = p.find("{{"); k != std::string::npos; k = p.find("{{", k + 2)) {
                size_t w = p.find_first_not_of(' ', k + 2);
                if (w == std::string::npos) break;
                ifs += p.compare(w, 3, "if ") == 0;
                ends += p.compare(w, 3, "end") == 0;
            }
            if (ifs != ends) paragraphs = {text};
        }
        std::string out;
        for (const std::string& p : paragraphs) {
            const NumberSources& n = pick(p, gate);
            out += gate ? gate->render(n, p, nullptr, cite) : n.render(p, nullptr, cite);
        }
        return out;
    }
};

// The lesson's texts with bound numbers filled in as the window fills them: from the exported
// results first, then the recordings (their device's before another's); device facts state the
// exported results' device, the one the handout shows. Each number is followed by "[k]", k
// indexing `sources` (one entry per run: device, date, run). A step
// with predict is bound as the window shows it before the prediction (course/reveal.h): its text
// up to `<!-- reveal -->`, the predicted figure withheld; what follows the marker goes to
// `reveals`, bound in full, for the handout's part after the predictions.
Lesson bind_numbers(const Lesson& lesson, const std::vector<Ladder>& ladders, const LoadedResults& results,
                    HandoutEdition edition, std::vector<std::string>* sources, std::vector<std::string>* reveals) {
    NumberSources numbers(&ladders);
    ResultsFile exported = results.file;
    // Results written before the schema carried per-SM limits: those of their architecture.
    if (exported.device && !exported.device->has_limits)
        if (std::optional<DeviceInfo> p = profile_for_arch(exported.device->arch()))
            exported.device->limits = p->limits, exported.device->has_limits = true;
    numbers.add_exported(std::move(exported), results.path);
    std::vector<std::string> errors;  // a recording that does not load leaves its numbers unresolved
    numbers.load_recorded(assets_dir() + "/recorded", &errors);
    const std::string device = results_device(results.file);
    CoherentNumbers coherent{numbers, ladders, device, nullptr};
    auto cite = [sources](const BoundValue& v) {
        // Arithmetic on numbers typed in the binding (`{{ = 128 * 256 }}`): no device, no run, no
        // source to name (it would read ": computed from numbers").
        if (v.ok && v.device.empty() && v.date.empty()) return v.shown;
        std::string line = cited(v);
        size_t k = std::find(sources->begin(), sources->end(), line) - sources->begin();
        if (k == sources->size()) sources->push_back(line);
        return v.shown + " [" + std::to_string(k + 1) + "]";
    };
    Lesson L = lesson;
    reveals->assign(L.steps.size(), "");
    for (size_t i = 0; i < L.steps.size(); ++i) {
        LessonStep& st = L.steps[i];
        // The student edition prints no answer and no why: their numbers would be listed as
        // sources the pages never cite.
        if (edition == HandoutEdition::Student) st.answer.clear(), st.predict_why.clear();
        const RevealGate before(st, ladders, false);
        if (before.closed() && st.reveal_at < st.text.size()) {
            (*reveals)[i] = coherent.render(st.text.substr(st.reveal_at), nullptr, cite);
            st.text = st.text.substr(0, st.reveal_at);
        }
        st.text = coherent.render(st.text, &before, cite);
        st.look_at = coherent.render(st.look_at, &before, cite);
        st.question = coherent.render(st.question, &before, cite);
        if (before.closed()) st.predict_ask = coherent.render(prediction_prompt(st), &before, cite);
        st.answer = coherent.render(st.answer, nullptr, cite);
        if (!before.closed()) st.predict_ask = coherent.render(st.predict_ask, nullptr, cite);
        st.predict_why = coherent.render(st.predict_why, nullptr, cite);
    }
    return L;
}

// [instructor] What the handout's device measured for each step's prediction ("4,372 GB/s").
std::vector<std::string> measured_answers(const Lesson& lesson, const LoadedResults& results,
                                          const std::vector<Ladder>& ladders) {
    NumberSources numbers(&ladders);
    const std::string device = results_device(results.file);
    for (const auto& r : results.store.runs()) numbers.add_run(r.record, true, device, "", r.origin);
    if (results.file.calibration) numbers.set_live_calibration(*results.file.calibration, device, "calibration");
    std::vector<std::string> out(lesson.steps.size());
    for (size_t i = 0; i < lesson.steps.size(); ++i) {
        const LessonStep& st = lesson.steps[i];
        if (st.predict_metric.empty() || st.ladder.empty()) continue;
        BoundValue v = numbers.resolve(prediction_binding(st));
        if (v.ok) out[i] = v.shown + (v.what.empty() ? "" : " (" + v.what + ")");
    }
    return out;
}

// [instructor] The device's facts as its results file records them, and the calibration.
std::vector<DeviceFact> device_table(const LoadedResults& results) {
    std::vector<DeviceFact> t;
    t.push_back({"GPU", results_device(results.file)});
    t.push_back({"Measured", measured_dates(results.store)});
    if (const auto& d = results.file.device) {
        if (d->cc_major > 0) t.push_back({"Architecture", d->arch()});
        if (d->sm_count > 0) t.push_back({"SMs", std::to_string(d->sm_count)});
        if (d->l2_bytes > 0) t.push_back({"L2 cache", plot::format_value(d->l2_bytes / 1048576.0, 3) + " MiB"});
        if (d->global_mem_bytes > 0)
            t.push_back({"Memory", plot::format_value(d->global_mem_bytes / 1073741824.0, 3) + " GiB"});
        if (d->smem_per_sm > 0) t.push_back({"Shared memory per SM", std::to_string(d->smem_per_sm / 1024) + " KiB"});
        if (d->sm_clock_khz > 0) t.push_back({"Peak SM clock", std::to_string(d->sm_clock_khz / 1000) + " MHz"});
    }
    if (const auto& c = results.file.calibration; c && c->valid()) {
        std::string when = c->measured_at.empty() ? "" : " (" + date_of(c->measured_at) + ")";
        t.push_back({"Copy bandwidth, measured", plot::format_value(c->copy_gbps, 4) + " GB/s" + when});
        if (c->sgemm_tflops > 0)
            t.push_back({"cuBLAS fp32 at 4096^3", plot::format_value(c->sgemm_tflops, 3) + " TFLOP/s"});
        if (c->bf16_tflops > 0)
            t.push_back({"cuBLAS bf16 at 4096^3", plot::format_value(c->bf16_tflops, 3) + " TFLOP/s"});
    }
    return t;
}

std::string problem_key(const PlotContext& ctx) {
    std::string k = ctx.ladder ? ctx.ladder->id : "";
    for (const auto& [n, v] : ctx.sizes) k += "|" + n + "=" + std::to_string(v);
    return k + "|" + ctx.dtype;
}

}  // namespace

// [SECTION] Figures

namespace {

// Why a built step figure cannot stand in the handout, or "": the step's own rung not among the
// bars (its slot would be empty, and the text is about it).
std::string unusable(const ExportFigure& fig, const LessonStep& step) {
    if (step.rung.empty() || fig.built.bar_runs.empty()) return "";
    for (const StoredRun* r : fig.built.bar_runs)
        if (r && r->record.rung == step.rung) return "";
    return "No run of " + step.rung + " at " + format_sizes(fig.context.sizes) + ".";
}

// One step's figure: built, rendered and staged, or why not. A figure byte-identical to an
// earlier step's is not repeated (the handout points to the first).
struct FigureFiles {
    Staging& staging;
    const plot::ExportOptions& page;
    std::vector<std::string> svgs;                // per step, "" for none
    std::map<std::string, plot::Figure> printed;  // handout.pdf draws these where their PNG stands
};

// Predict, then reveal across steps: a figure that draws a run which a later step of the lesson
// asks to predict (that step's closed gate withholds it) would answer that prediction early.
bool draws_a_later_prediction(const BuiltFigure& built, const std::vector<LessonStep>& steps, size_t i,
                              const std::vector<Ladder>& ladders) {
    std::vector<const StoredRun*> drawn(built.bar_runs);
    drawn.insert(drawn.end(), built.compare_runs.begin(), built.compare_runs.end());
    for (const auto& series : built.point_runs) drawn.insert(drawn.end(), series.begin(), series.end());
    for (size_t j = i + 1; j < steps.size(); ++j) {
        if (steps[j].predict_metric.empty()) continue;
        const RevealGate later(steps[j], ladders, false);
        for (const StoredRun* r : drawn)
            if (r && later.withholds(r->record)) return true;
    }
    return false;
}

std::optional<PlotContext> stage_step_figure(const std::vector<LessonStep>& steps, size_t i,
                                             const LoadedResults& results, const std::vector<Ladder>& ladders,
                                             const LessonExportOptions& options, FigureFiles& files,
                                             HandoutFigure& hf) {
    const LessonStep& step = steps[i];
    FigureRequest req = request_for_step(step);
    hf.title = step.title;
    ExportFigure fig;
    try {
        fig = build_export_figure(results, ladders, req, options.caption);
    } catch (const InputError& e) {
        // Missing data for one step is reported, not fatal; bad files and folders are.
        std::string why = e.what();
        if (why.rfind(results.path + ": no data", 0) != 0) throw;
        why = why.substr(results.path.size() + 2);  // "no data for the sweep ..."
        // The window's hint ("(No sweep over TPB at these settings yet: press Sweep.)") is no advice
        // on paper.
        if (size_t hint = why.rfind(" (No "); hint != std::string::npos) why.erase(hint);
        hf.missing = "The results hold " + why + ".";
        return std::nullopt;
    }
    hf.missing = unusable(fig, step);
    if (!hf.missing.empty()) return std::nullopt;
    drop_unmeasured_categories(fig.built);  // no empty slots on paper
    hf.waits = step.predict_metric.empty() && draws_a_later_prediction(fig.built, steps, i, ladders);
    std::string base = step_figure_name(i, step.plot);
    hf.title = fig.built.figure.title.empty() ? step.title : fig.built.figure.title;
    hf.caption = fig.built.figure.caption;
    std::string svg = render_or_throw(fig.built.figure, plot::ExportFormat::Svg, files.page, "'" + base + ".svg'");
    for (size_t k = 0; k < i; ++k)
        if (files.svgs[k] == svg) {
            hf.same_as = k + 1;
            return fig.context;
        }
    files.svgs[i] = svg;
    files.staging.write(base + ".svg", svg);
    for (plot::ExportFormat f : {plot::ExportFormat::Pdf, plot::ExportFormat::Png}) {
        std::string name = base + "." + plot::format_name(f);
        files.staging.write(name, render_or_throw(fig.built.figure, f, files.page, "'" + name + "'"));
    }
    files.printed[base + ".png"] = fig.built.figure;
    hf.svg = base + ".svg";
    hf.pdf = base + ".pdf";
    hf.png = base + ".png";
    return fig.context;
}

// [timeline] the step's rung traced at the step's sizes (or any traced run of it)
void stage_timelines(const Lesson& lesson, const LoadedResults& results, Staging& staging, HandoutInput& handout) {
    handout.step_timelines.resize(lesson.steps.size());
    handout.step_timeline_csv.resize(lesson.steps.size());
    for (size_t i = 0; i < lesson.steps.size(); ++i) {
        const LessonStep& step = lesson.steps[i];
        const RunRecord* traced = nullptr;
        for (const auto& r : results.file.runs) {
            if (r.ladder != step.ladder || r.rung != step.rung || !r.timeline) continue;
            bool same = true;
            for (const auto& [k, v] : step.sizes) same = same && r.sizes.count(k) && r.sizes.at(k) == v;
            if (!traced || same) traced = &r;
        }
        if (!traced) continue;
        handout.step_timelines[i] = timeline_markdown(*traced);
        handout.step_timeline_csv[i] = "step" + std::to_string(i + 1) + "_timeline.csv";
        staging.write(handout.step_timeline_csv[i], timeline_csv(*traced));
    }
}

}  // namespace

// [SECTION] Export

std::string device_folder_name(const std::string& device) {
    std::string out;
    for (char c : device) {
        bool word = std::isalnum(static_cast<unsigned char>(c)) != 0;
        if (word)
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else if (!out.empty() && out.back() != '_')
            out += '_';
        if (out.size() >= 64) break;
    }
    while (!out.empty() && out.back() == '_') out.pop_back();
    return out.empty() ? "device" : out;
}

LessonExportSummary export_lesson(const Lesson& lesson, const LoadedResults& results,
                                  const std::vector<Ladder>& ladders, const std::string& out_dir,
                                  const LessonExportOptions& options) {
    LessonExportSummary summary;
    InterruptGuard guard;  // a signal stops the export at its next file and removes what it staged
    Staging staging(out_dir);
    HandoutInput handout;
    handout.lesson = &lesson;
    handout.edition = options.edition;
    handout.results_name = "results.json";
    const std::string device = results_device(results.file);
    summary.folder = out_dir;
    summary.device = device;
    handout.source = device + ", " + measured_dates(results.store) +
                     (results.file.tool.empty() ? "" : " (" + results.file.tool + ")");
    handout.step_figures.resize(lesson.steps.size());
    if (results.file.calibration && results.file.calibration->bf16_tflops > 0) {  // [calculator]
        handout.calculator.gemm_tflops = handout.calculator.peak_tflops = results.file.calibration->bf16_tflops;
        handout.calculator_source =
            "cuBLAS bf16 at 4096^3 measured on " + device + ", " + date_of(results.file.calibration->measured_at);
    } else {
        handout.calculator.gemm_tflops = handout.calculator.peak_tflops = 989;
    }
    std::set<std::string> tabled;
    FigureFiles files{staging, options.page, std::vector<std::string>(lesson.steps.size()), {}};
    for (size_t i = 0; i < lesson.steps.size(); ++i) {
        const LessonStep& step = lesson.steps[i];
        if (step.plot.empty() || step.ladder.empty()) continue;
        HandoutFigure& hf = handout.step_figures[i];
        std::optional<PlotContext> ctx = stage_step_figure(lesson.steps, i, results, ladders, options, files, hf);
        if (!ctx) {
            summary.skipped.push_back("step " + std::to_string(i + 1) + " (" + step.plot + "): " + hf.missing);
            continue;
        }
        if (hf.same_as == 0) ++summary.figures;
        if (tabled.insert(problem_key(*ctx)).second) handout.tables.push_back(key_numbers(results, *ctx));
    }
    stage_timelines(lesson, results, staging, handout);
    staging.write(handout.results_name, results.bytes);
    Lesson bound =
        bind_numbers(lesson, ladders, results, options.edition, &handout.number_sources, &handout.step_reveals);
    handout.lesson = &bound;
    if (options.edition == HandoutEdition::Instructor) {
        handout.device_table = device_table(results);
        handout.step_measured = measured_answers(lesson, results, ladders);
    }
    std::string md = handout_markdown(handout);
    staging.write("handout.md", md);
    const std::string title = "Lesson " + std::to_string(lesson.number) + ": " + printable(lesson.title, kTitleChars);
    staging.write("handout.html", markdown_to_html(md, title));
    handout.print = true;
    const std::string edition = options.edition == HandoutEdition::Student ? "student" : "instructor";
    const std::string dates = measured_dates(results.store);  // "2026-11-22 to 2026-11-24"
    // Dated by its newest run, not by now: the same results give the same bytes (as the window and
    // the command line must).
    const std::string newest = dates.size() >= 10 ? dates.substr(dates.size() - 10) : "";
    staging.write("handout.pdf",
                  handout_pdf(handout_markdown(handout), files.printed, title,
                              title + " \xC2\xB7 " + edition + " edition \xC2\xB7 " + printable(device) + ", " + dates,
                              // the figures' shape as exported, on the page's column
                              options.page.height_pt * 468.0 / std::max(options.page.width_pt, 1.0), newest)
                      .pdf);
    staging.commit();
    summary.written = staging.names();
    return summary;
}

std::vector<LessonExportSummary> export_lesson_handouts(const Lesson& lesson, std::vector<LoadedResults> files,
                                                        const std::vector<Ladder>& ladders, const std::string& out_dir,
                                                        const LessonExportOptions& options) {
    if (!options.per_device) return {export_lesson(lesson, merge_results(std::move(files)), ladders, out_dir, options)};
    std::vector<LoadedResults> devices = merge_per_device(std::move(files));
    if (devices.size() == 1) return {export_lesson(lesson, devices.front(), ladders, out_dir, options)};
    // One folder per device inside out_dir (created like any destination: its parent must exist).
    check_writable_folder(fs::path(out_dir).lexically_normal().parent_path().empty()
                              ? "."
                              : fs::path(out_dir).lexically_normal().parent_path().string(),
                          out_dir);
    std::error_code ec;
    fs::create_directory(out_dir, ec);
    std::vector<LessonExportSummary> out;
    for (const auto& d : devices) {
        std::string folder = (fs::path(out_dir) / device_folder_name(results_device(d.file))).string();
        out.push_back(export_lesson(lesson, d, ladders, folder, options));
    }
    return out;
}

}  // namespace kl::report
