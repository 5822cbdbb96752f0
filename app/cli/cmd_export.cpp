// `kladder export` (one figure from a results file) and `kladder export-lesson` (every figure
// of a lesson plus a handout). No GPU needed: both draw recorded results with the workbook's
// own figure builders (report/figure_request.h).
#include <cstdio>
#include <filesystem>
#include <memory>

#include "base/errors.h"
#include "base/paths.h"
#include "base/printable.h"
#include "cli_common.h"
#include "commands.h"
#include "course/figure_vocabulary.h"
#include "report/figure_files.h"
#include "report/figure_request.h"
#include "report/lesson_export.h"

namespace kl::cli {

namespace {

struct PageOptions {
    double width_pt = 468, height_pt = 288, scale = 2;
    std::string theme = "print";
    bool caption = true;
};

void add_page_options(CLI::App& app, PageOptions& o) {
    app.add_option("--width", o.width_pt, "page width in points (default 468 = 6.5 in)")
        ->check(CLI::Range(72.0, 7200.0));
    app.add_option("--height", o.height_pt, "page height in points (default 288 = 4 in)")
        ->check(CLI::Range(72.0, 7200.0));
    app.add_option("--scale", o.scale, "PNG pixels per point (default 2; 300/72 for 300 dpi)")
        ->check(CLI::Range(0.25, 16.0));
    app.add_option("--theme", o.theme, "print (white, for paper) or screen (dark, larger text, for slides)")
        ->check(CLI::IsMember({"print", "screen"}));
    app.add_flag("--caption,!--no-caption", o.caption,
                 "print device, date and problem size under the plot (default on)");
}

// --plot and --metric from the figure vocabulary (course/figure_vocabulary.h).
std::vector<std::string> figure_kind_names() {
    std::vector<std::string> names;
    for (const auto& k : plot_kinds())
        if (k.from_results) names.push_back(k.name);
    return names;
}

// "bars: time, rate or pct (of reference); sweep: ...; traffic: ..."
std::string metric_help() {
    std::string help;
    for (const auto& k : plot_kinds()) {
        if (k.metrics.empty()) continue;
        help += std::string(help.empty() ? "" : "; ") + k.name + ": ";
        for (size_t i = 0; i < k.metrics.size(); ++i)
            help += std::string(i == 0                      ? ""
                                : i + 1 == k.metrics.size() ? " or "
                                                            : ", ") +
                    metric_info(k.metrics[i]).help;
    }
    return help;
}

plot::ExportOptions export_options(const PageOptions& o) {
    plot::ExportOptions e;
    e.width_pt = o.width_pt;
    e.height_pt = o.height_pt;
    e.png_scale = o.scale;
    e.theme = o.theme == "screen" ? plot::slide_theme() : plot::print_theme();
    return e;
}

struct ExportCliOptions {
    std::string results, plot, format, output, ladder, rung, axis, metric, dtype;
    std::vector<std::string> tie;
    std::vector<std::string> sizes, params;
    PageOptions page;
};

struct LessonCliOptions {
    std::string lesson, output, edition = "instructor";
    std::vector<std::string> results;
    bool per_device = false;
    PageOptions page;
};

}  // namespace

Action add_export_command(CLI::App& app) {
    auto o = std::make_shared<ExportCliOptions>();
    app.add_option("--results", o->results, "results JSON (from `kladder run --json`, or assets/recorded/*.json)")
        ->required();
    app.add_option("--plot", o->plot, plot_kind_list(true))->required()->check(CLI::IsMember(figure_kind_names()));
    app.add_option("--format", o->format, "svg, pdf, png or csv (default: from the file name)")
        ->check(CLI::IsMember({"svg", "pdf", "png", "csv"}));
    app.add_option("-o,--output", o->output, "the figure file; the results are copied beside it as NAME.results.json")
        ->required();
    app.add_option("--ladder", o->ladder, "ladder id (default: the only ladder in the results)");
    app.add_option("--rung", o->rung, "rung to highlight or sweep (default: the rung with the most runs)");
    app.add_option("--axis", o->axis, "sweep: a size axis (n) or a parameter (TPB)");
    app.add_option("--tie", o->tie, "sweep: size axes equal to --axis at every point (--axis N --tie M,K)")
        ->delimiter(',');
    app.add_option("--metric", o->metric, metric_help())->check(CLI::IsMember(metric_names()));
    app.add_option("--size,-s", o->sizes, "problem size, e.g. --size n=2^28 (default: as measured)");
    app.add_option("--param,-p", o->params, "rung parameter, e.g. --param TPB=256 (default: as measured)");
    app.add_option("--dtype", o->dtype, "element type (default: as measured)");
    add_page_options(app, o->page);
    return [o] {
        auto ladders = load_ladders_or_throw();
        report::FigureRequest req;
        req.plot = *plot_kind_from_name(o->plot);
        req.ladder = o->ladder;
        req.rung = o->rung;
        req.axis = o->axis;
        req.tie = o->tie;
        if (!o->metric.empty()) req.metric = metric_from_name(o->metric);
        req.sizes = parse_assignments(o->sizes, "--size");
        req.params = parse_assignments(o->params, "--param");
        req.dtype = o->dtype;

        plot::ExportFormat format;
        if (!o->format.empty()) {
            format = o->format == "svg"   ? plot::ExportFormat::Svg
                     : o->format == "pdf" ? plot::ExportFormat::Pdf
                     : o->format == "png" ? plot::ExportFormat::Png
                                          : plot::ExportFormat::Csv;
        } else if (auto f = plot::format_from_path(o->output)) {
            format = *f;
        } else {
            throw InputError("-o '" + o->output +
                             "': give --format svg|pdf|png|csv or a file name ending in one of them");
        }

        report::LoadedResults results = report::load_results_for_export(o->results);
        report::ExportFigure fig = report::build_export_figure(results, ladders, req, o->page.caption);
        report::write_figure_with_results(fig.built.figure, o->output, format, export_options(o->page), results.bytes);
        std::printf("wrote %s (%s) and %s\n", printable(o->output).c_str(), plot::format_name(format),
                    printable(report::results_copy_path(o->output)).c_str());
        return static_cast<int>(ExitCode::Ok);
    };
}

Action add_export_lesson_command(CLI::App& app) {
    auto o = std::make_shared<LessonCliOptions>();
    app.add_option("lesson", o->lesson, "lesson id or number (see `kladder list lessons`)")->required();
    app.add_option("--results", o->results,
                   "results JSON the figures are drawn from (assets/recorded/*.json works without a GPU); "
                   "repeat it for several files of one device, which are merged")
        ->required();
    app.add_option("--edition", o->edition,
                   "student (predictions as blanks, no answers) or instructor (answers, what this device measured, "
                   "key numbers, the device; default)")
        ->check(CLI::IsMember({"student", "instructor"}));
    app.add_flag("--per-device", o->per_device,
                 "results of several devices: one handout per device, in a folder each under -o (without it they "
                 "are refused)");
    app.add_option("-o,--output", o->output,
                   "folder for the figures, results.json, handout.md, handout.html and handout.pdf (created if its "
                   "parent exists)")
        ->required();
    add_page_options(app, o->page);
    return [o] {
        auto ladders = load_ladders_or_throw();
        std::vector<LessonLoadError> errors;
        auto lessons = load_all_lessons(lessons_dir(), ladders, &errors);
        const Lesson* lesson = nullptr;
        std::string known;
        for (const auto& l : lessons) {
            if (l.id == o->lesson || std::to_string(l.number) == o->lesson) lesson = &l;
            known += (known.empty() ? "" : ", ") + l.id;
        }
        if (!lesson) {
            for (const auto& e : errors)
                if (e.folder.find(o->lesson) != std::string::npos) throw InputError(e.message);
            throw InputError("unknown lesson '" + o->lesson + "' (lessons: " + known + ")");
        }
        std::vector<report::LoadedResults> files;
        for (const auto& path : o->results) files.push_back(report::load_results_for_export(path));
        report::LessonExportOptions options;
        options.page = export_options(o->page);
        options.caption = o->page.caption;
        options.edition = *report::handout_edition_from_name(o->edition);
        options.per_device = o->per_device;
        for (const auto& s : report::export_lesson_handouts(*lesson, std::move(files), ladders, o->output, options)) {
            for (const auto& skip : s.skipped)
                std::printf("no figure for %s\n", printable(skip, kMessageChars).c_str());
            std::printf(
                "wrote the %s edition for %s: %d figure%s (SVG, PDF, PNG), results.json, handout.md, "
                "handout.html and handout.pdf to %s\n",
                o->edition.c_str(), printable(s.device).c_str(), s.figures, s.figures == 1 ? "" : "s",
                printable(s.folder).c_str());
        }
        return static_cast<int>(ExitCode::Ok);
    };
}

std::vector<CommandSpec> report_commands() {
    return {
        {"class", "Class mode for instructors: make a class key, verify and merge submissions",
         [](CLI::App& a) { return add_class_command(a, add_class_merge_command); }},
        {"export", "Draw one figure from a results file as SVG, PDF, PNG or CSV (no GPU needed)", add_export_command},
        {"export-lesson", "Every figure of a lesson plus a Markdown/HTML handout, from a results file",
         add_export_lesson_command}};
}

}  // namespace kl::cli
