#include "plot/sample_figures.h"

#include <cmath>

namespace kl::plot {

namespace {
const char* const kNotMeasured = "Illustrative values, not a measurement";
}

Figure sample_rung_bars() {
    Figure f;
    f.name = "gelu_rungs";
    f.title = "GeLU ladder: achieved bandwidth per rung";
    f.caption = caption_of({kNotMeasured, "NVIDIA H100 80GB HBM3", "n = 2^28 fp32"});
    f.x.label = "Rung";
    f.x.categories = {"01 unfused chain", "02 fused scalar", "03 fused float4", "04 grid-stride float4"};
    f.y.label = "Bandwidth";
    f.y.unit = "GB/s";
    Series bars;
    bars.name = "GB/s";
    bars.kind = SeriesKind::Bars;
    bars.value_labels = true;
    bars.in_legend = false;
    const double gbs[] = {274, 2610, 2870, 2855};
    for (int i = 0; i < 4; ++i) bars.points.push_back({double(i), gbs[i], gbs[i] * 0.985, gbs[i] * 1.01});
    f.series.push_back(bars);
    f.series.push_back(make_hline("copy roof 3,007 GB/s", 3007));
    return f;
}

Figure sample_size_sweep() {
    Figure f;
    f.name = "sgemm_sweep";
    f.title = "SGEMM: throughput against matrix size";
    f.caption = caption_of({kNotMeasured, "NVIDIA H100 80GB HBM3", "fp32, M = N = K"});
    f.x.label = "N";
    f.x.scale = Scale::Log10;
    for (int k = 7; k <= 13; ++k) f.x.ticks.push_back({std::pow(2.0, k), "", true});  // sizes are powers of two
    f.y.label = "Throughput";
    f.y.unit = "TFLOP/s";
    f.y.scale = Scale::Log10;
    struct Rung {
        const char* name;
        double plateau;
    };
    const Rung rungs[] = {
        {"01 naive", 0.9}, {"03 shared-memory tiles", 7.5}, {"05 2-D register tiles", 31}, {"cuBLAS", 50.7}};
    for (const Rung& r : rungs) {
        Series s;
        s.name = r.name;
        for (int k = 7; k <= 13; ++k) {
            double n = std::pow(2.0, k);
            // Small sizes cannot fill 132 SMs: throughput grows with the work until it plateaus.
            double fill = 1.0 - std::exp(-std::pow(n / 1024.0, 2.0) * 1.5);
            s.points.push_back({n, r.plateau * std::max(fill, 0.002)});
        }
        f.series.push_back(s);
    }
    f.series[0].points.back().y = kNoValue;  // the naive rung was not run at the largest size
    return f;
}

Figure sample_roofline() {
    Figure f;
    f.name = "roofline";
    f.title = "Rungs on the H100 roofline";
    f.caption =
        caption_of({kNotMeasured, "roofs: 3,007 GB/s copy bandwidth, 67 TFLOP/s fp32 FMA, 728 TFLOP/s bf16 cuBLAS"});
    f.x.label = "Arithmetic intensity";
    f.x.unit = "FLOP/byte";
    f.x.scale = Scale::Log10;
    f.y.label = "Throughput";
    f.y.unit = "TFLOP/s";
    f.y.scale = Scale::Log10;
    const double bandwidth = 3.007;  // TB/s = TFLOP/s per FLOP/byte
    f.series.push_back(make_roofline("bf16 tensor roof", 728, bandwidth, 0.05, 5000));
    f.series.push_back(make_roofline("fp32 FMA roof", 67, bandwidth, 0.05, 5000));
    f.series[1].dash = 1;
    Series rungs;
    rungs.name = "rungs";
    rungs.kind = SeriesKind::Scatter;
    struct Rung {
        const char* label;
        double intensity, tflops;
    };
    const Rung points[] = {{"GeLU fused", 1.25, 3.5},
                           {"softmax online", 0.63, 1.6},
                           {"SGEMM naive", 683, 0.9},
                           {"SGEMM 2-D tiles", 683, 31},
                           {"wgmma bf16", 1365, 590}};
    for (const Rung& p : points) {
        rungs.points.push_back({p.intensity, p.tflops});
        f.annotations.push_back({p.intensity, p.tflops, p.label});
    }
    f.series.push_back(rungs);
    return f;
}

Figure sample_error_heatmap() {
    Figure f;
    f.name = "error_map";
    f.title = "Where the rung is wrong: max |error| per tile";
    f.caption = caption_of({kNotMeasured, "4096 x 4096 output, 128 x 128 elements per cell"});
    f.x.label = "Column";
    f.y.label = "Row";
    Heatmap h;
    h.rows = h.cols = 32;
    h.x_extent = {0, 4096};
    h.y_extent = {0, 4096};
    h.value_label = "max |error|";
    h.value_scale = Scale::Log10;
    for (int r = 0; r < h.rows; ++r) {
        for (int c = 0; c < h.cols; ++c) {
            // Rounding noise everywhere, large errors in the last tile row and column (an edge bug).
            double noise = 1e-7 * (1.0 + 0.8 * std::sin(r * 1.7 + c * 0.9));
            bool edge = r == h.rows - 1 || c == h.cols - 1;
            h.values.push_back(edge ? 3e-3 * (1.0 + 0.5 * std::cos(r + c)) : noise);
        }
    }
    h.values[31 * 32 + 31] = kNoValue;  // the corner tile was never written: NaN survives the poison
    h.values[31 * 32 + 30] = kNoValue;
    f.heatmap = h;
    return f;
}

Figure sample_traffic_bars() {
    Figure f;
    f.name = "transpose_traffic";
    f.title = "Transpose ladder: DRAM traffic per rung";
    f.caption = caption_of({kNotMeasured, "8192 x 8192 fp32"});
    f.x.label = "Rung";
    f.x.categories = {"01 naive", "02 shared tile", "03 padded tile", "04 vectorized"};
    f.y.label = "DRAM traffic";
    f.y.unit = "MB";
    const char* names[] = {"ideal", "model", "measured"};
    const double traffic[3][4] = {{537, 537, 537, 537}, {2147, 537, 537, 537}, {2010, 561, 546, 541}};
    for (int s = 0; s < 3; ++s) {
        Series bars;
        bars.name = names[s];
        bars.kind = SeriesKind::Bars;
        for (int i = 0; i < 4; ++i) bars.points.push_back({double(i), traffic[s][i]});
        f.series.push_back(bars);
    }
    return f;
}

}  // namespace kl::plot
