// The settings file as hostile input (issue 34): a FIFO or a link to a device is set aside
// without a byte read, a file above the size limit or of wrong types is set aside with one
// warning, and a window size beyond the display is shrunk with one line saying so.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include "base/errors.h"
#include "gui/settings.h"

namespace fs = std::filesystem;
using namespace kl::gui;

namespace {

// A fresh folder per test, removed with it.
struct Folder {
    Folder() {
        std::string tmpl = (fs::temp_directory_path() / "kl-settings-XXXXXX").string();
        path = mkdtemp(tmpl.data());
    }
    ~Folder() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string file(const std::string& name) const { return path + "/" + name; }
    std::string path;
};

// load_settings on a thread: a read that blocks on a FIFO fails the test instead of hanging it.
Settings load_within_seconds(const std::string& path, std::string* warning) {
    auto result = std::async(std::launch::async, [&] { return load_settings(path, warning); });
    if (result.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
        ADD_FAILURE() << "load_settings blocked on " << path;
        std::abort();  // the blocked thread cannot be joined
    }
    return result.get();
}

std::string refusal(const std::string& text) {
    try {
        settings_from_json_text(text, "workbook.json");
    } catch (const kl::InputError& e) { return e.what(); }
    return "";
}

}  // namespace

TEST(SettingsLimits, FifoIsSetAsideWithoutWaiting) {
    Folder d;
    std::string path = d.file("workbook.json");
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
    std::string warning;
    Settings s = load_within_seconds(path, &warning);
    EXPECT_NE(warning.find(path + ": not a regular file"), std::string::npos) << warning;
    EXPECT_NE(warning.find("set aside as " + path + ".bad"), std::string::npos) << warning;
    EXPECT_EQ(warning.find('\n'), std::string::npos);
    EXPECT_TRUE(s.dark);
    EXPECT_TRUE(fs::is_fifo(fs::symlink_status(path + ".bad")));  // moved, not opened
    EXPECT_FALSE(fs::exists(fs::symlink_status(path)));
}

TEST(SettingsLimits, LinkToDevZeroIsSetAsideUnread) {
    Folder d;
    std::string path = d.file("workbook.json");
    fs::create_symlink("/dev/zero", path);
    std::string warning;
    load_within_seconds(path, &warning);
    EXPECT_NE(warning.find("not a regular file"), std::string::npos) << warning;
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(path + ".bad")));  // the link moved, the device untouched
    EXPECT_TRUE(fs::is_character_file("/dev/zero"));
    // The next save writes a plain file where the link was.
    save_settings(path, Settings{});
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(path)));
}

TEST(SettingsLimits, OversizedFileIsRefusedByItsSize) {
    Folder d;
    std::string path = d.file("workbook.json");
    {
        std::ofstream out(path);
        out << "{\"theme\": \"light\", \"pad\": \"" << std::string(kMaxSettingsBytes, 'x') << "\"}";
    }
    std::string warning;
    Settings s = load_within_seconds(path, &warning);
    EXPECT_NE(warning.find("is more than the 4 MiB limit"), std::string::npos) << warning;
    EXPECT_TRUE(s.dark);
}

TEST(SettingsLimits, EveryFieldIsTyped) {
    EXPECT_NE(refusal(R"({"zoom": "big"})").find("workbook.json: zoom: expected a number"), std::string::npos);
    EXPECT_NE(refusal(R"({"theme": 5})").find("theme: expected a string"), std::string::npos);
    EXPECT_NE(refusal(R"({"window": 5})").find("window: expected an object"), std::string::npos);
    EXPECT_NE(refusal(R"({"progress": {"l": {"answers": {"x": 1}}}})").find("progress.l.answers.x"), std::string::npos);
    EXPECT_NE(refusal(R"({"progress": {"l": {"visited_steps": [1e300]}}})").find("progress.l.visited_steps"),
              std::string::npos);
    EXPECT_NE(refusal("[1]").find("(top level): expected an object"), std::string::npos);
    EXPECT_NE(refusal("{\"progress\": " + std::string(100000, '[') + std::string(100000, ']') + "}")
                  .find("nested deeper than 64 levels"),
              std::string::npos);
    // Far out of range, but numbers: clamped (a double, never cast to int beyond its range).
    Settings s = settings_from_json_text(
        R"({"window": {"width": 1e300, "height": -1e300}, "position": {"step": 1e300}})", "workbook.json");
    EXPECT_EQ(s.window_width, kMaxWindowSide);
    EXPECT_EQ(s.window_height, 480);
    EXPECT_GE(s.step, 0);
}

TEST(SettingsLimits, WindowSizeIsFittedWithOneLine) {
    int w = 100000, h = 100000;
    std::string note = fit_window_size(&w, &h, 1920, 1200, "the display's work area");
    EXPECT_EQ(w, 1920);
    EXPECT_EQ(h, 1200);
    EXPECT_EQ(note, "window size 100000x100000 is larger than the display's work area (1920x1200); using 1920x1200");
    w = 1280, h = 5000;
    fit_window_size(&w, &h, 1920, 1200, "x");
    EXPECT_EQ(w, 1280);  // only the side that does not fit shrinks
    EXPECT_EQ(h, 1200);
    w = 1280, h = 800;
    EXPECT_EQ(fit_window_size(&w, &h, 1920, 1200, "x"), "");
    EXPECT_EQ(fit_window_size(&w, &h, 0, 0, "no monitor"), "");
}
