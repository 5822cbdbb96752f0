// The plot model, ticks and layout are shared by the screen (ImGui) and file (cairo) renderers:
// they must not include either. Only the cairo files may include cairo.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#ifndef KL_PLOT_SOURCE_DIR
#define KL_PLOT_SOURCE_DIR ""
#endif

namespace {

TEST(PlotModule, ModelAndLayoutIncludeNoDrawingLibrary) {
    namespace fs = std::filesystem;
    fs::path dir = KL_PLOT_SOURCE_DIR;
    ASSERT_TRUE(fs::is_directory(dir)) << dir;
    int checked = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        std::string name = entry.path().filename().string();
        std::string ext = entry.path().extension().string();
        if (ext != ".h" && ext != ".cpp") continue;
        bool cairo_allowed = name.rfind("cairo_", 0) == 0 || name == "plot_demo.cpp";
        std::ifstream in(entry.path());
        std::string line;
        while (std::getline(in, line)) {
            if (line.find("#include") == std::string::npos) continue;
            EXPECT_EQ(line.find("imgui"), std::string::npos) << name << ": " << line;
            EXPECT_EQ(line.find("GL/"), std::string::npos) << name << ": " << line;
            EXPECT_EQ(line.find("GLFW"), std::string::npos) << name << ": " << line;
            if (!cairo_allowed) { EXPECT_EQ(line.find("cairo"), std::string::npos) << name << ": " << line; }
        }
        ++checked;
    }
    EXPECT_GE(checked, 10);
}

}  // namespace
