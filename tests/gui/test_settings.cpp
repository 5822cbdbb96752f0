// What the workbook remembers: round trip through the file, damaged files set aside.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/errors.h"
#include "gui/settings.h"

namespace fs = std::filesystem;
using namespace kl::gui;

namespace {
std::string temp_path(const std::string& name) {
    fs::path dir = fs::temp_directory_path() / ("kl_gui_settings_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return (dir / name).string();
}
}  // namespace

TEST(Settings, RoundTrip) {
    Settings s;
    s.dark = false;
    s.zoom = 1.3f;
    s.window_width = 1400;
    s.navigator_width = 300;
    s.lesson_id = "first_kernel";
    s.step = 4;
    s.progress["first_kernel"].visited_steps = {0, 1, 4};
    s.progress["first_kernel"].answers = {{0, 1}, {2, LessonProgress::kRevealed}};
    s.progress["first_kernel"].cards_known = {3};
    std::string path = temp_path("roundtrip.json");
    save_settings(path, s);
    std::string warning;
    Settings t = load_settings(path, &warning);
    EXPECT_TRUE(warning.empty());
    EXPECT_FALSE(t.dark);
    EXPECT_FLOAT_EQ(t.zoom, 1.3f);
    EXPECT_EQ(t.window_width, 1400);
    EXPECT_FLOAT_EQ(t.navigator_width, 300);
    EXPECT_EQ(t.lesson_id, "first_kernel");
    EXPECT_EQ(t.step, 4);
    const auto& p = t.progress.at("first_kernel");
    EXPECT_EQ(p.visited_steps, (std::set<int>{0, 1, 4}));
    EXPECT_EQ(p.answers.at(2), LessonProgress::kRevealed);
    EXPECT_EQ(p.answers.at(0), 1);
    EXPECT_EQ(p.cards_known, (std::set<int>{3}));
}

TEST(Settings, MissingFileGivesDefaults) {
    std::string warning;
    Settings s = load_settings(temp_path("does_not_exist.json"), &warning);
    EXPECT_TRUE(warning.empty());
    EXPECT_TRUE(s.dark);
    EXPECT_TRUE(s.progress.empty());
}

TEST(Settings, DamagedFileIsSetAsideWithAWarning) {
    std::string path = temp_path("damaged.json");
    std::ofstream(path) << "{ \"theme\": \"light\", \"progress\": [1, 2";
    std::string warning;
    Settings s = load_settings(path, &warning);
    EXPECT_NE(warning.find(path), std::string::npos);
    EXPECT_TRUE(s.dark);  // defaults
    EXPECT_TRUE(fs::exists(path + ".bad"));
    EXPECT_FALSE(fs::exists(path));
}

TEST(Settings, OutOfRangeValuesAreClamped) {
    std::string path = temp_path("clamped.json");
    std::ofstream(path) << R"({"zoom": 40, "window": {"width": 10, "height": 99999}, "layout": {"text_fraction": 5}})";
    std::string warning;
    Settings s = load_settings(path, &warning);
    EXPECT_TRUE(warning.empty()) << warning;
    EXPECT_LE(s.zoom, 3.0f);
    EXPECT_GE(s.window_width, 640);
    EXPECT_LE(s.window_height, 8192);
    EXPECT_LE(s.text_fraction, 0.8f);
}

// [stopwatch] The runner's stopwatch is remembered; the default is the events; a value that names
// no stopwatch is refused in one line naming the field (the file is set aside, as any damaged one).
TEST(Settings, StopwatchRoundTripsAndABadOneIsNamed) {
    EXPECT_EQ(Settings{}.stopwatch, "events");
    Settings s;
    s.stopwatch = "span";
    const std::string path = temp_path("stopwatch.json");
    save_settings(path, s);
    std::string warning;
    EXPECT_EQ(load_settings(path, &warning).stopwatch, "span");
    EXPECT_TRUE(warning.empty()) << warning;
    EXPECT_EQ(settings_from_json_text(R"({"theme":"dark"})", "old.json").stopwatch, "events");  // before the field
    try {
        settings_from_json_text(R"({"runner":{"stopwatch":"sundial"}})", "w.json");
        ADD_FAILURE() << "a stopwatch named 'sundial' was accepted";
    } catch (const kl::InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("w.json: runner.stopwatch: 'sundial' is not a stopwatch (events or span)"),
                  std::string::npos)
            << what;
        EXPECT_EQ(what.find('\n'), std::string::npos);
    }
}
