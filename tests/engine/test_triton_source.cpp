// The rules of a Triton rung's source (app/model/triton_source.h), both layers: the C++ check
// that runs before any Python, and the helper's own check with Python's ast (`--check`, run with
// the machine's python3 as the engine runs the helper). Every refusal names FILE:LINE; the
// shipped rungs pass both with the same kernels.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "base/child_exec.h"
#include "base/errors.h"
#include "base/paths.h"
#include "model/triton_child.h"
#include "model/triton_source.h"
#include "temp_tree.h"

// One namespace a file: its short helpers stay its own in a unity batch (KL_UNITY).
namespace kl_test_triton_source {

namespace {

const std::string kHead = "import triton\nimport triton.language as tl\n";

struct Refused {
    const char* name;
    std::string text;
    int line;          // where the C++ check must point
    const char* what;  // a part of its message
};

// Each reaches the host in its own way; the line is the C++ check's (1-based).
const std::vector<Refused>& refused_cases() {
    static const std::vector<Refused> cases = {
        {"import_os", kHead + "import os\n", 3, "'import os': a Triton rung imports only"},
        {"from_import", kHead + "from os import system\n", 3, "'from ...' at the top level"},
        {"top_level_open", kHead + "open('/tmp/x', 'w').write('x')\n", 3, "a call (open(...)) at the top level"},
        {"dunder_import", kHead + "X = __import__('os')\n", 3, "'__import__' is not allowed"},
        {"body_dunder", kHead + "@triton.jit\ndef k(x):\n    y = x.__class__\n", 5, "'__class__' is not allowed"},
        {"body_eval", kHead + "@triton.jit\ndef k(x):\n    eval('1')\n", 5, "'eval' is not allowed"},
        {"body_getattr", kHead + "@triton.jit\ndef k(x):\n    getattr(tl, 'core')\n", 5, "'getattr' is not allowed"},
        {"body_builtins", kHead + "@triton.jit\ndef k(x):\n    tl.core.builtins.open('/x')\n", 5,
         "'builtins' is not allowed"},
        {"class_def", kHead + "class A:\n    pass\n", 3, "'class ...' at the top level"},
        {"main_block", kHead + "if __name__ == '__main__':\n    pass\n", 3, "'if ...' at the top level"},
        {"other_decorator", kHead + "@staticmethod\ndef k(x):\n    pass\n", 3, "a decorator other than @triton.jit"},
        {"decorator_arguments", kHead + "@triton.jit(do_not_specialize=[0])\ndef k(x):\n    pass\n", 3,
         "a decorator other than @triton.jit"},
        {"no_decorator", kHead + "def k(x):\n    return x\n", 3, "a function without @triton.jit"},
        {"default_is_a_call", kHead + "@triton.jit\ndef k(x=print('hi')):\n    pass\n", 4, "a parameter that is not"},
        {"annotation_is_a_call", kHead + "@triton.jit\ndef k(x: print('hi')):\n    pass\n", 4,
         "a parameter that is not"},
        {"return_annotation", kHead + "@triton.jit\ndef k(x) -> tl.constexpr:\n    pass\n", 4, "a return annotation"},
        {"star_arguments", kHead + "@triton.jit\ndef k(*x):\n    pass\n", 4, "a parameter that is not"},
        {"f_string", kHead + "X = f'{1}'\n", 3, "f- and t-strings run the code"},
        {"t_string", kHead + "X = t'{1}'\n", 3, "f- and t-strings run the code"},
        {"semicolon", kHead + "X = 1; import os\n", 3, "';'"},
        {"carriage_return_ends_a_line", kHead + "X = 1\rimport os\n", 4, "'import os'"},
        {"form_feed_indent", kHead + "@triton.jit\ndef k(x):\n    pass\n\fprint(1)\n", 6, "control character 0x0c"},
        {"utf7_encoding", "# coding: utf-7\n" + kHead, 1, "encoding declaration other than UTF-8"},
        {"fullwidth_eval", kHead + "\xef\xbd\x85val = 1\n", 3, "non-ASCII character"},
        {"inline_body_then_indent", kHead + "@triton.jit\ndef k(x): pass\n    y = 1\n", 5, "an indented line outside"},
        {"triton_in_body", kHead + "@triton.jit\ndef k(x):\n    triton.compile(1)\n", 5,
         "'triton' outside the imports"},
        {"import_in_body", kHead + "@triton.jit\ndef k(x):\n    import os\n", 5, "'import' inside a @triton.jit"},
        {"nested_def", kHead + "@triton.jit\ndef k(x):\n    def g():\n        pass\n", 5, "'def' inside a @triton.jit"},
        {"lambda_constant", kHead + "X = lambda: 1\n", 3, "an assignment of something other than a literal"},
        {"tuple_constant", kHead + "X = (1, 2)\n", 3, "an assignment of something other than a literal"},
        {"two_decorators", kHead + "@triton.jit\n@triton.jit\ndef k(x):\n    pass\n", 3,
         "is not followed by a function"},
        {"continued_call", kHead + "X = 1 \\\n+ open('x')\n", 4, "'open' is not allowed"},
        {"assign_builtins", kHead + "__builtins__ = 1\n", 3, "'__builtins__' is not allowed"},
        {"unterminated_string", kHead + "X = 'abc\n", 3, "a string that is never closed"},
        {"unclosed_bracket", kHead + "X = (1\n", 3, "a bracket that is never closed"},
        {"nul_byte", kHead + std::string("X = 1\n\0", 7), 4, "a NUL byte"},
        {"indented_first_line", "    import os\n", 1, "an indented line outside"},
    };
    return cases;
}

std::vector<std::string> shipped_triton_rungs() {
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(kl::kernels_dir()))
        if (e.path().extension() == ".py") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
}

// The helper's second layer on files, run as the engine runs the helper: each file's verdict
// ({"ok": ..., "kernels" or "error"}), in order.
std::vector<nlohmann::json> python_check(const std::vector<std::string>& files) {
    // The interpreter itself: a launcher script (pyenv's shim) costs seconds a run.
    static const std::string python = [] {
        kl::ExecResult r =
            kl::run_program({kl::find_on_path("python3"), "-c", "import sys; print(sys.executable)"}, "", 60);
        return r.out.substr(0, r.out.find('\n'));
    }();
    std::vector<std::string> args = {"--check"};
    args.insert(args.end(), files.begin(), files.end());
    kl::PrivateFolder folder;
    kl::ExecResult r = kl::run_triton_helper(python, args, "", folder.path(), 120);
    std::vector<nlohmann::json> verdicts(files.size(), {{"ok", false}, {"error", "no answer: " + r.err}});
    try {
        const nlohmann::json j = nlohmann::json::parse(r.out);
        for (size_t i = 0; i < files.size() && i < j.at("files").size(); ++i) verdicts[i] = j["files"][i];
    } catch (const std::exception&) {}
    return verdicts;
}

}  // namespace

// [SECTION] The shipped rungs

TEST(TritonSource, ShippedRungsPassBothLayersWithTheSameKernels) {
    const std::vector<std::string> files = shipped_triton_rungs();
    ASSERT_GE(files.size(), 6u);
    const std::vector<nlohmann::json> verdicts = python_check(files);
    for (size_t i = 0; i < files.size(); ++i) {
        SCOPED_TRACE(files[i]);
        std::vector<std::string> kernels;
        kl::read_checked_triton_source(files[i], &kernels);
        ASSERT_GE(kernels.size(), 1u);  // one per stage: the LayerNorm backward's rung has two
        ASSERT_TRUE(verdicts[i].value("ok", false)) << verdicts[i].dump();
        EXPECT_EQ(verdicts[i]["kernels"], nlohmann::json(kernels));
    }
}

TEST(TritonSource, WhatTheRulesAllow) {
    const std::string text = kHead +
                             "import math\n"
                             "'''A docstring, with import os and eval( inside it.'''\n"
                             "A = 1\nB = -2.5e-3\nC = tl.constexpr(64)\nD = 'x' \"y\"\nE = True\nF = 0x1f\n"
                             "\n@triton.jit\n"
                             "def k(x, y, B: tl.constexpr = 4, C: tl.constexpr=True,):\n"
                             "    # a comment with import os; and 'quotes\n"
                             "    s = 'it''s \\' fine; import os'\n"
                             "    z = (x +\n"
                             "         y) * \\\n"
                             "        2\n"
                             "    return z @ y if 1if x else 2\n"
                             "\r\n"
                             "@triton.jit\r\ndef g(p): return tl.load(p)\r\n";
    EXPECT_EQ(kl::check_triton_source(text, "ok.py"), (std::vector<std::string>{"k", "g"}));
}

// [SECTION] Refusals: FILE:LINE and what was found, from both layers

TEST(TritonSource, EachWayToTheHostIsRefusedWithFileAndLine) {
    for (const Refused& c : refused_cases()) {
        SCOPED_TRACE(c.name);
        const std::string error = input_error_of([&] { kl::check_triton_source(c.text, "rung.py"); });
        EXPECT_EQ(error.rfind("rung.py:" + std::to_string(c.line) + ": ", 0), 0u) << error;
        EXPECT_NE(error.find(c.what), std::string::npos) << error;
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
}

TEST(TritonSource, TheHelperRefusesThemAgainWithPythonsParser) {
    TempTree t;
    std::vector<std::string> files;
    for (const Refused& c : refused_cases()) files.push_back(t.write(std::string(c.name) + ".py", c.text));
    const std::vector<nlohmann::json> verdicts = python_check(files);
    for (size_t i = 0; i < files.size(); ++i) {
        SCOPED_TRACE(files[i]);
        EXPECT_FALSE(verdicts[i].value("ok", true)) << verdicts[i].dump();
        EXPECT_EQ(verdicts[i].value("error", "").rfind(files[i] + ":", 0), 0u) << verdicts[i].dump();
    }
}

TEST(TritonSource, ForbiddenNamesAreTheSameInBothLayers) {
    const std::string& helper = kl::triton_helper_source();
    const size_t from = helper.find("FORBIDDEN_NAMES = frozenset([");
    ASSERT_NE(from, std::string::npos);
    const size_t to = helper.find("])", from);
    std::set<std::string> python;
    for (size_t q = helper.find('"', from); q < to; q = helper.find('"', q + 1)) {
        const size_t end = helper.find('"', q + 1);
        python.insert(helper.substr(q + 1, end - q - 1));
        q = end;
    }
    EXPECT_EQ(python, kl::triton_forbidden_names());
}

TEST(TritonSource, FileLimitsAreChecked) {
    TempTree t;
    const std::string big = t.write("big.py", kHead + "# " + std::string(kl::kMaxTritonSourceBytes, 'x') + "\n");
    EXPECT_NE(input_error_of([&] { kl::read_checked_triton_source(big); }).find("at most 1 MiB"), std::string::npos);
    const std::string fifo = t.path("fifo.py");
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_NE(input_error_of([&] { kl::read_checked_triton_source(fifo); }), "") << "a FIFO must be refused, not read";
}

// [SECTION] Total: any bytes give a verdict

TEST(TritonSource, EveryByteAtEveryPlaceGivesAVerdict) {
    const std::string base = kHead + "X = 'a'\n@triton.jit\ndef k(p, B: tl.constexpr = 2):\n    tl.store(p, 1)\n";
    int accepted = 0;
    for (size_t at = 0; at <= base.size(); ++at)
        for (int b = 0; b < 256; ++b) {
            std::string text = base;
            text.insert(at, 1, static_cast<char>(b));
            try {
                kl::check_triton_source(text, "f.py");
                ++accepted;
            } catch (const kl::InputError&) {
                // a refusal is a verdict too
            }
            text = base.substr(0, at);  // every prefix: cut strings, brackets, lines
            try {
                kl::check_triton_source(text, "f.py");
            } catch (const kl::InputError&) {}
        }
    EXPECT_GT(accepted, 0);
}

}  // namespace kl_test_triton_source
