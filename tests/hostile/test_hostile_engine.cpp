// Unit tests of the engine's shared defences (docs/security.md): checked expression arithmetic
// and depth limits, confined paths, regular-file reads, depth-limited typed JSON, FileSet.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>

#include "../engine/temp_tree.h"
#include "base/atomic_file.h"
#include "base/confined_path.h"
#include "base/errors.h"
#include "base/expr.h"
#include "base/file_set.h"
#include "base/json_input.h"
#include "plot/layout.h"

namespace fs = std::filesystem;
using kl::Expr;

namespace {
std::string eval_error(const std::string& text, kl::Scope scope = {}) {
    try {
        Expr::parse(text).eval(scope);
    } catch (const kl::InputError& e) { return e.what(); }
    return "";
}
std::string slurp(const std::string& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST(HostileExpr, Int64EdgesAreErrorsNotTraps) {
    EXPECT_NE(eval_error("(-9223372036854775807 - 1) / -1").find("does not fit in a 64-bit integer"),
              std::string::npos);
    // x % -1 is 0 for every x; computed as INT64_MIN % -1 it traps on x86 (SIGFPE).
    EXPECT_EQ(Expr::parse("(-9223372036854775807 - 1) % -1").eval({}), 0);
    EXPECT_NE(eval_error("9223372036854775807 + 1"), "");
    EXPECT_NE(eval_error("-(-9223372036854775807 - 1)"), "");
    EXPECT_NE(eval_error("x * x", {{"x", int64_t(1) << 32}}), "");
    EXPECT_NE(eval_error("cdiv(-9223372036854775807 - 1, -1)"), "");
    EXPECT_EQ(Expr::parse("cdiv(9223372036854775807, 2)").eval({}), int64_t(1) << 62);
    EXPECT_EQ(Expr::parse("cdiv(7, 2)").eval({}), 4);
    EXPECT_EQ(Expr::parse("9223372036854775807 % -1").eval({}), 0);
}

TEST(HostileExpr, NestingAndLengthAreLimited) {
    std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
    EXPECT_THROW(Expr::parse(deep), kl::InputError);
    EXPECT_THROW(Expr::parse(std::string(100000, '-') + "1"), kl::InputError);
    std::string chain = "n";
    for (int i = 0; i < 1000; ++i) chain += "+n";
    EXPECT_THROW(Expr::parse(chain), kl::InputError);
    // The message quotes at most 80 characters of the expression.
    try {
        Expr::parse(deep);
    } catch (const kl::InputError& e) { EXPECT_LT(std::string(e.what()).size(), 200u); }
    EXPECT_EQ(Expr::parse("((((((((((1))))))))))").eval({}), 1);
}

TEST(HostilePaths, ConfinedFileRefusesEscapesAndSpecialFiles) {
    TempTree t;
    t.write("lesson/ok.md", "# ok");
    t.write("outside.md", "secret");
    std::string dir = t.path("lesson"), why;
    EXPECT_EQ(kl::confined_file(dir, "ok.md", &why), dir + "/ok.md");
    EXPECT_EQ(kl::confined_file(dir, "../outside.md", &why), "");
    EXPECT_NE(why.find("'..' is not allowed"), std::string::npos);
    EXPECT_EQ(kl::confined_file(dir, t.path("outside.md"), &why), "");
    EXPECT_NE(why.find("is absolute"), std::string::npos);
    fs::create_symlink(t.path("outside.md"), t.path("lesson/link.md"));
    EXPECT_EQ(kl::confined_file(dir, "link.md", &why), "");
    EXPECT_NE(why.find("outside the folder"), std::string::npos);
    fs::create_symlink("/dev/zero", t.path("lesson/zero.md"));
    EXPECT_EQ(kl::confined_file(dir, "zero.md", &why), "");
    EXPECT_NE(why.find("device file"), std::string::npos);
    ASSERT_EQ(mkfifo(t.path("lesson/fifo.md").c_str(), 0600), 0);
    EXPECT_EQ(kl::confined_file(dir, "fifo.md", &why), "");
    EXPECT_NE(why.find("FIFO"), std::string::npos);
    fs::create_symlink("loop.md", t.path("lesson/loop.md"));
    EXPECT_EQ(kl::confined_file(dir, "loop.md", &why), "");
    EXPECT_EQ(kl::confined_file(dir, "", &why), "");
}

TEST(HostilePaths, ReadFileRefusesWhatCouldBlockOrNeverEnd) {
    TempTree t;
    ASSERT_EQ(mkfifo(t.path("fifo").c_str(), 0600), 0);
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_THROW(kl::read_file(t.path("fifo")), kl::InputError);  // no writer: must not wait
    EXPECT_THROW(kl::read_file("/dev/zero"), kl::InputError);
    EXPECT_THROW(kl::read_file(t.path("")), kl::InputError);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
    EXPECT_EQ(kl::read_file(t.write("a.txt", "abc")), "abc");
}

TEST(HostileJson, DepthIsCheckedBeforeParsing) {
    EXPECT_EQ(kl::json_nesting_depth("[[{\"a\": [1]}]]"), 4);
    EXPECT_EQ(kl::json_nesting_depth("\"[[[[\""), 0);  // inside a string
    EXPECT_EQ(kl::json_nesting_depth("[\"\\\"[[\"]"), 1);
    std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
    try {
        kl::parse_json_limited(deep, "x.json");
        FAIL() << "accepted";
    } catch (const kl::InputError& e) { EXPECT_STREQ(e.what(), "x.json: nested deeper than 64 levels"); }
    EXPECT_THROW(kl::parse_json_limited("{", "x.json"), kl::InputError);
}

TEST(HostileJson, TypedReaderNamesFieldAndRefusesWrongTypes) {
    kl::JsonReader rd{"r.json"};
    auto j = nlohmann::json::parse(R"({"v": 2.0, "big": 18446744073709551615, "s": 5, "n": 7, "o": {"x": 1.5}})");
    auto msg = [&](auto f) {
        try {
            f();
        } catch (const kl::InputError& e) { return std::string(e.what()); }
        return std::string();
    };
    EXPECT_EQ(msg([&] { rd.integer(j, "v", "", 0, 10); }), "r.json: v: expected an integer, found 2.0");
    EXPECT_EQ(msg([&] { rd.integer(j, "big", "", 0, 10); }),
              "r.json: big: 18446744073709551615 does not fit in a 64-bit integer");
    EXPECT_EQ(msg([&] { rd.str_or(j, "s", "", "dev"); }), "r.json: dev.s: expected a string");
    EXPECT_EQ(msg([&] { rd.integer(j, "n", "", 0, 5); }), "r.json: n: 7 is outside 0..5");
    EXPECT_EQ(msg([&] { rd.int_map(j, "o", ""); }), "r.json: o.x: expected a 64-bit integer");
    EXPECT_EQ(rd.str_or(j, "missing", "fallback", ""), "fallback");
}

TEST(HostileFileSet, FailedCommitKeepsEveryOldFile) {
    TempTree t;
    std::string a = t.write("out/a.txt", "old a"), b = t.path("out/b.txt");
    fs::create_directory(b);  // b cannot be replaced: the set must fail before touching a
    {
        kl::FileSet set;
        set.stage(a, "new a");
        EXPECT_THROW(set.stage(b, "new b"), kl::InputError);
    }
    EXPECT_EQ(slurp(a), "old a");
    fs::remove(b);
    t.write("out/b.txt", "old b");
    {
        kl::FileSet set;
        set.stage(a, "new a");
        set.stage(b, "new b");
        // Between staging and commit b becomes a folder: the rename fails, a must be put back.
        fs::remove(b);
        fs::create_directory(b);
        t.write("out/b.txt/inside", "x");
        EXPECT_THROW(set.commit(), kl::InputError);
    }
    EXPECT_EQ(slurp(a), "old a");
    size_t entries = 0;
    for (const auto& e : fs::directory_iterator(t.path("out"))) entries += e.path().filename().string()[0] != '.';
    size_t hidden = 0;
    for (const auto& e : fs::directory_iterator(t.path("out"))) hidden += e.path().filename().string()[0] == '.';
    EXPECT_EQ(entries, 2u);
    EXPECT_EQ(hidden, 0u) << "temporary or backup files left behind";
    fs::remove_all(b);
    {
        kl::FileSet set;
        set.stage(a, "new a");
        set.stage(b, "new b");
        set.commit();
    }
    EXPECT_EQ(slurp(a), "new a");
    EXPECT_EQ(slurp(b), "new b");
}

TEST(HostileLabels, FittingAVeryLongLabelIsFast) {
    // A measure that costs O(length), like a real font measure: the old fitting was quadratic.
    kl::plot::MeasureText measure = [](const std::string& s, double size, bool) {
        kl::plot::TextMetrics m;
        m.width = 0;
        for (char c : s) m.width += (c == ' ' ? 0.3 : 0.6) * size;
        m.ascent = size;
        m.descent = 0.2 * size;
        return m;
    };
    std::string label(200000, 'x');
    auto t0 = std::chrono::steady_clock::now();
    std::string fitted = kl::plot::fit_text(label, 100, 10, false, measure);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(s, 2.0);
    EXPECT_EQ(fitted, std::string(13, 'x') + "…");  // 13 x 6 + 18 (three bytes of …) <= 100
    EXPECT_EQ(kl::plot::fit_text("short", 100, 10, false, measure), "short");
}
