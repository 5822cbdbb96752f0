// What every figure builder shares: formatting of sizes and captions, which run stands for a
// rung, the library reference, compute- or memory-bound. The builders themselves:
// figures_bars.cpp (rung bars, correctness), figures_sweep.cpp, figures_traffic.cpp (traffic,
// roofline).
// [SECTION] index: formatting / choosing runs
#include <cmath>

#include "plot/ticks.h"
#include "report/figures.h"
#include "report/figures_common.h"

namespace kl::report {

// [SECTION] Formatting

namespace {
bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
}  // namespace

std::string format_size_value(int64_t v) {
    std::string plain = plot::format_fixed(double(v), 0, true);
    if (is_pow2(v) && v >= 1024) return "2^" + std::to_string(int(std::log2(double(v)))) + " (" + plain + ")";
    return plain;
}

std::string format_sizes(const Sizes& sizes) {
    std::string s;
    for (const auto& [k, v] : sizes) s += (s.empty() ? "" : ", ") + k + " = " + plot::format_fixed(double(v), 0, true);
    return s;
}

std::string problem_caption(const PlotContext& ctx) {
    return plot::caption_of({ctx.device, format_sizes(ctx.sizes), ctx.dtype});
}

// [SECTION] Choosing runs

namespace detail {

const StoredRun* run_for(const ResultsStore& store, const PlotContext& ctx, const Rung& r) {
    ParamValues preferred;
    if (ctx.rung && ctx.rung->id == r.id) {
        preferred = ctx.params;
    } else {
        for (const auto& p : r.params) preferred[p.name] = p.default_value;
    }
    return store.latest(ctx.ladder->id, r.id, ctx.sizes, ctx.dtype, &preferred);
}

double counter(const RunRecord& rec, const char* key) {
    const auto& k = rec.counters;
    if (!k.is_object()) return plot::kNoValue;
    auto it = k.find(key);
    if (it == k.end() || !it->is_number()) return plot::kNoValue;
    return it->get<double>();
}

std::optional<plot::Series> calibration_rate_roof(const PlotContext& ctx, bool flops) {
    const auto& cal = ctx.calibration;
    if (!cal || !cal->valid()) return std::nullopt;
    if (!flops) return plot::make_hline("copy roof (measured)", cal->copy_gbps);
    double roof = ctx.dtype == "fp32" ? cal->sgemm_tflops : cal->bf16_tflops;
    if (!(roof > 0)) return std::nullopt;
    return plot::make_hline(std::string("cuBLAS ") + ctx.dtype + " (calibration, 4096^3)", roof);
}

}  // namespace detail

const Rung* library_reference_rung(const Ladder& ladder, const std::string& dtype) {
    for (const auto& r : ladder.rungs) {
        if (!r.reference || !r.compute.empty()) continue;
        for (DType d : r.dtypes)
            if (to_string(d) == dtype) return &r;
    }
    return nullptr;
}

const StoredRun* library_reference_run(const ResultsStore& store, const PlotContext& ctx) {
    const Rung* r = ctx.ladder ? library_reference_rung(*ctx.ladder, ctx.dtype) : nullptr;
    const StoredRun* s = r ? store.latest(ctx.ladder->id, r->id, ctx.sizes, ctx.dtype, nullptr) : nullptr;
    return detail::measured(s) ? s : nullptr;
}

std::string library_name(const Rung& reference) {
    const std::string builtin = reference.launches.empty() ? "" : reference.launches.front().builtin;
    auto starts = [&](const char* prefix) { return builtin.rfind(prefix, 0) == 0; };
    if (starts("cublaslt")) return "cuBLASLt";
    if (starts("cublas")) return "cuBLAS";
    // A PyTorch peer that runs cuDNN (SDPA's cuDNN backend, forward or backward): by its builtin's
    // backend, not by its name (the peers' names are the embedded table's alone).
    if (starts("torch.") && builtin.find("cudnn") != std::string::npos) return "cuDNN";
    return reference.label();
}

std::string library_name_of(const StoredRun* library, const Ladder& ladder) {
    if (!library) return "cuBLAS";
    const Rung* r = ladder.find_rung(library->record.rung);
    return r ? library_name(*r) : library->record.title;
}

std::optional<LibraryShare> library_share(const RunRecord& rec, const std::string& compute, const StoredRun* library,
                                          const Ladder& ladder) {
    LibraryShare share;
    share.other_precision = compute;
    share.library = library_name_of(library, ladder);
    const double rate = rec.values.num(tag::tflops);
    if (library && library->record.values.num(tag::tflops) > 0 && rec.values.num(tag::flops) > 0) {
        share.ratio = rate / library->record.values.num(tag::tflops);
    } else if (!library && rec.values.get(tag::pct_gemm)) {
        share.ratio = *rec.values.get(tag::pct_gemm) / 100.0;
        share.calibrated = true;
    } else {
        return std::nullopt;
    }
    return share;
}

std::string library_share_text(const LibraryShare& share, const std::string& dtype, int digits) {
    if (!share.other_precision.empty())
        return plot::format_value(share.ratio, digits) + "x " + share.library + " " + dtype;
    return plot::format_value(100.0 * share.ratio, digits) + "% " + share.library;
}

bool prefers_flops(const PlotContext& ctx, const ResultsStore& store) {
    if (!ctx.ladder) return false;
    for (const auto& s : store.runs()) {
        const RunRecord& r = s.record;
        if (r.ladder == ctx.ladder->id && r.values.num(tag::ideal_bytes) > 0 && r.values.num(tag::flops) > 0)
            return r.values.num(tag::flops) / r.values.num(tag::ideal_bytes) > 8.0;
    }
    return ctx.ladder->operation == "matmul" || ctx.ladder->operation == "attention";
}

}  // namespace kl::report
