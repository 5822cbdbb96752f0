#include "gui/external_editor.h"

#include <sstream>

namespace kl::gui {

std::vector<std::string> external_editor_argv(const std::string& file, const char* visual, const char* editor) {
    std::vector<std::string> argv;
    for (const char* var : {visual, editor}) {
        if (!var) continue;
        std::istringstream words(var);
        for (std::string w; words >> w;) argv.push_back(w);
        if (!argv.empty()) break;
    }
    if (argv.empty()) argv.push_back("xdg-open");
    argv.push_back(file);
    return argv;
}

}  // namespace kl::gui
