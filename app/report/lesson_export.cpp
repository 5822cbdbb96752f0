// [SECTION] index: staging folder / figures / handout / export
#include "report/lesson_export.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "base/errors.h"
#include "base/file_set.h"
#include "base/paths.h"
#include "base/printable.h"
#include "course/bindings.h"
#include "course/prediction.h"
#include "course/reveal.h"
#include "plot/file_write.h"
#include "report/figure_files.h"
#include "report/handout.h"
#include "report/key_numbers.h"
#include "report/timeline_table.h"

namespace kl::report {

namespace fs = std::filesystem;

std::string step_figure_name(size_t step_index, const std::string& plot) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "step%02zu_", step_index + 1);
    return buf + plot;
}

// [SECTION] Staging folder

namespace {

// Where an export's files go until all of them are written. A new destination folder is built
// as a hidden sibling and renamed into place at the end; into an existing folder the files are
// moved together by a FileSet (other files there are left alone). Until commit() nothing is
// visible at the destination, and a failure or a signal removes only what was staged.
class Staging {
  public:
    explicit Staging(const std::string& out_dir) : out_dir_(out_dir) {
        if (out_dir.empty()) throw InputError("-o: the output folder name is empty");
        std::error_code ec;
        fs::file_status st = fs::symlink_status(out_dir, ec);
        if (fs::exists(st)) {
            if (!fs::is_directory(fs::status(out_dir, ec)))
                throw InputError("cannot write into '" + out_dir + "': it is not a folder");
            check_writable_folder(out_dir, out_dir);
            return;
        }
        fs::path target = fs::path(out_dir).lexically_normal();
        if (!target.has_filename()) target = target.parent_path();
        fs::path parent = target.parent_path().empty() ? fs::path(".") : target.parent_path();
        check_writable_folder(parent.string(), out_dir);
        std::string pattern = (parent / ("." + target.filename().string() + ".kladder-XXXXXX")).string();
        std::vector<char> name(pattern.begin(), pattern.end());
        name.push_back('\0');
        if (!mkdtemp(name.data()))
            throw InputError("cannot write into '" + parent.string() + "': cannot create a staging folder");
        new_dir_ = name.data();
        final_dir_ = target.string();
    }
    ~Staging() {
        files_.discard();
        if (new_dir_.empty() || moved_) return;
        // The FileSet removed its temporaries already; before commit the folder holds only
        // what this export wrote, after a failed commit the files it placed there.
        for (const auto& n : names_) ::unlink((fs::path(new_dir_) / n).c_str());
        ::rmdir(new_dir_.c_str());
    }
    void write(const std::string& name, const std::string& bytes) {
        std::string dir = new_dir_.empty() ? out_dir_ : new_dir_;
        files_.stage((fs::path(dir) / name).string(), bytes, (fs::path(out_dir_) / name).string());
        names_.push_back(name);
    }
    void commit() {
        files_.commit();
        if (new_dir_.empty()) return;
        // mkdtemp made the staging folder private (0700); the lesson folder gets the mode any new
        // folder would, so that the people it is shared with can open it.
        if (::chmod(new_dir_.c_str(), usual_mode(0777)) != 0)
            throw InputError("cannot create folder '" + out_dir_ + "': " + std::strerror(errno) +
                             " (nothing was written)");
        if (::rename(new_dir_.c_str(), final_dir_.c_str()) != 0)
            throw InputError("cannot create folder '" + out_dir_ + "': " + std::strerror(errno) +
                             " (nothing was written)");
        moved_ = true;
    }
    const std::vector<std::string>& names() const { return names_; }

  private:
    std::string out_dir_, new_dir_, final_dir_;
    std::vector<std::string> names_;
    FileSet files_;
    bool moved_ = false;
};

// The device a results file names, as shown: at most kDeviceNameChars, control characters visible.
std::string shown_device(const LoadedResults& results) {
    return results.file.device ? printable(results.file.device->name, kDeviceNameChars) : "unknown device";
}

// The lesson's texts with bound numbers filled in from the exported results first, then the
// recordings; each number is followed by "[k]", k indexing `sources` (one entry per run). A step
// with predict is bound as the window shows it before the prediction (course/reveal.h): its text
// up to `<!-- reveal -->`, the predicted figure withheld; what follows the marker goes to
// `reveals`, bound in full, for the handout's part after the predictions.
Lesson bind_numbers(const Lesson& lesson, const LoadedResults& results, const std::vector<Ladder>& ladders,
                    std::vector<std::string>* sources, std::vector<std::string>* reveals) {
    NumberSources numbers(&ladders);
    std::vector<std::string> errors;  // a recording that does not load leaves its numbers unresolved
    numbers.load_recorded(assets_dir() + "/recorded", &errors);
    std::string device = shown_device(results);
    for (const auto& r : results.file.runs) numbers.add_run(r, true, device, results.file.created, results.path);
    if (results.file.calibration)
        numbers.set_live_calibration(*results.file.calibration, device, results.path + " (calibration)");
    auto cite = [sources](const BoundValue& v) {
        std::string line = v.source_line();
        size_t k = std::find(sources->begin(), sources->end(), line) - sources->begin();
        if (k == sources->size()) sources->push_back(line);
        return v.shown + " [" + std::to_string(k + 1) + "]";
    };
    Lesson L = lesson;
    reveals->assign(L.steps.size(), "");
    for (size_t i = 0; i < L.steps.size(); ++i) {
        LessonStep& st = L.steps[i];
        const RevealGate before(st, ladders, false);
        if (before.closed() && st.reveal_at < st.text.size()) {
            (*reveals)[i] = numbers.render(st.text.substr(st.reveal_at), nullptr, cite);
            st.text = st.text.substr(0, st.reveal_at);
        }
        st.text = before.render(numbers, st.text, nullptr, cite);
        st.look_at = before.render(numbers, st.look_at, nullptr, cite);
        st.question = before.render(numbers, st.question, nullptr, cite);
        if (before.closed()) st.predict_ask = before.render(numbers, prediction_prompt(st), nullptr, cite);
        st.answer = numbers.render(st.answer, nullptr, cite);
        st.predict_why = numbers.render(st.predict_why, nullptr, cite);
    }
    return L;
}

std::string problem_key(const PlotContext& ctx) {
    std::string k = ctx.ladder ? ctx.ladder->id : "";
    for (const auto& [n, v] : ctx.sizes) k += "|" + n + "=" + std::to_string(v);
    return k + "|" + ctx.dtype;
}

}  // namespace

// [SECTION] Export

LessonExportSummary export_lesson(const Lesson& lesson, const LoadedResults& results,
                                  const std::vector<Ladder>& ladders, const std::string& out_dir,
                                  const plot::ExportOptions& options, bool caption) {
    LessonExportSummary summary;
    InterruptGuard guard;  // a signal stops the export at its next file and removes what it staged
    Staging staging(out_dir);
    HandoutInput handout;
    handout.lesson = &lesson;
    handout.results_name = "results.json";
    std::string device = shown_device(results);
    handout.source = device + ", measured " + date_of(results.file.created) +
                     (results.file.tool.empty() ? "" : " with " + results.file.tool);
    handout.step_figures.resize(lesson.steps.size());
    if (results.file.calibration && results.file.calibration->bf16_tflops > 0) {  // [calculator]
        handout.calculator.gemm_tflops = handout.calculator.peak_tflops = results.file.calibration->bf16_tflops;
        handout.calculator_source =
            "cuBLAS bf16 at 4096^3 measured on " + device + ", " + date_of(results.file.calibration->measured_at);
    } else {
        handout.calculator.gemm_tflops = handout.calculator.peak_tflops = 989;
    }
    std::set<std::string> tabled;

    for (size_t i = 0; i < lesson.steps.size(); ++i) {
        const LessonStep& step = lesson.steps[i];
        if (step.plot.empty() || step.ladder.empty()) continue;
        FigureRequest req = request_for_step(step);
        HandoutFigure& hf = handout.step_figures[i];
        hf.title = step.title;
        try {
            ExportFigure fig = build_export_figure(results, ladders, req, caption);
            std::string base = step_figure_name(i, step.plot);
            hf.title = fig.built.figure.title.empty() ? step.title : fig.built.figure.title;
            hf.caption = fig.built.figure.caption;
            for (plot::ExportFormat f : {plot::ExportFormat::Svg, plot::ExportFormat::Pdf, plot::ExportFormat::Png}) {
                std::string name = base + "." + plot::format_name(f);
                staging.write(name, render_or_throw(fig.built.figure, f, options, "'" + name + "'"));
            }
            hf.svg = base + ".svg";
            hf.pdf = base + ".pdf";
            hf.png = base + ".png";
            ++summary.figures;
            if (tabled.insert(problem_key(fig.context)).second)
                handout.tables.push_back(key_numbers(results, fig.context));
        } catch (const InputError& e) {
            // Missing data for one step is reported, not fatal; bad files and folders are.
            std::string why = e.what();
            if (why.rfind(results.path + ": no data", 0) != 0) throw;
            hf.missing = "the results hold no data for it (" + why.substr(results.path.size() + 2) + ").";
            summary.skipped.push_back("step " + std::to_string(i + 1) + " (" + step.plot +
                                      "): " + why.substr(results.path.size() + 2));
        }
    }

    // [timeline] the step's rung traced at the step's sizes (or any traced run of it)
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
    staging.write(handout.results_name, results.bytes);
    Lesson bound = bind_numbers(lesson, results, ladders, &handout.number_sources, &handout.step_reveals);
    handout.lesson = &bound;
    std::string md = handout_markdown(handout);
    staging.write("handout.md", md);
    staging.write("handout.html", markdown_to_html(md, "Lesson " + std::to_string(lesson.number) + ": " +
                                                           printable(lesson.title, kTitleChars)));
    staging.commit();
    summary.written = staging.names();
    return summary;
}

}  // namespace kl::report
