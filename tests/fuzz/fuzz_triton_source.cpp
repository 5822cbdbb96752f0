// Fuzz target: the check of a Triton rung's source (app/model/triton_source.*), the first layer
// between a shared tree and Python. Any bytes must give a verdict: the kernels, or one
// kl::InputError line "f.py:LINE: ..." with no control character in it (the line reaches a
// terminal). The corpus is the shipped rungs (kernels/*/*.py); the dictionary holds what Python's
// structure turns on (quotes, prefixes, continuations, line ends, indentation) and what the rules
// refuse.
#include <cctype>
#include <cstdlib>
#include <string>

#include "base/errors.h"
#include "fuzz_driver.h"
#include "model/triton_source.h"

namespace {

bool one_clean_line(const std::string& m) {
    if (m.rfind("f.py:", 0) != 0) return false;
    for (unsigned char c : m)
        if (c < 0x20 || c == 0x7f) return false;
    return true;
}

bool identifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    for (unsigned char c : s)
        if (!std::isalnum(c) && c != '_') return false;
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    kl::fuzz::Target t;
    t.name = "triton_source";
    t.extensions = {".py"};
    t.dictionary = {"\n",
                    "\r",
                    "\r\n",
                    "\\\n",
                    "    ",
                    "\t",
                    "\f",
                    "'",
                    "\"",
                    "'''",
                    "\"\"\"",
                    "r'",
                    "b\"",
                    "f'",
                    "t\"",
                    "rb'''",
                    "#",
                    "# coding: utf-7\n",
                    "(",
                    ")",
                    "[",
                    "]",
                    "{",
                    "}",
                    ":",
                    ",",
                    ";",
                    "=",
                    "->",
                    "@",
                    "@triton.jit\n",
                    "def k(x):\n",
                    "import os\n",
                    "import triton\n",
                    "from triton import jit\n",
                    "tl.constexpr",
                    "tl.constexpr(4)",
                    "__import__",
                    "__class__",
                    "eval(",
                    "open(",
                    "getattr",
                    "triton.",
                    "lambda",
                    "class A:\n",
                    "1if",
                    "0x1f",
                    "1e-5",
                    "-",
                    "\xef\xbd\x85val",
                    "\xef\xbb\xbf",
                    "\0",
                    "\x1b]52;c;",
                    "if __name__ == '__main__':\n"};
    t.run = [](const std::string& text) {
        try {
            for (const std::string& k : kl::check_triton_source(text, "f.py"))
                if (!identifier(k)) std::abort();  // an accepted kernel must be a plain name
        } catch (const kl::InputError& e) {
            if (!one_clean_line(e.what())) std::abort();
            throw;
        }
    };
    return kl::fuzz::main_for(t, argc, argv);
}
