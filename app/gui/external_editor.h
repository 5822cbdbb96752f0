// "Open in my editor": the learner's own editor, as their shell would pick it. $VISUAL, else
// $EDITOR, else xdg-open; the variable is split on blanks into words (`code --wait`), never given
// to a shell, and the file is the last argument.
#pragma once
#include <string>
#include <vector>

namespace kl::gui {

// `visual` and `editor` are the variables' values (nullptr or blank when unset).
std::vector<std::string> external_editor_argv(const std::string& file, const char* visual, const char* editor);

}  // namespace kl::gui
