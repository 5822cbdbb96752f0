// The code editor's text logic without a window: undo and redo, grouping of typed edits, find
// with wrap-around, line and column conversions; the file watch; the external editor's argv.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "gui/edit_text.h"
#include "gui/external_editor.h"
#include "gui/file_watch.h"

using namespace kl::gui;
using namespace std::chrono_literals;

TEST(EditHistory, UndoRedoRestoresTextAndCaret) {
    EditHistory h;
    auto t0 = EditHistory::Clock::now();
    TextState cur{"a", 1};
    h.record(cur, t0);
    cur = {"ab", 2};
    h.record(cur, t0 + 2s);  // two seconds later: a step of its own
    cur = {"abc", 3};
    ASSERT_TRUE(h.undo(cur));
    EXPECT_EQ(cur.text, "ab");
    ASSERT_TRUE(h.undo(cur));
    EXPECT_EQ(cur.text, "a");
    EXPECT_EQ(cur.cursor, 1);
    EXPECT_FALSE(h.undo(cur));
    ASSERT_TRUE(h.redo(cur));
    ASSERT_TRUE(h.redo(cur));
    EXPECT_EQ(cur.text, "abc");
    EXPECT_FALSE(h.redo(cur));
}

TEST(EditHistory, TypingQuicklyIsOneStepAndANewEditDropsRedo) {
    EditHistory h;
    auto t = EditHistory::Clock::now();
    TextState cur{"", 0};
    for (char c : std::string("word")) {
        h.record(cur, t);
        cur.text += c;
        t += 100ms;
    }
    ASSERT_TRUE(h.undo(cur));
    EXPECT_EQ(cur.text, "");
    EXPECT_FALSE(h.can_undo());
    h.record(cur, t + 5s);
    EXPECT_FALSE(h.can_redo());
}

TEST(EditHistory, BreakGroupStartsANewStep) {
    EditHistory h;
    auto t = EditHistory::Clock::now();
    TextState cur{"x", 1};
    h.record(cur, t);
    cur.text = "xy";
    h.break_group();
    h.record(cur, t + 10ms);
    cur.text = "xyz";
    ASSERT_TRUE(h.undo(cur));
    EXPECT_EQ(cur.text, "xy");
}

TEST(Find, NextAndPreviousWrapAround) {
    std::string t = "ab ab ab";
    EXPECT_EQ(find_all(t, "ab").size(), 3u);
    EXPECT_EQ(find_next(t, "ab", 0, false), 3);
    EXPECT_EQ(find_next(t, "ab", 6, false), 0);  // wraps to the first
    EXPECT_EQ(find_next(t, "ab", 0, true), 6);   // wraps to the last
    EXPECT_EQ(find_next(t, "ab", 6, true), 3);
    EXPECT_EQ(find_next(t, "zz", 0, false), -1);
    EXPECT_EQ(find_next(t, "", 0, false), -1);
}

TEST(Lines, OffsetsLinesAndColumns) {
    std::string t = "one\ntwo\n\nfour";
    auto s = line_starts(t);
    ASSERT_EQ(s.size(), 4u);
    EXPECT_EQ(line_of(s, 0), 0);
    EXPECT_EQ(line_of(s, 4), 1);
    EXPECT_EQ(line_of(s, 8), 2);
    EXPECT_EQ(line_of(s, t.size()), 3);
    EXPECT_EQ(offset_of(t, s, 2, 2), 5u);   // "two", column 2: 'w'
    EXPECT_EQ(offset_of(t, s, 2, 99), 7u);  // clamped to the line's end
    EXPECT_EQ(offset_of(t, s, 99, 1), 9u);  // clamped to the last line
    EXPECT_EQ(offset_of(t, s, 0, 0), 0u);
}

TEST(FileWatch, SeesAWriteAndARenameOnceEach) {
    std::string dir = ::testing::TempDir();
    std::string path = dir + "/watched.cu", tmp = dir + "/watched.tmp";
    std::ofstream(path) << "a";
    FileWatch w(0ms);
    w.watch(path);
    auto now = FileWatch::Clock::now();
    EXPECT_FALSE(w.changed(now));
    std::ofstream(path) << "abc";  // size changes
    EXPECT_TRUE(w.changed(now));
    EXPECT_FALSE(w.changed(now));  // reported once
    std::ofstream(tmp) << "wxyz";
    ASSERT_EQ(std::rename(tmp.c_str(), path.c_str()), 0);  // replaced by a rename, as editors save
    EXPECT_TRUE(w.changed(now));
    std::remove(path.c_str());
    EXPECT_TRUE(w.changed(now));  // gone
}

TEST(FileWatch, LooksAtTheDiskOnlyOncePerInterval) {
    std::string path = ::testing::TempDir() + "/interval.cu";
    std::ofstream(path) << "a";
    FileWatch w(1s);
    w.watch(path);
    std::ofstream(path) << "abcd";
    auto now = FileWatch::Clock::now();
    EXPECT_FALSE(w.changed(now));  // watch() looked just now
    EXPECT_TRUE(w.changed(now, true));
    std::remove(path.c_str());
}

TEST(ExternalEditor, VisualThenEditorThenXdgOpen) {
    using V = std::vector<std::string>;
    EXPECT_EQ(external_editor_argv("/f.cu", "code --wait", "vi"), (V{"code", "--wait", "/f.cu"}));
    EXPECT_EQ(external_editor_argv("/f.cu", "  ", "vi"), (V{"vi", "/f.cu"}));
    EXPECT_EQ(external_editor_argv("/f.cu", nullptr, nullptr), (V{"xdg-open", "/f.cu"}));
    // No shell: a ';' is a word like any other, not a second command.
    EXPECT_EQ(external_editor_argv("/f.cu", "ed;rm", nullptr), (V{"ed;rm", "/f.cu"}));
}
