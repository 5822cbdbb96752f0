// Class mode's window side without a window (gui/class_view.h): what `kladder submit --json` said,
// read as the Submit panel shows it; a child that printed nothing is its last stderr line; the
// exercise named as the command line names it; a class folder that cannot be opened is one line;
// the name, key and folder remembered in the settings.
#include <gtest/gtest.h>

#include <filesystem>

#include "base/errors.h"
#include "gui/class_view.h"
#include "gui/settings.h"

using namespace kl::gui;

TEST(ClassView, SubmitOutcomeIsWhatKladderSubmitPrinted) {
    const std::string out = R"({"schema": "kernel-ladder/submit", "version": 1, "file": "/tmp/s.json",
        "accepted": false, "refusal": "refused by check 'poisoned output': the output was wrong",
        "checks": [{"name": "correct", "passed": true, "detail": "n=16777216: ok"},
                   {"name": "poisoned output", "passed": false, "detail": "the output was wrong"}],
        "findings": [{"level": "refused", "check": "memory roof", "detail": "impossible: 9000 GB/s"}],
        "diagnostics": [], "goal": {"text": "", "met": false, "summary": ""}})";
    const SubmitOutcome o = submit_outcome(1, out, "");
    EXPECT_TRUE(o.written);
    EXPECT_FALSE(o.accepted);
    EXPECT_EQ(o.line,
              "refused by check 'poisoned output': the output was wrong (signed submission written to /tmp/s.json)");
    ASSERT_EQ(o.checks.size(), 2u);
    EXPECT_EQ(o.checks[1], "FAILED  poisoned output: the output was wrong");
    ASSERT_EQ(o.findings.size(), 1u);
    EXPECT_EQ(o.findings[0], "refused (memory roof): impossible: 9000 GB/s");
}

TEST(ClassView, ASubmitThatPrintedNoObjectIsItsLastErrorLine) {
    const SubmitOutcome o =
        submit_outcome(3, "", "mine.cu:3:1: warning: unused\nkladder: no CUDA GPU: cudaGetDeviceCount failed\n");
    EXPECT_FALSE(o.written);
    EXPECT_EQ(o.line, "kladder: no CUDA GPU: cudaGetDeviceCount failed");
    EXPECT_EQ(submit_outcome(3, "{\"schema\": \"other\"}", "").line, "kladder submit exited 3 without a word");
    // An object of the right schema with a field missing is not half-read.
    const SubmitOutcome half = submit_outcome(0, R"({"schema": "kernel-ladder/submit", "accepted": true})", "");
    EXPECT_FALSE(half.written);
    EXPECT_NE(half.line.find("cannot read"), std::string::npos) << half.line;
}

TEST(ClassView, ExerciseIsNamedAsTheCommandLineNamesIt) {
    kl::Lesson l;
    l.id = "first_kernel";
    l.dir = "/data/lessons/01_first_kernel";
    EXPECT_EQ(exercise_spec(l, 7), "01_first_kernel/8");
    EXPECT_NE(submission_path("01_first_kernel/8").find("/submissions/01_first_kernel_8_"), std::string::npos);
}

TEST(ClassView, AFolderThatCannotBeOpenedIsOneLine) {
    const OpenedClass missing_key = open_class("/nonexistent-kl/subs", "/nonexistent-kl/class.key", "/nonexistent-kl");
    EXPECT_NE(missing_key.error.find("/nonexistent-kl/class.key"), std::string::npos) << missing_key.error;
    EXPECT_EQ(missing_key.error.find('\n'), std::string::npos);
    EXPECT_TRUE(missing_key.merge.entries.empty());
    EXPECT_EQ(open_class("", "k", "d").error, "give the folder of submissions to open");
}

TEST(ClassView, NameKeyAndFolderAreRemembered) {
    Settings s;
    s.class_learner = "Ada Lovelace";
    s.class_key = "/home/ada/class.key";
    s.class_folder = "/home/prof/submissions";
    const Settings t = settings_from_json_text(settings_to_json(s), "test");
    EXPECT_EQ(t.class_learner, s.class_learner);
    EXPECT_EQ(t.class_key, s.class_key);
    EXPECT_EQ(t.class_folder, s.class_folder);
    EXPECT_THROW(settings_from_json_text(R"({"class": {"key": 3}})", "test"), kl::InputError);
}
