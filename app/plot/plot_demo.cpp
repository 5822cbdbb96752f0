// plot_demo: writes the sample figures (sample_figures.h) as PNG, SVG, PDF and CSV.
//   plot_demo OUT_DIR [WIDTH_PT HEIGHT_PT [PNG_SCALE]]
// For looking at the export renderer's output; the values are illustrative, not measured.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "plot/cairo_export.h"
#include "plot/sample_figures.h"

int main(int argc, char** argv) {
    using namespace kl::plot;
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUT_DIR [WIDTH_PT HEIGHT_PT [PNG_SCALE]]\n", argv[0]);
        return 2;
    }
    std::string out = argv[1];
    ExportOptions options;
    if (argc >= 4) {
        options.width_pt = std::atof(argv[2]);
        options.height_pt = std::atof(argv[3]);
    }
    if (argc >= 5) options.png_scale = std::atof(argv[4]);

    const std::vector<Figure> figures = {sample_rung_bars(), sample_size_sweep(), sample_roofline(),
                                         sample_error_heatmap(), sample_traffic_bars()};
    int failures = 0;
    for (const Figure& figure : figures) {
        for (const char* ext : {"png", "svg", "pdf", "csv"}) {
            WriteResult r = export_figure(figure, out + "/" + figure.id() + "." + ext, options);
            if (r) {
                std::printf("wrote %s\n", r.path.c_str());
            } else {
                std::fprintf(stderr, "%s\n", r.error.c_str());
                ++failures;
            }
        }
    }
    return failures == 0 ? 0 : 1;
}
