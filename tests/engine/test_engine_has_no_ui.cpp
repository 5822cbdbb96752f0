// The engine must stay free of windowing and UI code (Tracy's server/ split): CLI tools and
// tests use it headless. This fails if an ImGui, GLFW, GL or cairo include creeps in.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "base/paths.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_engine_has_no_ui {

TEST(Architecture, EngineHasNoUiIncludes) {
    const std::regex forbidden(R"(#\s*include\s*[<"](imgui|GLFW|GL/|backends/|cairo|md4c))");
    int files = 0;
    for (const char* layer : {"base", "model", "course", "gpu"})
        for (const auto& e : std::filesystem::recursive_directory_iterator(kl::data_root() + "/app/" + layer)) {
            auto ext = e.path().extension();
            if (ext != ".h" && ext != ".cpp") continue;
            ++files;
            std::ifstream in(e.path());
            std::string line;
            int n = 0;
            while (std::getline(in, line)) {
                ++n;
                EXPECT_FALSE(std::regex_search(line, forbidden)) << e.path() << ":" << n << ": " << line;
            }
        }
    EXPECT_GT(files, 100);
}

}  // namespace kl_test_engine_has_no_ui
