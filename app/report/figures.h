// Results -> plot figures (kl::plot::Figure): the workbook's plots as data, built the same way
// for the screen (plot_imgui.h) and for exported files (kl_plot_cairo). No ImGui here.
//
// - One colour per rung across all plots: a rung's palette index is its position in the ladder.
// - Every axis carries its unit; ceilings come from the calibration (measured copy bandwidth,
//   cuBLAS rates), labelled as such; nothing is drawn that was not measured or declared.
// - Each builder also returns which run sits behind each bar or point, for tooltips.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "course/figure_vocabulary.h"
#include "model/manifest.h"
#include "model/results.h"
#include "plot/plot_model.h"
#include "report/results_store.h"

namespace kl::report {

// What each builder shows is a kl::Metric of the figure vocabulary (course/figure_vocabulary.h):
// bars time, rate or pct; sweeps time, rate or memory; traffic bytes (ideal, model, measured
// DRAM and L2), sectors per request (the coalescing lesson) or bank conflicts (the transpose
// lesson). A metric that does not fit the builder is read as its default (figure_vocabulary.h).

// What the plots are about: the current ladder, problem and rung.
struct PlotContext {
    const Ladder* ladder = nullptr;
    Sizes sizes;  // complete: ladder defaults with the step's and the user's changes
    std::string dtype = "fp32";
    const Rung* rung = nullptr;  // the step's rung (highlighted)
    ParamValues params;          // its resolved parameters
    std::optional<Calibration> calibration;
    std::string device;  // for captions: "NVIDIA H100 80GB HBM3"
    // Size axes that follow a size sweep's axis (M = N = K = n): a lesson step's sweep tie.
    std::vector<std::string> tie;
    // A second device whose runs rung_bars() draws beside the first's (bars grouped by
    // device), or "" for one device.
    std::string compare_device;
};

// A built figure and the runs behind it.
struct BuiltFigure {
    plot::Figure figure;
    // Bars: the run of each category (nullptr when that rung has no result). Lines: the run of
    // each point of each series (same indices as figure.series[s].points).
    std::vector<const StoredRun*> bar_runs;
    std::vector<int> bar_colors;                 // palette index per category
    std::vector<const StoredRun*> compare_runs;  // bars of PlotContext::compare_device, per category
    std::vector<std::vector<const StoredRun*>> point_runs;
    std::string empty_reason;  // set when there is nothing to draw
    // Bars: the rungs the device shown did not run (the store answers for one device: their bars
    // stay empty rather than show another's). The window says so; a handout drops their slots.
    std::string not_recorded;
    std::string unit;    // the y unit, for tooltips
    double y_scale = 1;  // tooltip value = record value x y_scale
};

// The ladder's library reference for a dtype (cuBLAS bf16 for bf16 matmul rungs): the first
// reference rung that takes the dtype at its own precision (no `compute` override, so not
// cuBLAS TF32 for fp32); nullptr when the ladder has none.
const Rung* library_reference_rung(const Ladder& ladder, const std::string& dtype);
// Its measured run at the context's sizes and dtype, or nullptr. Rates "of cuBLAS" are read
// against this run when it exists: same sizes, same results file, rather than the calibration
// (one size, measured at another moment; cuBLAS bf16 itself varies by several % between calls).
const StoredRun* library_reference_run(const ResultsStore& store, const PlotContext& ctx);

// What a reference rung is called where a rate is read as a share of it: the library its first
// launch calls ("cuBLAS" for cublas_*, "cuBLASLt" for cublaslt_*, "cuDNN" for torch.sdpa_cudnn),
// else its label ("torch.mm", "SDPA flash"). Not every ladder's library is cuBLAS: attention's
// is cuDNN through PyTorch's SDPA.
std::string library_name(const Rung& reference);
// The name of what library_share reads a rate against: `library`'s rung in `ladder`
// (library_name), or "cuBLAS" without a run (the calibration is cuBLAS at 4096^3).
std::string library_name_of(const StoredRun* library, const Ladder& ladder);

// A rung's FLOP rate beside the library's: one rule for the strip card, the run tooltip and the
// handout's key table. Against `library` (library_reference_run: same sizes, same results) when
// given, else against the calibrated cuBLAS rate of the dtype (the run's pct_gemm). A rung that
// computes below its dtype's precision on purpose (`compute`: cuBLAS TF32 beside cuBLAS fp32) does
// other work than the bar, so its ratio is no share of it: "748% cuBLAS" would read as a bug.
struct LibraryShare {
    double ratio = 0;             // the rung's rate over the library's
    bool calibrated = false;      // against the calibration, not a run at these sizes
    std::string other_precision;  // the rung's `compute` ("tf32"); "" at the library's precision
    std::string library;          // what it is a share of (library_name_of): "cuBLAS", "cuDNN"
};
// nullopt when neither rate is known (no FLOPs, no library run and no pct_gemm). `ladder`: the
// ladder of `library`'s rung, which names the library.
std::optional<LibraryShare> library_share(const RunRecord& rec, const std::string& compute, const StoredRun* library,
                                          const Ladder& ladder);
// "87.3% cuBLAS" at the library's precision, "7.48x cuBLAS fp32" at another (digits: significant
// digits; dtype: the run's, which the library reference computes in); "96.1% cuDNN" for attention.
std::string library_share_text(const LibraryShare& share, const std::string& dtype, int digits);

// True when the ladder's work is compute-bound (rates in TFLOP/s rather than GB/s), judged from
// the arithmetic intensity of its results (more than 8 FLOP per ideal byte).
bool prefers_flops(const PlotContext& ctx, const ResultsStore& store);

// One bar per rung at the current sizes and dtype (each rung at the parameters closest to the
// current ones), the selected metric, the matching ceiling as a reference line.
BuiltFigure rung_bars(const ResultsStore& store, const PlotContext& ctx, Metric metric);

// The step's rung (and any other rung with data at the same settings) along `axis`: a size axis
// (log x) or a parameter (one category per value). PeakMemory: the runs' peak_memory_bytes in
// GiB on a log axis; runs refused as too large for the GPU are marked at their sweep position
// ("refused: needs 64.00 GiB").
BuiltFigure sweep_lines(const ResultsStore& store, const PlotContext& ctx, const std::string& axis, Metric metric);

// Correctness: the error map of `run` when its output is 2-D, else relative L2 error per rung on
// a log axis with the tolerance marked.
BuiltFigure correctness(const ResultsStore& store, const PlotContext& ctx, const StoredRun* run);

// Bytes moved per rung: ideal, the rung's model, and hardware counters where measured
// (counters.dram_bytes, and lts__t_bytes.sum for L2).
BuiltFigure traffic_bars(const ResultsStore& store, const PlotContext& ctx);
// The same per rung for any traffic metric (bytes, sectors, conflicts, threads). The counter metrics need
// a counters pass: without one, empty_reason is the runs' counters_note.
BuiltFigure traffic_bars(const ResultsStore& store, const PlotContext& ctx, Metric metric);

// Every rung measured at the current sizes on this device's roofline (copy roof and GEMM rate).
BuiltFigure roofline(const ResultsStore& store, const PlotContext& ctx);

// "NVIDIA H100 80GB HBM3 · n = 268,435,456 · fp32 · L2 flushed"
std::string problem_caption(const PlotContext& ctx);
std::string format_sizes(const Sizes& sizes);
// 268435456 -> "2^28 (268,435,456)" for powers of two, else "1,000,000".
std::string format_size_value(int64_t v);

}  // namespace kl::report
