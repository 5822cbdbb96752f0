#include "plot/svg_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <variant>

namespace kl::plot {

namespace {

std::string num(double v) {
    if (!std::isfinite(v)) v = 0.0;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    std::string s = buf;
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    if (s == "-0") s = "0";
    return s;
}

std::string hex(Color c) {
    auto byte = [](float f) { return static_cast<int>(std::lround(std::clamp(f, 0.0f, 1.0f) * 255.0f)); };
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", byte(c.r), byte(c.g), byte(c.b));
    return buf;
}

std::string paint(const char* attribute, Color c) {
    std::string out = std::string(" ") + attribute + "=\"" + hex(c) + "\"";
    if (c.a < 1.0f) out += std::string(" ") + attribute + "-opacity=\"" + num(c.a) + "\"";
    return out;
}

// Path data through the points ("M x,y L x,y ..."): <path> rather than <polyline>/<polygon>,
// which some renderers (ImageMagick's built-in one) skip.
std::string path_data(const std::vector<Vec2>& pts, bool closed) {
    std::string out;
    for (const Vec2& p : pts) out += (out.empty() ? "M" : " L") + num(p.x) + "," + num(p.y);
    return closed ? out + " Z" : out;
}

struct SvgBuilder {
    std::string out;
    std::string defs;  // clip paths, emitted in <defs> ahead of the drawing
    int clip_count = 0;
    int open_groups = 0;

    void operator()(const LineCmd& l) {
        if (l.points.size() < 2) return;
        out += "<path d=\"" + path_data(l.points, false) + "\" fill=\"none\"" + paint("stroke", l.color) +
               " stroke-width=\"" + num(l.width) + "\" stroke-linejoin=\"round\"";
        if (!l.dash.empty()) {
            std::string d;
            for (double v : l.dash) d += (d.empty() ? "" : ",") + num(v);
            out += " stroke-dasharray=\"" + d + "\"";
        }
        out += "/>\n";
    }
    void operator()(const RectCmd& r) {
        bool fill = r.fill.a > 0.0f, stroke = r.stroke_width > 0.0;
        if (!fill && !stroke) return;
        out += "<rect x=\"" + num(r.rect.x) + "\" y=\"" + num(r.rect.y) + "\" width=\"" + num(r.rect.w) +
               "\" height=\"" + num(r.rect.h) + "\"" + (fill ? paint("fill", r.fill) : std::string(" fill=\"none\""));
        if (stroke) out += paint("stroke", r.stroke) + " stroke-width=\"" + num(r.stroke_width) + "\"";
        out += "/>\n";
    }
    void operator()(const MarkerCmd& m) {
        if (m.shape == MarkerShape::Circle) {
            out += "<circle cx=\"" + num(m.center.x) + "\" cy=\"" + num(m.center.y) + "\" r=\"" + num(0.5 * m.size) +
                   "\"" + paint("fill", m.fill) + paint("stroke", m.stroke) + " stroke-width=\"" + num(m.stroke_width) +
                   "\"/>\n";
            return;
        }
        MarkerGeometry g = marker_geometry(m.shape, m.center, m.size);
        if (g.filled) {
            out += "<path d=\"" + path_data(g.points, true) + "\"" + paint("fill", m.fill) + paint("stroke", m.stroke) +
                   " stroke-width=\"" + num(m.stroke_width) + "\" stroke-linejoin=\"round\"/>\n";
        } else {
            std::string d = "M" + num(g.points[0].x) + "," + num(g.points[0].y) + "L" + num(g.points[1].x) + "," +
                            num(g.points[1].y) + "M" + num(g.points[2].x) + "," + num(g.points[2].y) + "L" +
                            num(g.points[3].x) + "," + num(g.points[3].y);
            out += "<path d=\"" + d + "\" fill=\"none\"" + paint("stroke", m.fill) + " stroke-width=\"" +
                   num(m.stroke_width) + "\"/>\n";
        }
    }
    void operator()(const TextCmd& t) {
        out += "<text x=\"" + num(t.origin.x) + "\" y=\"" + num(t.origin.y) + "\" font-size=\"" + num(t.size) + "\"" +
               (t.bold ? " font-weight=\"bold\"" : "") + paint("fill", t.color);
        if (t.vertical) out += " transform=\"rotate(-90 " + num(t.origin.x) + " " + num(t.origin.y) + ")\"";
        out += ">" + xml_escape(t.text) + "</text>\n";
    }
    void operator()(const PushClipCmd& c) {
        std::string id = "clip" + std::to_string(clip_count++);
        defs += "<clipPath id=\"" + id + "\"><rect x=\"" + num(c.rect.x) + "\" y=\"" + num(c.rect.y) + "\" width=\"" +
                num(c.rect.w) + "\" height=\"" + num(c.rect.h) + "\"/></clipPath>\n";
        out += "<g clip-path=\"url(#" + id + ")\">\n";
        ++open_groups;
    }
    void operator()(const PopClipCmd&) {
        if (open_groups == 0) return;  // unbalanced pop: ignore rather than break the document
        out += "</g>\n";
        --open_groups;
    }
};

}  // namespace

std::string xml_escape(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default:
                // Control characters other than tab and newline are not allowed in XML 1.0.
                if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n')
                    out += ' ';
                else
                    out += c;
        }
    }
    return out;
}

std::string scene_to_svg(const Scene& scene) {
    SvgBuilder b;
    for (const DrawCmd& cmd : scene.commands) std::visit(b, cmd);
    while (b.open_groups > 0) b(PopClipCmd{});
    std::string family = scene.font_family.empty() ? "sans-serif" : scene.font_family;
    std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(scene.width) + "pt\" height=\"" +
           num(scene.height) + "pt\" viewBox=\"0 0 " + num(scene.width) + " " + num(scene.height) + "\">\n";
    if (!b.defs.empty()) svg += "<defs>\n" + b.defs + "</defs>\n";
    svg += "<g font-family=\"" + xml_escape(family) + ", Verdana, sans-serif\">\n";
    svg += "<rect width=\"100%\" height=\"100%\"" + paint("fill", scene.background) + "/>\n";
    svg += b.out;
    svg += "</g>\n</svg>\n";
    return svg;
}

}  // namespace kl::plot
