#include <gtest/gtest.h>
#include <cairo.h>

#include <cstdlib>
#include <filesystem>

#include "plot/cairo_export.h"
#include "plot/cairo_render.h"
#include "plot/figure_scene.h"
#include "plot/sample_figures.h"
#include "plot_test_util.h"

#ifndef KL_PDFTOPPM
#define KL_PDFTOPPM ""
#endif

namespace kl::plot {
namespace {

using testing::TempDir;

struct Png {
    int width = 0, height = 0;
    int non_white = 0;  // pixels that are not (close to) white
    bool white_corner = false;
};

Png read_png(const std::string& path) {
    Png png;
    cairo_surface_t* s = cairo_image_surface_create_from_png(path.c_str());
    if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS) {
        cairo_surface_flush(s);
        png.width = cairo_image_surface_get_width(s);
        png.height = cairo_image_surface_get_height(s);
        const unsigned char* data = cairo_image_surface_get_data(s);
        int stride = cairo_image_surface_get_stride(s);
        cairo_format_t format = cairo_image_surface_get_format(s);
        int bytes_per_pixel = format == CAIRO_FORMAT_RGB24 || format == CAIRO_FORMAT_ARGB32 ? 4 : 0;
        for (int y = 0; bytes_per_pixel && y < png.height; ++y)
            for (int x = 0; x < png.width; ++x) {
                const unsigned char* p = data + y * stride + x * 4;
                bool white = p[0] > 240 && p[1] > 240 && p[2] > 240;
                if (x == 0 && y == 0) png.white_corner = white;
                png.non_white += white ? 0 : 1;
            }
    }
    cairo_surface_destroy(s);
    return png;
}

std::vector<std::string> tick_label_texts(const AxisLayout& a) {
    std::vector<std::string> out;
    for (const PlacedTick& t : a.ticks)
        for (const TextCmd& line : t.label) out.push_back(line.text);
    return out;
}

TEST(CairoMeasure, RealFontMetrics) {
    MeasureText m = cairo_measure("DejaVu Sans");
    TextMetrics one = m("1", 10, false), many = m("10,000", 10, false), bold = m("10,000", 10, true);
    EXPECT_GT(one.width, 0);
    EXPECT_GT(many.width, 4 * one.width);
    EXPECT_GE(bold.width, many.width);
    EXPECT_GT(one.ascent, 5);
    EXPECT_GT(one.descent, 0);
    EXPECT_NEAR(m("10,000", 20, false).width, 2 * many.width, 0.01 * many.width);  // no hinting: widths scale
}

TEST(CairoLayout, SamplesKeepTheirPromisesWithTheRealFont) {
    MeasureText m = cairo_measure("DejaVu Sans");
    for (const Figure& f :
         {sample_rung_bars(), sample_size_sweep(), sample_roofline(), sample_error_heatmap(), sample_traffic_bars()})
        for (double w : {468.0, 300.0, 200.0}) {
            Layout L = compute_layout(f, w, w * 0.62, m, print_theme());
            auto texts = testing::frame_texts(L);
            for (size_t i = 0; i < texts.size(); ++i) {
                EXPECT_GE(texts[i].text.box.left(), -0.5) << texts[i].text.text;
                EXPECT_LE(texts[i].text.box.right(), w + 0.5) << texts[i].text.text;
                for (size_t j = i + 1; j < texts.size(); ++j)
                    EXPECT_FALSE(testing::shrunk(texts[i].text.box).overlaps(testing::shrunk(texts[j].text.box)))
                        << f.id() << " at width " << w << ": '" << texts[i].text.text << "' and '" << texts[j].text.text
                        << "'";
            }
        }
}

TEST(SvgExport, ContainsTitlesAxisLabelsAndTickLabels) {
    TempDir dir;
    Figure f = sample_rung_bars();
    WriteResult r = export_figure(f, dir.file("bars.svg"));
    ASSERT_TRUE(r.ok()) << r.error;
    std::string svg = testing::read_file(dir.file("bars.svg"));
    EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
    EXPECT_NE(svg.find("</svg>"), std::string::npos);
    for (const char* text :
         {"GeLU ladder: achieved bandwidth per rung", ">Bandwidth (GB/s)<", ">Rung<", ">01 unfused chain<",
          ">copy roof 3,007 GB/s<", ">2,610<", "Illustrative values, not a measurement"})
        EXPECT_NE(svg.find(text), std::string::npos) << text;
    // Every tick label the layout chose is in the file.
    ExportOptions options;
    Layout L =
        compute_layout(f, options.width_pt, options.height_pt, cairo_measure(options.theme.font_family), options.theme);
    auto y_labels = tick_label_texts(L.y);
    ASSERT_GE(y_labels.size(), 4u);
    for (const std::string& label : y_labels) EXPECT_NE(svg.find(">" + label + "<"), std::string::npos) << label;
}

TEST(SvgExport, LogAxisSuperscripts) {
    auto bytes = render_to_bytes(sample_error_heatmap(), ExportFormat::Svg, {});
    ASSERT_TRUE(bytes);
    EXPECT_NE(bytes->find(">10⁻³<"), std::string::npos);
    EXPECT_NE(bytes->find(">max |error|<"), std::string::npos);
    EXPECT_NE(bytes->find(">NaN<"), std::string::npos);
}

TEST(PngExport, HasTheAskedPixelSize) {
    TempDir dir;
    EXPECT_GE(ExportOptions{}.png_scale, 2.0);
    ExportOptions options;
    options.width_pt = 300;
    options.height_pt = 200;
    for (double scale : {2.0, 3.0, 1.0}) {
        options.png_scale = scale;
        std::string path = dir.file("sweep_" + std::to_string(int(scale)) + ".png");
        WriteResult r = export_figure(sample_size_sweep(), path, options);
        ASSERT_TRUE(r.ok()) << r.error;
        Png png = read_png(path);
        EXPECT_EQ(png.width, int(300 * scale));
        EXPECT_EQ(png.height, int(200 * scale));
        EXPECT_TRUE(png.white_corner);
        EXPECT_GT(png.non_white, png.width * png.height / 50) << "the plot is drawn, not a blank page";
    }
}

TEST(PngExport, RejectsImpossibleSizes) {
    ExportOptions options;
    options.png_scale = 0;
    std::string error;
    EXPECT_FALSE(render_to_bytes(sample_roofline(), ExportFormat::Png, options, &error));
    EXPECT_NE(error.find("scale"), std::string::npos);
    options.png_scale = 1000;
    EXPECT_FALSE(render_to_bytes(sample_roofline(), ExportFormat::Png, options, &error));
    EXPECT_NE(error.find("pixels"), std::string::npos);
    options = {};
    options.width_pt = 0;
    TempDir dir;
    WriteResult r = export_figure(sample_roofline(), dir.file("x.pdf"), options);
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("x.pdf"), std::string::npos);
    EXPECT_TRUE(dir.entries().empty());
}

TEST(PdfExport, RendersWithPdftoppm) {
    TempDir dir;
    std::string pdf = dir.file("roofline.pdf");
    WriteResult r = export_figure(sample_roofline(), pdf);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(testing::read_file(pdf).rfind("%PDF-", 0), 0u);

    std::string tool = KL_PDFTOPPM;
    if (tool.empty() || tool.find("NOTFOUND") != std::string::npos || !std::filesystem::exists(tool))
        GTEST_SKIP() << "pdftoppm not found (install poppler-utils): PDF written but not rasterised";
    std::string prefix = dir.file("page");
    std::string command = "'" + tool + "' -png -r 72 -singlefile '" + pdf + "' '" + prefix + "' 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    Png png = read_png(prefix + ".png");
    EXPECT_EQ(png.width, 468);  // 468 pt at 72 dpi
    EXPECT_EQ(png.height, 288);
    EXPECT_GT(png.non_white, png.width * png.height / 50);
}

TEST(Export, MissingFolderFailsCleanlyInEveryFormat) {
    TempDir dir;
    for (const char* ext : {"svg", "pdf", "png", "csv"}) {
        std::string path = (dir.path() / "no_such_folder" / (std::string("fig.") + ext)).string();
        WriteResult r = export_figure(sample_rung_bars(), path);
        EXPECT_FALSE(r.ok()) << ext;
        EXPECT_NE(r.error.find(path), std::string::npos) << r.error;
        EXPECT_NE(r.error.find("does not exist"), std::string::npos) << r.error;
    }
    EXPECT_TRUE(dir.entries().empty());
}

TEST(Export, UnknownExtensionIsNamed) {
    TempDir dir;
    WriteResult r = export_figure(sample_rung_bars(), dir.file("fig.jpeg"));
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("fig.jpeg"), std::string::npos);
    EXPECT_NE(r.error.find("unknown file type"), std::string::npos);
    EXPECT_TRUE(dir.entries().empty());
    EXPECT_EQ(format_from_path("a/b.PNG"), ExportFormat::Png);
    EXPECT_FALSE(format_from_path("folder.svg/file"));
}

TEST(Export, FiguresWithoutDataStillExport) {
    TempDir dir;
    Figure nothing;
    nothing.title = "No runs yet";
    Figure nan_only;
    nan_only.series.push_back({"nan", SeriesKind::Line, {{kNoValue, kNoValue}}});
    nan_only.y.scale = Scale::Log10;
    for (const Figure& f : {nothing, nan_only})
        for (const char* ext : {"svg", "pdf", "png", "csv"}) {
            WriteResult r = export_figure(f, dir.file(f.id() + "." + ext));
            EXPECT_TRUE(r.ok()) << r.error;
        }
}

TEST(DrawScene, LeavesTheCairoStateBalanced) {
    cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 100, 100);
    cairo_t* cr = cairo_create(surface);
    Scene scene = render_figure(sample_roofline(), 100, 100, cairo_measure("DejaVu Sans"), print_theme());
    scene.commands.push_back(PushClipCmd{{0, 0, 10, 10}});  // left open on purpose
    cairo_set_line_width(cr, 7.0);
    draw_scene(cr, scene);
    EXPECT_EQ(cairo_get_line_width(cr), 7.0);
    double x1, y1, x2, y2;
    cairo_clip_extents(cr, &x1, &y1, &x2, &y2);
    EXPECT_EQ(x2 - x1, 100);  // the open clip was closed
    EXPECT_EQ(cairo_status(cr), CAIRO_STATUS_SUCCESS);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
}

}  // namespace
}  // namespace kl::plot
