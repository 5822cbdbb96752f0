// Fuzz target: the #include scanner (app/model/include_scan.*), a small C++ lexer that decides
// which files a kernel source makes NVRTC read. Any text (a shared tree's .cu and .cuh files,
// mutated) must give a list of names or a clean kl::InputError, with every line number inside
// the text.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "base/errors.h"
#include "fuzz_driver.h"
#include "model/include_scan.h"

int main(int argc, char** argv) {
    kl::fuzz::Target t;
    t.name = "include_scan";
    t.extensions = {".cu", ".cuh"};
    t.dictionary = {"#include \"",
                    "#include <",
                    "%:include",
                    "#include_next",
                    "\\\n",
                    "\\\r\n",
                    "\r",
                    "/*",
                    "*/",
                    "//",
                    "R\"x(",
                    ")x\"",
                    "u8R\"(",
                    "'",
                    "\"",
                    "1'000",
                    "__has_include(\"",
                    "__has_include(<",
                    "#if ",
                    "#define X ",
                    std::string(1, '\0'),
                    "\xEF\xBB\xBF"};
    t.run = [](const std::string& text) {
        const auto lines = 1 + std::count(text.begin(), text.end(), '\n');
        try {
            for (const kl::IncludeDirective& d : kl::find_includes(text, "fuzz.cu"))
                if (d.line < 1 || d.line > lines || d.name.find_first_of("\r\n") != std::string::npos) std::abort();
        } catch (const kl::InputError&) {
            // a macro #include or a NUL byte: refused with the line
        }
    };
    return kl::fuzz::main_for(t, argc, argv);
}
