// Handouts of one device (issue 38): results files of one device merged, two devices refused in
// one line (or split, one handout per device), the fusion handout without one-point sweeps,
// empty slots or repeated figures, the two editions; figures dated by the runs they draw; a
// sweep of many rungs with one highlighted. Drawn from the recorded results in assets/recorded.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <fstream>
#include <set>
#include <sstream>

#include "base/errors.h"
#include "base/paths.h"
#include "course/lesson.h"
#include "model/manifest_load.h"
#include "report/figure_request.h"
#include "report/handout_pdf.h"
#include "report/handout_results.h"
#include "report/lesson_export.h"

namespace fs = std::filesystem;
using namespace kl;
using namespace kl::report;

namespace {

LoadedResults recorded(const std::string& name) {
    return load_results_for_export(std::string(KL_TEST_SOURCE_DIR) + "/assets/recorded/" + name);
}

const std::vector<Ladder>& ladders() {
    static std::vector<Ladder> all = [] {
        std::vector<std::string> errors;
        return load_all_ladders(kernels_dir(), &errors);
    }();
    return all;
}

const Lesson& lesson_named(const std::string& id) {
    static std::vector<Lesson> lessons = [] {
        std::vector<LessonLoadError> errors;
        return load_all_lessons(lessons_dir(), ladders(), &errors);
    }();
    for (const auto& l : lessons)
        if (l.id == id) return l;
    throw std::runtime_error("no lesson " + id);
}

const Lesson& fusion() { return lesson_named("fusion"); }

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct TempDir {
    fs::path path;
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "kl-handout-test-XXXXXX").string();
        std::vector<char> name(pattern.begin(), pattern.end());
        name.push_back('\0');
        path = mkdtemp(name.data());
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

}  // namespace

TEST(HandoutResults, TwoFilesOfOneDeviceMergeAndFiguresNameTheirDates) {
    LoadedResults a = recorded("h100_elementwise.json"), b = recorded("h100_gelu_sweep_n.json");
    size_t runs = a.file.runs.size() + b.file.runs.size();
    ASSERT_NE(a.file.device->uuid, b.file.device->uuid);  // two machines, one device model
    LoadedResults m = merge_results({b, a});
    EXPECT_EQ(m.file.runs.size(), runs);
    EXPECT_EQ(m.store.runs().size(), runs);
    EXPECT_EQ(m.store.sources().size(), 2u);
    EXPECT_EQ(m.file.created, b.file.created);  // the newer file's
    EXPECT_EQ(results_device(m.file), "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(measured_dates(m.store), "2026-11-22 to 2026-11-24");
    // The merged file reads back as one results file of that device.
    EXPECT_NE(m.bytes.find("NVIDIA H100 80GB HBM3"), std::string::npos);
    // Each figure names the dates of the runs it draws: the sweep only 2026-11-24's.
    FigureRequest sweep = request_for_step(fusion().steps[5]);
    ExportFigure f = build_export_figure(m, ladders(), sweep);
    EXPECT_NE(f.built.figure.caption.find("NVIDIA H100 80GB HBM3"), std::string::npos) << f.built.figure.caption;
    EXPECT_NE(f.built.figure.caption.find("measured 2026-11-24"), std::string::npos) << f.built.figure.caption;
    EXPECT_EQ(f.built.figure.caption.find("2026-11-22"), std::string::npos) << f.built.figure.caption;
}

TEST(HandoutResults, TwoDevicesAreRefusedInOneLine) {
    try {
        merge_results({recorded("h100_elementwise.json"), recorded("h200_elementwise.json")});
        FAIL() << "two devices were merged";
    } catch (const InputError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("NVIDIA H100 80GB HBM3"), std::string::npos) << m;
        EXPECT_NE(m.find("NVIDIA H200"), std::string::npos) << m;
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
    // --per-device instead: tests/hostile/handout_devices.sh.
}

// The README's example: the fusion handout of one device, from the files that hold its runs
// (the sin^2 + cos^2 rungs, but neither the Triton rung nor an n sweep: steps 6 and 9 say so).
TEST(HandoutLesson, FusionHasNoOnePointSweepNoEmptySlotNoRepeatedFigure) {
    TempDir dir;
    std::vector<LoadedResults> files = {recorded("h100_elementwise.json"), recorded("h100_elementwise_sincos.json")};
    LessonExportOptions o;
    auto s = export_lesson_handouts(fusion(), files, ladders(), (dir.path / "i").string(), o).front();
    std::string md = read_all(dir.path / "i" / "handout.md");
    EXPECT_NE(md.find("*Figure 6: not recorded for this device."), std::string::npos);
    EXPECT_NE(md.find("one point measured"), std::string::npos);
    EXPECT_FALSE(fs::exists(dir.path / "i" / "step06_sweep.png"));
    // Every figure file differs from every other (a repeated figure points to the first).
    std::set<std::string> svgs;
    int figures = 0;
    for (const auto& e : fs::directory_iterator(dir.path / "i")) {
        if (e.path().extension() != ".svg") continue;
        ++figures;
        EXPECT_TRUE(svgs.insert(read_all(e.path())).second) << e.path();
    }
    EXPECT_EQ(figures, s.figures);
    EXPECT_NE(md.find("the same figure as Figure 3"), std::string::npos);
    // No empty slot: the bars name the rungs measured here and no other.
    std::string bars = read_all(dir.path / "i" / "step03_bars.svg");
    EXPECT_NE(bars.find(">05 sin^2 +<"), std::string::npos);  // its number, then wrapped under its bar
    EXPECT_EQ(bars.find("in Triton"), std::string::npos);
    // The instructor edition: the device, key numbers, what it measured, the answers; no file
    // paths among the sources of the numbers.
    for (const char* part : {"## The device", "## Key numbers", "**Measured on this device:**", "## Answers"})
        EXPECT_NE(md.find(part), std::string::npos) << part;
    EXPECT_EQ(md.find(".json:"), std::string::npos);
    EXPECT_EQ(md.find("peer {"), std::string::npos);
    // The student edition: blanks where the answers were.
    o.edition = HandoutEdition::Student;
    export_lesson_handouts(fusion(), files, ladders(), (dir.path / "s").string(), o);
    std::string student = read_all(dir.path / "s" / "handout.md");
    for (const char* part : {"## Answers", "## Key numbers", "**Measured on this device:**", "## The device"})
        EXPECT_EQ(student.find(part), std::string::npos) << part;
    EXPECT_NE(student.find("Your prediction: \\_\\_\\_"), std::string::npos);
    EXPECT_NE(student.find("Student edition"), std::string::npos);
}

// Many lines of a size sweep: the step's rung leads and the others are faint.
TEST(HandoutFigures, ASweepOfManyRungsHighlightsTheStepsRung) {
    LoadedResults r = recorded("h100_gelu_sweep_n.json");
    FigureRequest req = request_for_step(fusion().steps[5]);  // gelu_unfused over n
    ExportFigure f = build_export_figure(r, ladders(), req);
    ASSERT_EQ(f.built.figure.series.front().name, "GeLU, unfused chain");
    for (const auto& s : f.built.figure.series) EXPECT_FALSE(s.faint) << s.name;  // two lines: no need
    // Four more rungs along n: the step's rung stays bold, the others faint.
    LoadedResults more = recorded("h100_gelu_sweep_n.json");
    for (const auto& run : r.file.runs) {
        for (const char* id : {"vector_add", "gelu_fused_vec", "sincos_fused"}) {
            const Rung* rung = f.context.ladder->find_rung(id);
            ASSERT_NE(rung, nullptr) << id;
            RunRecord copy = run;  // the same numbers, as if the rung had run them: only lines count here
            copy.rung = id;
            copy.params.clear();
            for (const auto& p : rung->params) copy.params[p.name] = p.default_value;
            more.file.runs.push_back(copy);
        }
    }
    more.store = ResultsStore();
    more.store.add_file(more.file, more.path);
    BuiltFigure many = build_figure(more.store, f.context, req);
    size_t lines = 0, faint = 0;
    for (const auto& s : many.figure.series)
        if (s.kind == plot::SeriesKind::Line) ++lines, faint += s.faint;
    ASSERT_GT(lines, 3u);
    EXPECT_EQ(faint, lines - 1);
    EXPECT_FALSE(many.figure.series.front().faint);
    EXPECT_EQ(many.figure.series.front().name, "GeLU, unfused chain");
}

// handout.pdf: the handout laid out on pages, each figure drawn where its image stands, a caption
// set apart, every page's footer naming the device, Markdown escapes and entities read as text.
TEST(HandoutPages, FiguresStandWhereTheirImagesAreAndEveryPageNamesTheDevice) {
    LoadedResults r = recorded("h100_elementwise.json");
    ExportFigure bars = build_export_figure(r, ladders(), request_for_step(fusion().steps[2]));
    std::string md = "# Lesson 4: Operator fusion\n\nBefore \\(escaped\\) &lt;tag&gt; and `code`.\n\n";
    for (int i = 0; i < 40; ++i)
        md += "A paragraph of **bold** and plain words, long enough to wrap a line or two. \n\n";
    md +=
        "![Achieved bandwidth](step03_bars.png)\n\n*Figure 3: the caption.*\n\n- one\n- two\n\n| a | b |\n|---|---|\n| "
        "1 | 2 |\n";
    HandoutPages p = handout_pdf(md, {{"step03_bars.png", bars.built.figure}}, "Lesson 4", "Lesson 4 · NVIDIA H100");
    ASSERT_EQ(p.pdf.rfind("%PDF-", 0), 0u);
    EXPECT_GE(p.pages, 2);
    EXPECT_EQ(std::count(p.transcript.begin(), p.transcript.end(), '\f'), p.pages - 1);
    // Each page ends with its footer.
    std::istringstream pages(p.transcript);
    std::string page;
    int n = 0;
    while (std::getline(pages, page, '\f'))
        EXPECT_NE(page.find("Lesson 4 · NVIDIA H100 · page " + std::to_string(++n)), std::string::npos) << page;
    EXPECT_EQ(n, p.pages);
    EXPECT_NE(p.transcript.find("Before (escaped) <tag> and code."), std::string::npos) << p.transcript;
    size_t figure = p.transcript.find("[figure: " + bars.built.figure.title + "]");
    ASSERT_NE(figure, std::string::npos) << p.transcript;
    EXPECT_LT(figure, p.transcript.find("Figure 3: the caption."));
    EXPECT_EQ(p.transcript.find("Achieved bandwidth\n"), std::string::npos);  // the alt text is not printed
    EXPECT_NE(p.transcript.find("\xE2\x80\xA2 one"), std::string::npos);
    EXPECT_NE(p.transcript.find("1 | 2"), std::string::npos);
    // An image without its figure is named, not dropped.
    EXPECT_NE(handout_pdf("![x](gone.png)\n", {}, "t", "f").transcript.find("(figure gone.png)"), std::string::npos);
}

// The exported folder holds handout.pdf; the student edition lists only the sources its pages
// cite (the answers and whys it leaves out cite others, among them another device's runs).
TEST(HandoutPages, TheStudentEditionCitesEverySourceItLists) {
    TempDir dir;
    std::vector<LoadedResults> files = {recorded("h100_elementwise.json"), recorded("h100_elementwise_sincos.json"),
                                        recorded("h100_triton_elementwise.json")};
    LessonExportOptions o;
    o.edition = HandoutEdition::Student;
    export_lesson_handouts(fusion(), files, ladders(), (dir.path / "s").string(), o);
    EXPECT_EQ(read_all(dir.path / "s" / "handout.pdf").rfind("%PDF-", 0), 0u);
    std::string md = read_all(dir.path / "s" / "handout.md");
    size_t list = md.find("## Where the numbers in the text come from");
    ASSERT_NE(list, std::string::npos);
    const std::string text = md.substr(0, list), sources = md.substr(list);
    EXPECT_EQ(sources.find("NVIDIA H200"), std::string::npos) << sources;
    for (int k = 1; sources.find("\n" + std::to_string(k) + ". ") != std::string::npos; ++k)
        EXPECT_NE(text.find("[" + std::to_string(k) + "]"), std::string::npos) << "source " << k << " is not cited";
}

// A heading stays on the page of the figure under it, wherever the page would end.
TEST(HandoutPages, AHeadingNeverEndsAPageAboveItsFigure) {
    LoadedResults r = recorded("h100_elementwise.json");
    ExportFigure bars = build_export_figure(r, ladders(), request_for_step(fusion().steps[2]));
    const std::string tag = "[figure: " + bars.built.figure.title + "]";
    for (int paragraphs = 0; paragraphs < 24; ++paragraphs) {
        std::string md;
        for (int i = 0; i < paragraphs; ++i)
            md += "Words enough to fill two lines of a printed page, more or less, and then some more words.\n\n";
        md += "### 4. Arithmetic intensity\n\n![bars](b.png)\n\n*Figure 4.*\n";
        std::string t = handout_pdf(md, {{"b.png", bars.built.figure}}, "t", "f").transcript;
        size_t heading = t.find("4. Arithmetic intensity"), figure = t.find(tag);
        ASSERT_NE(figure, std::string::npos);
        EXPECT_EQ(t.find('\f', heading), t.find('\f', figure)) << paragraphs << " paragraphs:\n" << t;
    }
}

// Lesson 1 on paper: step 8's figure is step 3's, which is printed after the predictions (say
// so); a recorded launch resource cites its run, and a number computed from typed numbers only
// (lesson 10's `{{ = 4096 * 4096 * 4 / 1000000 }}`) cites no source.
TEST(HandoutLesson, FirstKernelPointsForwardAndCitesOnlySources) {
    TempDir dir;
    std::vector<LoadedResults> files = {recorded("h100_elementwise.json"), recorded("h100_vector_add_sweep_tpb.json")};
    LessonExportOptions o;
    o.edition = HandoutEdition::Student;
    export_lesson_handouts(lesson_named("first_kernel"), files, ladders(), (dir.path / "s").string(), o);
    std::string md = read_all(dir.path / "s" / "handout.md");
    EXPECT_NE(md.find("*Figure 8: the same figure as Figure 3 (step 3, with the measurements after the predictions).*"),
              std::string::npos);
    EXPECT_NE(md.find("32,768 ["), std::string::npos);  // double_buffer's registers per block, recorded
    EXPECT_EQ(md.find(". : computed"), std::string::npos);
    EXPECT_EQ(md.find("\n: "), std::string::npos);
    // Lesson 10 step 1: P's size, `{{ = 4096 * 4096 * 4 / 1000000 | unit=MB .0 }}`.
    export_lesson_handouts(lesson_named("backward"), {recorded("h200_layernorm_backward.json")}, ladders(),
                           (dir.path / "b").string(), o);
    EXPECT_NE(read_all(dir.path / "b" / "handout.md").find("per head, 67 MB in fp32"), std::string::npos);
}

// One device per paragraph: the H200's files lack runs the prose quotes (the sin^2 + cos^2 pair
// at the text's settings, the Triton peer), which the H100's recordings fill in; a paragraph
// then tells all its measurements from that one device, never "Measured on the NVIDIA H200:
// 2.81 ms unfused, 0.710 ms fused" with the second the H100's.
TEST(HandoutLesson, NoParagraphMixesTwoDevicesMeasurements) {
    TempDir dir;
    LessonExportOptions o;
    export_lesson_handouts(fusion(), {recorded("h200_elementwise.json"), recorded("h200_elementwise_tuned.json")},
                           ladders(), (dir.path / "i").string(), o);
    const std::string md = read_all(dir.path / "i" / "handout.md");
    const size_t list = md.find("## Where the numbers in the text come from");
    ASSERT_NE(list, std::string::npos);
    std::map<int, std::string> device_of;  // source k -> the device that measured it
    std::istringstream sources(md.substr(list));
    for (std::string line; std::getline(sources, line);) {
        std::smatch m;
        if (std::regex_match(line, m, std::regex(R"((\d+)\. (.*?), measured .*)"))) device_of[std::stoi(m[1])] = m[2];
    }
    ASSERT_GT(device_of.size(), 10u);
    const std::string text = md.substr(0, list);
    const std::regex paragraph_break(R"(\n\n|\n(?=- ))"), reference(R"(\[(\d+)\])");
    int mixed_before = 0;
    for (std::sregex_token_iterator p(text.begin(), text.end(), paragraph_break, -1), end; p != end; ++p) {
        const std::string para = *p;
        std::set<std::string> devices;
        for (std::sregex_iterator r(para.begin(), para.end(), reference), rend; r != rend; ++r)
            if (device_of.count(std::stoi((*r)[1]))) devices.insert(device_of[std::stoi((*r)[1])]);
        EXPECT_LE(devices.size(), 1u) << para;
        mixed_before += para.find("Measured on the NVIDIA H100 80GB HBM3") != std::string::npos;
    }
    EXPECT_EQ(mixed_before, 1);  // step 8's measurements, told from the H100's recordings whole
}

// A table column is at least as wide as its widest word: the key table's "TFLOP/s" header beside
// long rung names prints whole, not cut to "TFLO…" (the key numbers of lesson 6's handout).
TEST(HandoutPages, ATableColumnHoldsItsWidestWord) {
    std::string md = "| rung | median time (ms) | TFLOP/s | % of cuBLAS | check |\n|---|---:|---:|---:|---|\n";
    for (int i = 0; i < 3; ++i)
        md +=
            "| Tensor cores: TMA and warp specialization, a long rung name (bf16) (wgmma_tma_bf16) | 0.183 | 751 | "
            "100 % | not measured |\n";
    const std::string t = handout_pdf(md, {}, "t", "f").transcript;
    EXPECT_NE(t.find("| TFLOP/s |"), std::string::npos) << t;
    EXPECT_EQ(t.find("\xE2\x80\xA6"), std::string::npos) << t;  // no word cut with an ellipsis
}
