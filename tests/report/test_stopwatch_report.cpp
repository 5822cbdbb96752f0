// [stopwatch] The handout's key-number table and every figure's caption name the stopwatch that
// timed their runs (model/stopwatch_label.h), and say so in one line when the runs mix the events and
// the GPU span, whose figures are not comparable. The recorded H100 matmul file, timed by events,
// with one run marked as a span figure in memory (a fixture, not a measurement).
#include <gtest/gtest.h>

#include <filesystem>

#include "base/paths.h"
#include "model/manifest_load.h"
#include "model/results_json.h"
#include "report/figure_request.h"
#include "report/key_numbers.h"

namespace fs = std::filesystem;

namespace {

struct Matmul {
    std::vector<kl::Ladder> ladders;
    kl::report::LoadedResults results;
    kl::report::PlotContext ctx;
    // The recording, with `span_rung`'s runs marked as timed by the GPU span when it is not "".
    explicit Matmul(const std::string& span_rung) {
        std::vector<std::string> errors;
        ladders = kl::load_all_ladders(kl::kernels_dir(), &errors);
        kl::report::LoadedResults file = kl::report::load_results_for_export(
            (fs::path(kl::kernels_dir()).parent_path() / "assets/recorded/h100_matmul.json").string());
        kl::ResultsFile f = file.file;
        for (auto& r : f.runs)
            if (r.rung == span_rung && r.timing) {
                r.stopwatch = "span";
                r.event_median_ms = r.timing->median_ms * 1.03;
            }
        results = kl::report::results_in_memory(std::move(f), "matmul (fixture)");
        for (const auto& l : ladders)
            if (l.id == "matmul") ctx.ladder = &l;
        ctx.sizes = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
        ctx.dtype = "fp32";
    }
};

}  // namespace

TEST(StopwatchReport, TheKeyTableAndTheCaptionNameTheEventsOfARecording) {
    Matmul m("");
    ASSERT_NE(m.ctx.ladder, nullptr);
    const std::string md = kl::report::key_table_markdown(kl::report::key_numbers(m.results, m.ctx));
    EXPECT_NE(md.find("\nTimes: CUDA events.\n"), std::string::npos) << md;
    kl::report::FigureRequest bars;
    bars.plot = kl::PlotKind::Bars;
    const kl::report::BuiltFigure f = kl::report::build_figure(m.results.store, m.ctx, bars);
    EXPECT_NE(f.figure.caption.find("CUDA events"), std::string::npos) << f.figure.caption;
}

TEST(StopwatchReport, AMixOfStopwatchesIsSaidInTheTableAndTheCaption) {
    Matmul m("smem_tiles");
    ASSERT_NE(m.ctx.ladder, nullptr);
    const kl::report::KeyTable t = kl::report::key_numbers(m.results, m.ctx);
    EXPECT_TRUE(t.stopwatch_mixed);
    const std::string md = kl::report::key_table_markdown(t);
    EXPECT_NE(md.find("**Times:** mixed stopwatches: "), std::string::npos) << md;  // Markdown-escaped text:
    EXPECT_NE(md.find(" 1 by GPU span \\(CUPTI\\); figures of the two are not comparable.\n"), std::string::npos) << md;
    kl::report::FigureRequest bars;
    bars.plot = kl::PlotKind::Bars;
    const kl::report::BuiltFigure f = kl::report::build_figure(m.results.store, m.ctx, bars);
    EXPECT_NE(f.figure.caption.find("mixed stopwatches"), std::string::npos) << f.figure.caption;
}
