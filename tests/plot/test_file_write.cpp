#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "plot/file_write.h"
#include "plot_test_util.h"

namespace kl::plot {
namespace {

TEST(WriteFileAtomically, WritesAndLeavesNoTemporary) {
    testing::TempDir dir;
    std::string path = dir.file("fig.svg");
    WriteResult r = write_file_atomically(path, "hello");
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(testing::read_file(path), "hello");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"fig.svg"});
}

TEST(WriteFileAtomically, ReplacesAnExistingFile) {
    testing::TempDir dir;
    std::string path = dir.file("fig.svg");
    ASSERT_TRUE(write_file_atomically(path, "old, longer content").ok());
    ASSERT_TRUE(write_file_atomically(path, "new").ok());
    EXPECT_EQ(testing::read_file(path), "new");
    EXPECT_EQ(dir.entries().size(), 1u);
}

TEST(WriteFileAtomically, GivesNormalPermissions) {
    testing::TempDir dir;
    std::string path = dir.file("fig.png");
    ASSERT_TRUE(write_file_atomically(path, "x").ok());
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    mode_t mask = umask(0);
    umask(mask);
    EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);  // not mkstemp's 0600
}

TEST(WriteFileAtomically, MissingFolderIsOneClearError) {
    testing::TempDir dir;
    std::string path = (dir.path() / "missing" / "fig.pdf").string();
    WriteResult r = write_file_atomically(path, "x");
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find(path), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("does not exist"), std::string::npos) << r.error;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "missing"));
    EXPECT_TRUE(dir.entries().empty());
}

TEST(WriteFileAtomically, FolderInTheWayOrNoPath) {
    testing::TempDir dir;
    std::filesystem::create_directory(dir.path() / "fig.png");
    WriteResult r = write_file_atomically(dir.file("fig.png"), "x");
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("folder of that name"), std::string::npos) << r.error;
    EXPECT_FALSE(write_file_atomically("", "x").ok());
    EXPECT_FALSE(write_file_atomically(dir.path().string() + "/", "x").ok());
}

// Suites of one test below: they may skip (see cmake/KlGTestSuites.cmake).
TEST(WriteFileAtomicallyWithProc, UncreatableFileLeavesNothingBehind) {
    // /proc refuses new files even for root, so this runs everywhere (a chmod'ed folder would
    // not stop root).
    if (!std::filesystem::is_directory("/proc")) GTEST_SKIP() << "no /proc on this system";
    WriteResult r = write_file_atomically("/proc/kl_plot_test.png", "x");
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find("/proc/kl_plot_test.png"), std::string::npos) << r.error;
    EXPECT_FALSE(std::filesystem::exists("/proc/kl_plot_test.png"));
}

TEST(WriteFileAtomicallyAsNonRoot, UnwritableFolder) {
    if (geteuid() == 0) GTEST_SKIP() << "running as root: folder permissions do not apply";
    testing::TempDir dir;
    std::filesystem::create_directory(dir.path() / "locked");
    chmod((dir.path() / "locked").c_str(), 0500);
    std::string path = (dir.path() / "locked" / "fig.png").string();
    WriteResult r = write_file_atomically(path, "x");
    chmod((dir.path() / "locked").c_str(), 0700);
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.error.find(path), std::string::npos) << r.error;
    EXPECT_TRUE(std::filesystem::is_empty(dir.path() / "locked"));
}

}  // namespace
}  // namespace kl::plot
