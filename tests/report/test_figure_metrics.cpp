// The figure fixes and the counter and memory metrics against the recorded H100 results
// (assets/recorded): every number in the CSV is the results file's number, read here on its own
// with nlohmann::json; the SVG carries the labels a reader needs ("exact", "refused: needs ...").
// [SECTION] index: fixture / correctness / copy roof / traffic metrics / memory sweep / colours
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "../plot/csv_test_reader.h"
#include "base/errors.h"
#include "base/paths.h"
#include "model/manifest_load.h"
#include "plot/csv_export.h"
#include "plot/figure_scene.h"
#include "plot/layout.h"
#include "plot/svg_writer.h"
#include "plot/theme.h"
#include "report/figure_request.h"

using namespace kl;
using namespace kl::report;

namespace {

// [SECTION] Fixture

std::string recorded(const std::string& name) { return std::string(KL_TEST_SOURCE_DIR) + "/assets/recorded/" + name; }

const std::vector<Ladder>& ladders() {
    static std::vector<Ladder> all = [] {
        std::vector<std::string> errors;
        return load_all_ladders(kernels_dir(), &errors);
    }();
    return all;
}

nlohmann::json raw(const std::string& name) {
    std::ifstream in(recorded(name));
    return nlohmann::json::parse(in);
}

// CSV rows as maps from column name to field.
std::vector<std::map<std::string, std::string>> csv_rows(const plot::Figure& f) {
    std::vector<std::vector<std::string>> table = plot::testing::parse_csv(plot::figure_to_csv(f));
    std::vector<std::map<std::string, std::string>> rows;
    for (size_t r = 1; r < table.size(); ++r) {
        std::map<std::string, std::string> row;
        for (size_t i = 0; i < table[0].size() && i < table[r].size(); ++i) row[table[0][i]] = table[r][i];
        rows.push_back(row);
    }
    return rows;
}

std::string svg_of(const plot::Figure& f) {
    return plot::scene_to_svg(plot::render_figure(f, 468, 320, plot::approximate_measure(), plot::print_theme()));
}

// A rung's category in the figures: its number and title, as the strip shows them.
std::string title_of(const Ladder& L, const std::string& rung_id) {
    const Rung* r = L.find_rung(rung_id);
    return r->number + " " + r->title;
}

double value_in(const std::vector<std::map<std::string, std::string>>& rows, const std::string& series,
                const std::string& category) {
    for (const auto& r : rows)
        if (r.at("series") == series && r.at("category") == category)
            return r.at("y").empty() ? NAN : std::stod(r.at("y"));
    ADD_FAILURE() << "no row for " << series << " / " << category;
    return NAN;
}

}  // namespace

// [SECTION] Correctness

TEST(FigureFixes, ExactResultIsZeroInTheCsvAndMarkedExactInTheSvg) {
    LoadedResults res = load_results_for_export(recorded("h100_elementwise.json"));
    // One rung matched the reference exactly (vector_add adds two floats: it can).
    for (auto& run : res.file.runs)
        if (run.rung == "vector_add") run.correctness->rel_l2 = 0.0;
    res.store = ResultsStore();
    res.store.add_file(res.file, res.path);
    FigureRequest r;
    r.plot = PlotKind::Errors;
    r.rung = "gelu_fused";
    ExportFigure fig = build_export_figure(res, ladders(), r);
    auto rows = csv_rows(fig.built.figure);
    const Ladder& L = *fig.context.ladder;
    EXPECT_EQ(value_in(rows, "relative L2 error", title_of(L, "vector_add")), 0.0);
    double gelu = 0;
    for (const auto& run : res.file.runs)
        if (run.rung == "gelu_fused") gelu = run.correctness->rel_l2;
    EXPECT_EQ(value_in(rows, "relative L2 error", title_of(L, "gelu_fused")), gelu);
    std::string svg = svg_of(fig.built.figure);
    EXPECT_NE(svg.find(">exact<"), std::string::npos);
    for (const char* made_up : {"1e-12", "10⁻¹²"}) EXPECT_EQ(svg.find(made_up), std::string::npos) << made_up;
    EXPECT_EQ(rows.size(), L.rungs.size() + 1);  // the bars and the tolerance: no invented row
}

// [SECTION] Copy roof

TEST(FigureFixes, TimeAtCopyRoofIsPerRungWhenIdealBytesDiffer) {
    LoadedResults res = load_results_for_export(recorded("h100_elementwise.json"));
    FigureRequest r;
    r.plot = PlotKind::Bars;
    r.metric = Metric::Time;
    ExportFigure fig = build_export_figure(res, ladders(), r);
    const auto& series = fig.built.figure.series;
    const plot::Series* marks = nullptr;
    for (const auto& s : series) {
        EXPECT_NE(s.kind, plot::SeriesKind::HLine) << "one roof for rungs that move different bytes: " << s.name;
        if (s.kind == plot::SeriesKind::BarMarks) marks = &s;
    }
    ASSERT_NE(marks, nullptr);
    nlohmann::json j = raw("h100_elementwise.json");
    double copy_gbps = j["calibration"]["copy_gbps"].get<double>();
    double scale = fig.built.y_scale;  // ms -> the axis unit
    const Ladder& L = *fig.context.ladder;
    int checked = 0;
    for (const auto& run : j["runs"]) {
        const Rung* rung = L.find_rung(run["rung"].get<std::string>());
        ASSERT_NE(rung, nullptr);
        double expect = run["work"]["ideal_bytes"].get<double>() / (copy_gbps * 1e9) * 1e3 * scale;
        EXPECT_NEAR(marks->points[rung->index].y, expect, expect * 1e-12) << rung->id;
        ++checked;
    }
    EXPECT_EQ(checked, 4);
    EXPECT_NE(marks->points[L.find_rung("vector_add")->index].y, marks->points[L.find_rung("gelu_fused")->index].y);

    // Transpose rungs all move 2 x rows x cols x 4 bytes: one line.
    LoadedResults tr = load_results_for_export(recorded("h100_transpose.json"));
    ExportFigure t = build_export_figure(tr, ladders(), r);
    int hlines = 0;
    for (const auto& s : t.built.figure.series) {
        hlines += s.kind == plot::SeriesKind::HLine && s.name == "time at the copy roof";
        EXPECT_NE(s.kind, plot::SeriesKind::BarMarks);
    }
    EXPECT_EQ(hlines, 1);
}

// [SECTION] Traffic metrics

TEST(TrafficMetrics, BytesShowDramAndL2Counters) {
    LoadedResults res = load_results_for_export(recorded("h100_transpose.json"));
    FigureRequest r;
    r.plot = PlotKind::Traffic;
    ExportFigure fig = build_export_figure(res, ladders(), r);  // default: bytes
    auto rows = csv_rows(fig.built.figure);
    const Ladder& L = *fig.context.ladder;
    int checked = 0;
    const nlohmann::json file_1 = raw("h100_transpose.json");
    for (const auto& run : file_1["runs"]) {
        std::string title = title_of(L, run["rung"].get<std::string>());
        EXPECT_EQ(value_in(rows, "measured DRAM bytes (CUPTI counters)", title),
                  run["counters"]["dram_bytes"].get<double>() / 1e6);
        EXPECT_EQ(value_in(rows, "measured L2 bytes (lts__t_bytes.sum)", title),
                  run["counters"]["lts__t_bytes.sum"].get<double>() / 1e6);
        EXPECT_EQ(value_in(rows, "ideal (each input read once, output written once)", title),
                  run["work"]["ideal_bytes"].get<double>() / 1e6);
        ++checked;
    }
    EXPECT_EQ(checked, 6);
    EXPECT_EQ(fig.built.figure.legend.placement, plot::LegendPlacement::Below);
}

TEST(TrafficMetrics, SectorsPerRequestAreTheCounters) {
    LoadedResults res = load_results_for_export(recorded("h100_transpose.json"));
    FigureRequest r;
    r.plot = PlotKind::Traffic;
    r.metric = Metric::Sectors;
    ExportFigure fig = build_export_figure(res, ladders(), r);
    auto rows = csv_rows(fig.built.figure);
    const Ladder& L = *fig.context.ladder;
    const nlohmann::json file_2 = raw("h100_transpose.json");
    for (const auto& run : file_2["runs"]) {
        std::string title = title_of(L, run["rung"].get<std::string>());
        EXPECT_EQ(value_in(rows, "loads (sectors_per_request_ld)", title),
                  run["counters"]["sectors_per_request_ld"].get<double>());
        EXPECT_EQ(value_in(rows, "stores (sectors_per_request_st)", title),
                  run["counters"]["sectors_per_request_st"].get<double>());
    }
    std::string svg = svg_of(fig.built.figure);
    for (const char* label : {">4<", ">16<", ">32<"}) EXPECT_NE(svg.find(label), std::string::npos) << label;
}

TEST(TrafficMetrics, BankConflictsOneBarPerRungInItsColour) {
    LoadedResults res = load_results_for_export(recorded("h100_transpose.json"));
    FigureRequest r;
    r.plot = PlotKind::Traffic;
    r.metric = Metric::Conflicts;
    ExportFigure fig = build_export_figure(res, ladders(), r);
    const auto& f = fig.built.figure;
    ASSERT_EQ(f.series.size(), 1u);
    const Ladder& L = *fig.context.ladder;
    std::vector<int> colours;
    for (const auto& rung : L.rungs) colours.push_back(rung.index);
    EXPECT_EQ(f.series[0].point_colors, colours);
    auto rows = csv_rows(f);
    std::string svg = svg_of(f);
    const nlohmann::json file_3 = raw("h100_transpose.json");
    for (const auto& run : file_3["runs"]) {
        double conflicts = run["counters"]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"].get<double>() / 1e6;
        EXPECT_EQ(value_in(rows, f.series[0].name, title_of(L, run["rung"].get<std::string>())), conflicts);
        std::string label = ">" + plot::format_value(conflicts, 3, true) + "<";
        EXPECT_NE(svg.find(label), std::string::npos) << label;
    }
}

TEST(TrafficMetrics, WithoutCountersTheNoteSaysWhy) {
    LoadedResults res = load_results_for_export(recorded("h100_attention_sweep.json"));
    FigureRequest r;
    r.plot = PlotKind::Traffic;
    r.metric = Metric::Sectors;
    r.rung = "flash_fp32";
    r.dtype = "fp32";
    try {
        build_export_figure(res, ladders(), r);
        FAIL() << "expected an InputError";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("hardware counters not collected (run with --counters)"),
                  std::string::npos)
            << e.what();
    }
    FigureRequest bars = r;
    bars.plot = PlotKind::Bars;  // a traffic metric on another plot
    EXPECT_THROW(build_export_figure(res, ladders(), bars), InputError);
}

// [SECTION] Memory sweep

TEST(MemorySweep, PeakMemoryInGibAndRefusedRunsMarked) {
    LoadedResults res = load_results_for_export(recorded("h100_attention_sweep.json"));
    FigureRequest r;
    r.plot = PlotKind::Sweep;
    r.axis = "N";
    r.metric = Metric::Memory;
    r.rung = "naive";
    r.dtype = "bf16";
    ExportFigure fig = build_export_figure(res, ladders(), r);
    const auto& f = fig.built.figure;
    EXPECT_EQ(f.y.scale, plot::Scale::Log10);
    EXPECT_EQ(f.y.unit, "GiB");
    auto rows = csv_rows(f);
    const std::string naive = fig.context.ladder->find_rung("naive")->title;
    int points = 0;
    const nlohmann::json file_4 = raw("h100_attention_sweep.json");
    for (const auto& run : file_4["runs"]) {
        if (run["dtype"] != "bf16" || !run["error"].is_null() || run["rung"] != "naive") continue;
        std::string n = std::to_string(run["sizes"]["N"].get<int64_t>());
        bool found = false;
        for (const auto& row : rows)
            if (row.at("series") == naive && row.at("x") == n &&
                std::stod(row.at("y")) == run["peak_memory_bytes"].get<double>() / (1024.0 * 1024.0 * 1024.0))
                found = true;
        EXPECT_TRUE(found) << "N = " << n;
        ++points;
    }
    EXPECT_EQ(points, 5);
    ASSERT_FALSE(f.annotations.empty());
    EXPECT_EQ(f.annotations[0].x, 32768.0);
    EXPECT_EQ(f.annotations[0].y, 64.0);
    EXPECT_EQ(f.annotations[0].color, fig.context.ladder->find_rung("naive")->index);
    std::string svg = svg_of(f);
    EXPECT_NE(svg.find("refused: needs 64.00 GiB"), std::string::npos);
}
