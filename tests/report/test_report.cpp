// Figure export and lesson handouts (app/report) against a small synthetic results file: the
// numbers in the CSV and the labels in the SVG are the results' numbers; PDF renders; PNG has
// the size asked for; a lesson export writes every figure and a handout whose links resolve;
// an export into a missing folder fails with one line and leaves nothing behind.
// [SECTION] index: fixture / figures and numbers / formats / lesson / failures
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "../plot/csv_test_reader.h"
#include "base/errors.h"
#include "base/paths.h"
#include "course/bindings.h"
#include "course/lesson.h"
#include "model/manifest_load.h"
#include "model/results_json.h"
#include "plot/csv_export.h"
#include "plot/ticks.h"
#include "report/figure_files.h"
#include "report/figure_request.h"
#include "report/figures.h"
#include "report/handout.h"
#include "report/lesson_export.h"

namespace fs = std::filesystem;
using namespace kl;
using namespace kl::report;

namespace {

// [SECTION] Fixture

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Made-up but self-consistent runs of the elementwise ladder: bandwidth values chosen so that
// every label is distinct (1,000 / 200 / 2,000 / 2,500 GB/s at n = 2^28), plus a size sweep.
struct Synthetic {
    std::vector<Ladder> ladders;
    ResultsFile file;
    std::map<std::string, double> gbps_at_default;  // rung -> GB/s at n = 2^28
};

RunRecord make_run(const Rung& r, int64_t n, double gbps) {
    RunRecord rec;
    rec.ladder = "elementwise";
    rec.rung = r.id;
    rec.title = r.title;
    rec.operation = r.operation;
    for (const auto& p : r.params) rec.params[p.name] = p.default_value;
    rec.sizes = {{"n", n}};
    rec.dtype = kl::DType::F32;
    rec.values.set(tag::ideal_bytes, (r.id == "vector_add" ? 12.0 : 8.0) * double(n));
    rec.values.set(tag::model_bytes,
                   r.id == "gelu_unfused" ? rec.values.num(tag::ideal_bytes) * 11 : rec.values.num(tag::ideal_bytes));
    rec.values.set(tag::flops, 20.0 * double(n));
    TimingStats t;
    t.median_ms = rec.values.num(tag::ideal_bytes) / (gbps * 1e9) * 1e3;
    t.min_ms = t.median_ms * 0.99;
    t.max_ms = t.median_ms * 1.02;
    t.mean_ms = t.median_ms;
    t.reps = 10;
    rec.timing = t;
    rec.values.set(tag::gbps, gbps);
    rec.values.set(tag::tflops, rec.values.num(tag::flops) / (t.median_ms * 1e-3) / 1e12);
    rec.values.set(tag::pct_copy, gbps / 3000.0 * 100.0);
    Correctness c;
    c.passed = r.id != "gelu_fused";  // one failing rung, so the table's verdicts are checked
    c.rel_l2 = c.passed ? 2e-8 : 3e-3;
    c.elements = n;
    c.tolerance.rel = 1e-5;
    rec.correctness = c;
    return rec;
}

const Synthetic& synthetic() {
    static Synthetic s = [] {
        Synthetic s;
        std::vector<std::string> errors;
        s.ladders = load_all_ladders(kernels_dir(), &errors);
        const Ladder* L = nullptr;
        for (const auto& l : s.ladders)
            if (l.id == "elementwise") L = &l;
        if (!L) throw std::runtime_error("the elementwise ladder did not load");
        s.file.created = "2026-01-02T03:04:05Z";
        s.file.tool = "test";
        DeviceInfo d;
        d.name = "Test GPU 80GB";
        s.file.device = d;
        Calibration cal;
        cal.copy_gbps = 3000;
        cal.sgemm_tflops = 50;
        cal.fp32_peak_tflops = 60;
        cal.bf16_tflops = 700;
        s.file.calibration = cal;
        const double rates[] = {1000, 200, 2000, 2500};
        for (size_t i = 0; i < L->rungs.size() && i < 4; ++i) {
            s.file.runs.push_back(make_run(L->rungs[i], int64_t(1) << 28, rates[i]));
            s.gbps_at_default[L->rungs[i].id] = rates[i];
            // A sweep over n at the rung's defaults, for the size-sweep steps.
            for (int k : {16, 20, 24})
                s.file.runs.push_back(make_run(L->rungs[i], int64_t(1) << k, rates[i] * (0.3 + 0.02 * k)));
        }
        return s;
    }();
    return s;
}

struct TempDir {
    fs::path path;
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "kl-report-test-XXXXXX").string();
        std::vector<char> name(pattern.begin(), pattern.end());
        name.push_back('\0');
        path = mkdtemp(name.data());
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

LoadedResults load_synthetic(const TempDir& dir) {
    fs::path p = dir.path / "synthetic.json";
    save_results(p.string(), synthetic().file);
    return load_results_for_export(p.string());
}

FigureRequest bars_request() {
    FigureRequest r;
    r.plot = PlotKind::Bars;
    r.metric = Metric::Rate;
    return r;
}

using plot::testing::parse_csv;

}  // namespace

// [SECTION] Figures and numbers

TEST(ReportFigures, CsvRowsAreTheResultsNumbers) {
    TempDir dir;
    LoadedResults res = load_synthetic(dir);
    ExportFigure fig = build_export_figure(res, synthetic().ladders, bars_request());
    fs::path csv = dir.path / "bars.csv";
    write_figure_with_results(fig.built.figure, csv.string(), plot::ExportFormat::Csv, {}, res.bytes);
    auto rows = parse_csv(read_all(csv));
    ASSERT_GE(rows.size(), 6u);
    const auto& h = rows[0];
    auto col = [&](const std::string& name) { return size_t(std::find(h.begin(), h.end(), name) - h.begin()); };
    size_t kind = col("kind"), category = col("category"), y = col("y"), unit = col("y_unit");
    ASSERT_LT(y, h.size());
    int bars = 0;
    for (size_t i = 1; i < rows.size(); ++i) {
        const auto& r = rows[i];
        if (r[kind] == "bars") {
            // The category is the rung's number and title (its short label where the axis is crowded), as
            // the strip shows them; its run's GB/s, exactly.
            const Ladder& L = *fig.context.ladder;
            const Rung* rung = nullptr;
            for (const auto& x : L.rungs)
                if (x.number + " " + x.title == r[category] || x.number + " " + x.label() == r[category]) rung = &x;
            ASSERT_NE(rung, nullptr) << r[category];
            if (!synthetic().gbps_at_default.count(rung->id)) {  // a rung without a run: no value, no bar
                EXPECT_EQ(r[y], "NaN") << rung->id;
                continue;
            }
            EXPECT_EQ(std::stod(r[y]), synthetic().gbps_at_default.at(rung->id)) << rung->id;
            EXPECT_EQ(r[unit], "GB/s");
            ++bars;
        } else if (r[kind] == "hline") {
            EXPECT_EQ(std::stod(r[y]), 3000.0);  // the calibration's copy roof
        }
    }
    EXPECT_EQ(bars, 4);
    // The results travel with the figure, byte for byte.
    EXPECT_EQ(read_all(dir.path / "bars.results.json"), res.bytes);
}

TEST(ReportFigures, SvgLabelsAndTicksShowTheResults) {
    TempDir dir;
    LoadedResults res = load_synthetic(dir);
    ExportFigure fig = build_export_figure(res, synthetic().ladders, bars_request());
    fs::path svg = dir.path / "bars.svg";
    write_figure_with_results(fig.built.figure, svg.string(), plot::ExportFormat::Svg, {}, res.bytes);
    std::string text = read_all(svg);
    for (const char* label : {">1,000<", ">200<", ">2,000<", ">2,500<"})
        EXPECT_NE(text.find(label), std::string::npos) << label;
    EXPECT_NE(text.find("Bandwidth (GB/s)"), std::string::npos);
    EXPECT_NE(text.find("copy roof (measured)"), std::string::npos);
    // Caption: device, measurement date, problem size.
    EXPECT_NE(text.find("Test GPU 80GB"), std::string::npos);
    EXPECT_NE(text.find("2026-01-02"), std::string::npos);
    EXPECT_NE(text.find("n = 268,435,456"), std::string::npos);
    // Ticks: the y axis reaches the roof; 0 and 3,000 are labelled.
    EXPECT_NE(text.find(">0<"), std::string::npos);
    EXPECT_NE(text.find(">3,000<"), std::string::npos);

    FigureRequest r = bars_request();
    ExportFigure bare = build_export_figure(res, synthetic().ladders, r, /*caption=*/false);
    EXPECT_TRUE(bare.built.figure.caption.empty());
}

TEST(ReportFigures, SweepHasOnePointPerMeasuredSize) {
    TempDir dir;
    LoadedResults res = load_synthetic(dir);
    FigureRequest r;
    r.plot = PlotKind::Sweep;
    r.rung = "gelu_fused";
    r.axis = "n";
    r.metric = Metric::Rate;
    ExportFigure fig = build_export_figure(res, synthetic().ladders, r);
    std::string csv = plot::figure_to_csv(fig.built.figure);
    // 2^16 at 0.62 x 2,000 GB/s = 1,240 GB/s.
    EXPECT_NE(csv.find(",65536,elements,1240,GB/s"), std::string::npos) << csv;
    EXPECT_NE(csv.find(",268435456,elements,2000,GB/s"), std::string::npos) << csv;
}

TEST(ReportFigures, UnknownNamesAreOneClearLine) {
    TempDir dir;
    LoadedResults res = load_synthetic(dir);
    FigureRequest r = bars_request();
    r.rung = "nope";
    try {
        build_export_figure(res, synthetic().ladders, r);
        FAIL() << "expected an InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("has no rung 'nope'"), std::string::npos) << e.what();
    }
    FigureRequest s;
    s.plot = PlotKind::Sweep;  // no axis
    EXPECT_THROW(build_export_figure(res, synthetic().ladders, s), InputError);
    FigureRequest m = bars_request();
    m.sizes = {{"n", 12345}};  // nothing measured there
    EXPECT_THROW(build_export_figure(res, synthetic().ladders, m), InputError);
}

// [SECTION] Formats

TEST(ReportFormats, PngHasTheSizeAskedFor) {
    TempDir dir;
    LoadedResults res = load_synthetic(dir);
    ExportFigure fig = build_export_figure(res, synthetic().ladders, bars_request());
    fig.built.figure.bars = plot::BarOrientation::Vertical;  // across, a page may grow (export_height)
    plot::ExportOptions o;
    o.width_pt = 300;
    o.height_pt = 200;
    o.png_scale = 1.5;
    fs::path png = dir.path / "bars.png";
    write_figure_with_results(fig.built.figure, png.string(), plot::ExportFormat::Png, o, res.bytes);
    std::string b = read_all(png);
    ASSERT_GT(b.size(), 24u);
    ASSERT_EQ(b.substr(1, 3), "PNG");
    auto be32 = [&](size_t at) {
        return (uint32_t(uint8_t(b[at])) << 24) | (uint32_t(uint8_t(b[at + 1])) << 16) |
               (uint32_t(uint8_t(b[at + 2])) << 8) | uint8_t(b[at + 3]);
    };
    EXPECT_EQ(be32(16), 450u);  // IHDR width
    EXPECT_EQ(be32(20), 300u);  // IHDR height
}

// A suite of its own: it skips without pdftoppm (see cmake/KlGTestSuites.cmake).
TEST(ReportPdfRaster, RendersWithPdftoppm) {
    std::string pdftoppm = KL_PDFTOPPM;
    if (pdftoppm.empty() || pdftoppm.find("NOTFOUND") != std::string::npos) GTEST_SKIP() << "pdftoppm not installed";
    TempDir dir;
    LoadedResults res = load_synthetic(dir);
    ExportFigure fig = build_export_figure(res, synthetic().ladders, bars_request());
    fs::path pdf = dir.path / "bars.pdf";
    write_figure_with_results(fig.built.figure, pdf.string(), plot::ExportFormat::Pdf, {}, res.bytes);
    std::string cmd =
        "'" + pdftoppm + "' -png -r 72 -singlefile '" + pdf.string() + "' '" + (dir.path / "page").string() + "' 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    std::string page = read_all(dir.path / "page.png");
    ASSERT_GT(page.size(), 1000u);
    // 468 x 288 pt at 72 dpi.
    auto be32 = [&](size_t at) {
        return (uint32_t(uint8_t(page[at])) << 24) | (uint32_t(uint8_t(page[at + 1])) << 16) |
               (uint32_t(uint8_t(page[at + 2])) << 8) | uint8_t(page[at + 3]);
    };
    EXPECT_EQ(be32(16), 468u);
    EXPECT_EQ(be32(20), 288u);
}

// [SECTION] Lesson

TEST(ReportLesson, EveryFigureAndAHandoutWhoseLinksResolve) {
    TempDir dir;
    LoadedResults res = load_synthetic(dir);
    std::vector<LessonLoadError> errors;
    auto lessons = load_all_lessons(lessons_dir(), synthetic().ladders, &errors);
    const Lesson* fusion = nullptr;
    for (const auto& l : lessons)
        if (l.id == "fusion") fusion = &l;
    ASSERT_NE(fusion, nullptr);
    fs::path out = dir.path / "fusion";  // does not exist yet: created
    LessonExportSummary s = export_lesson(*fusion, res, synthetic().ladders, out.string(), {});
    // The synthetic results have no sin^2 + cos^2 or Triton runs: those steps say so.
    for (const auto& skip : s.skipped) EXPECT_NE(skip.find("No run of"), std::string::npos) << skip;
    std::string md = read_all(out / "handout.md");
    int with_plot = 0;
    for (size_t i = 0; i < fusion->steps.size(); ++i) {
        const auto& step = fusion->steps[i];
        if (step.plot.empty()) continue;
        std::string n = std::to_string(i + 1);
        bool drawn = fs::is_regular_file(out / (step_figure_name(i, step.plot) + ".png"));
        bool same = md.find("*Figure " + n + ": the same figure as Figure") != std::string::npos;
        bool missing = md.find("*Figure " + n + ": not recorded for this device.") != std::string::npos;
        EXPECT_EQ(int(drawn) + int(same) + int(missing), 1) << "step " << n;  // never an empty slot
        if (!drawn) continue;
        ++with_plot;
        for (const char* ext : {".svg", ".pdf"})
            EXPECT_TRUE(fs::is_regular_file(out / (step_figure_name(i, step.plot) + ext)))
                << step_figure_name(i, step.plot) << ext;
    }
    EXPECT_EQ(s.figures, with_plot);
    EXPECT_GT(with_plot, 3);
    std::regex link(R"(\]\(([^)\s]+)\))");
    int images = 0, links = 0;
    for (auto it = std::sregex_iterator(md.begin(), md.end(), link); it != std::sregex_iterator(); ++it) {
        std::string target = (*it)[1];
        if (target.find("://") != std::string::npos) continue;
        EXPECT_TRUE(fs::is_regular_file(out / target)) << target;
        ++links;
        images += target.size() > 4 && target.substr(target.size() - 4) == ".png";
    }
    EXPECT_EQ(images, with_plot);
    EXPECT_GT(links, images);
    // The key-number table carries the results' values and verdicts.
    EXPECT_NE(md.find("| 2,500 |"), std::string::npos);
    EXPECT_NE(md.find("| FAIL |"), std::string::npos);
    std::string html = read_all(out / "handout.html");
    EXPECT_NE(html.find("<img src=\"step02_traffic.png\""), std::string::npos);
    EXPECT_NE(html.find("<table>"), std::string::npos);
    // No staging folder left behind.
    for (const auto& e : fs::directory_iterator(out))
        EXPECT_NE(e.path().filename().string().rfind(".kladder-export", 0), 0u);
}

// Predict, then reveal on paper (course/reveal.h): a predict step prints its text up to the
// marker with the predicted figure withheld and the prompt; the rest, its figure and its why
// follow all the steps.
TEST(ReportLesson, HandoutKeepsEachPredictedFigureForAfterTheSteps) {
    TempDir dir;
    LoadedResults res = load_synthetic(dir);
    std::vector<LessonLoadError> errors;
    auto lessons = load_all_lessons(lessons_dir(), synthetic().ladders, &errors);
    const Lesson* fusion = nullptr;
    for (const auto& l : lessons)
        if (l.id == "fusion") fusion = &l;
    ASSERT_NE(fusion, nullptr);
    export_lesson(*fusion, res, synthetic().ladders, (dir.path / "fusion").string(), {});
    std::string md = read_all(dir.path / "fusion" / "handout.md");
    const size_t step = md.find("### 3. One kernel, one read, one write"),
                 after = md.find("## The measurements, after");
    ASSERT_NE(step, std::string::npos);
    ASSERT_NE(after, std::string::npos);
    const std::string before = md.substr(step, md.find("### 4.", step) - step), rest = md.substr(after);
    EXPECT_NE(before.find("**Predict:** Predict the fused kernel"), std::string::npos) << before;
    // A step without a prediction asks its question as a question, not as a second prediction.
    const size_t step1 = md.find("### 1. A kernel boundary is a trip to memory");
    ASSERT_NE(step1, std::string::npos);
    const std::string first = md.substr(step1, md.find("### 2.", step1) - step1);
    EXPECT_EQ(first.find("**Predict:**"), std::string::npos) << first;
    EXPECT_NE(first.find("**Question:** sin(x)^2 + cos(x)^2 runs as five kernels"), std::string::npos) << first;
    EXPECT_EQ(before.find("Measured on this device"), std::string::npos) << before;  // the instructor's, after
    EXPECT_EQ(before.find("The Test GPU 80GB ["), std::string::npos) << before;      // past the marker
    EXPECT_EQ(before.find("step03_bars.png"), std::string::npos);
    const size_t revealed = rest.find("### 3. One kernel, one read, one write");
    ASSERT_NE(revealed, std::string::npos);
    // Past the marker, and naming the device of the exported results that measured it.
    EXPECT_NE(rest.find("The Test GPU 80GB [", revealed), std::string::npos) << rest.substr(revealed, 600);
    EXPECT_NE(rest.find("step03_bars.png", revealed), std::string::npos);
    EXPECT_NE(rest.find("**Why:** One read and one write per element", revealed), std::string::npos);
    EXPECT_NE(rest.find("**Measured on this device:**", revealed), std::string::npos);
    EXPECT_EQ(rest.find(kWithheldShown), std::string::npos);  // after the steps every figure shows
    // Step 4 predicts nothing, but its roofline draws gelu_fused_vec at 2^28, which step 5 asks to
    // predict: its figure follows the predictions too, and says so where it would have stood.
    const size_t step4 = md.find("### 4. Arithmetic intensity");
    ASSERT_NE(step4, std::string::npos);
    const std::string fourth = md.substr(step4, md.find("### 5.", step4) - step4);
    EXPECT_EQ(fourth.find("step04_roofline.png"), std::string::npos) << fourth;
    EXPECT_NE(fourth.find("*Figure 4 follows the predictions"), std::string::npos) << fourth;
    EXPECT_NE(rest.find("step04_roofline.png", rest.find("### 4. Arithmetic intensity")), std::string::npos);
    // With no prediction after it, the same figure stands in its step.
    Lesson no_later = *fusion;
    for (size_t k = 4; k < no_later.steps.size(); ++k) no_later.steps[k].predict_metric.clear();
    export_lesson(no_later, res, synthetic().ladders, (dir.path / "no_later").string(), {});
    const std::string md2 = read_all(dir.path / "no_later" / "handout.md");
    const size_t step4_2 = md2.find("### 4. Arithmetic intensity");
    ASSERT_NE(step4_2, std::string::npos);
    EXPECT_NE(md2.substr(step4_2, md2.find("### 5.", step4_2) - step4_2).find("step04_roofline.png"),
              std::string::npos);
}

// The window exports the runs it holds without writing them to a temporary file: the same
// figures and handout as from that file, and results.json is the file save_results writes.
TEST(ReportLesson, FromMemoryAsFromTheFile) {
    TempDir dir;
    fs::path file = dir.path / "results.json";
    save_results(file.string(), synthetic().file);
    std::vector<LessonLoadError> errors;
    auto lessons = load_all_lessons(lessons_dir(), synthetic().ladders, &errors);
    const Lesson* fusion = nullptr;
    for (const auto& l : lessons)
        if (l.id == "fusion") fusion = &l;
    ASSERT_NE(fusion, nullptr);
    // Named as the file is, so that the handouts' citations agree.
    LoadedResults on_disk = load_results_for_export(file.string());
    LoadedResults in_memory = results_in_memory(synthetic().file, file.string());
    EXPECT_EQ(in_memory.bytes, read_all(file));
    EXPECT_EQ(in_memory.store.runs().size(), synthetic().file.runs.size());
    export_lesson(*fusion, on_disk, synthetic().ladders, (dir.path / "disk").string(), {});
    LessonExportSummary s = export_lesson(*fusion, in_memory, synthetic().ladders, (dir.path / "memory").string(), {});
    ASSERT_FALSE(s.written.empty());
    for (const auto& name : s.written) {
        if (name.size() > 4 && name.substr(name.size() - 4) == ".pdf") continue;  // carries its creation time
        EXPECT_EQ(read_all(dir.path / "memory" / name), read_all(dir.path / "disk" / name)) << name;
    }
}

// [SECTION] Failures

TEST(ReportFailures, MissingFolderFailsCleanlyWithNoLeftovers) {
    TempDir dir;
    LoadedResults res = load_synthetic(dir);
    ExportFigure fig = build_export_figure(res, synthetic().ladders, bars_request());
    fs::path missing = dir.path / "missing" / "fig.png";
    try {
        write_figure_with_results(fig.built.figure, missing.string(), plot::ExportFormat::Png, {}, res.bytes);
        FAIL() << "expected an InputError";
    } catch (const InputError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("does not exist"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos);
    }
    EXPECT_FALSE(fs::exists(dir.path / "missing"));

    std::vector<LessonLoadError> errors;
    auto lessons = load_all_lessons(lessons_dir(), synthetic().ladders, &errors);
    ASSERT_FALSE(lessons.empty());
    EXPECT_THROW(export_lesson(lessons.front(), res, synthetic().ladders, (dir.path / "a" / "b").string(), {}),
                 InputError);
    EXPECT_FALSE(fs::exists(dir.path / "a"));
    // Only what the test itself wrote is there.
    size_t entries = std::distance(fs::directory_iterator(dir.path), fs::directory_iterator());
    EXPECT_EQ(entries, 1u);
}

// A suite of its own: it skips as root (see cmake/KlGTestSuites.cmake).
TEST(ReportFailuresAsNonRoot, UnwritableFolderFailsCleanly) {
    if (geteuid() == 0) GTEST_SKIP() << "running as root: permissions do not stop writes";
    TempDir dir;
    LoadedResults res = load_synthetic(dir);
    ExportFigure fig = build_export_figure(res, synthetic().ladders, bars_request());
    fs::path ro = dir.path / "ro";
    fs::create_directory(ro);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_THROW(
        write_figure_with_results(fig.built.figure, (ro / "f.svg").string(), plot::ExportFormat::Svg, {}, res.bytes),
        InputError);
    EXPECT_TRUE(fs::is_empty(ro));
    fs::permissions(ro, fs::perms::owner_all);
}

TEST(ReportHandout, HeadingsOfStepTextsAreDemotedOutsideCode) {
    EXPECT_EQ(demote_headings("# A\ntext\n```\n# not a heading\n```\n", 2), "### A\ntext\n```\n# not a heading\n```\n");
}

// "% of cuBLAS" is read against the library's own run at the same sizes, from the same results:
// the recorded H100 matmul file has cuBLAS bf16 at 4096^3; the plot's line sits on that run.
TEST(ReportFigures, RateBarsDrawTheLibraryAtTheseSizes) {
    std::vector<std::string> errors;
    std::vector<kl::Ladder> ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
    ASSERT_TRUE(errors.empty());
    const kl::Ladder* matmul = nullptr;
    for (const auto& l : ladders)
        if (l.id == "matmul") matmul = &l;
    ASSERT_NE(matmul, nullptr);
    ASSERT_NE(kl::report::library_reference_rung(*matmul, "fp32"), nullptr);
    EXPECT_EQ(kl::report::library_reference_rung(*matmul, "fp32")->id, "cublas_fp32");  // not TF32
    EXPECT_EQ(kl::report::library_reference_rung(*matmul, "bf16")->id, "cublas_bf16");

    kl::report::ResultsStore store;
    store.load_recorded_file(
        (fs::path(kl::kernels_dir()).parent_path() / "assets" / "recorded" / "h100_matmul.json").string());
    kl::report::PlotContext ctx;
    ctx.ladder = matmul;
    ctx.sizes = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
    ctx.dtype = "bf16";
    const kl::report::StoredRun* ref = kl::report::library_reference_run(store, ctx);
    ASSERT_NE(ref, nullptr);
    EXPECT_EQ(ref->record.rung, "cublas_bf16");
    kl::report::BuiltFigure b = kl::report::rung_bars(store, ctx, kl::Metric::Rate);
    bool line = false;
    for (const auto& s : b.figure.series)
        if (s.name.find("at these sizes") != std::string::npos) {
            line = true;
            EXPECT_DOUBLE_EQ(s.value, ref->record.values.num(tag::tflops));
        }
    EXPECT_TRUE(line);
    // Without the library's run at these sizes, the calibration is the line, and says so.
    ctx.sizes["K"] = 1234;
    EXPECT_EQ(kl::report::library_reference_run(store, ctx), nullptr);
}
