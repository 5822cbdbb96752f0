// The main of the unit-test programs, which CTest runs one suite per entry (cmake/KlGTestSuites.cmake).
// GoogleTest exits 0 when a test skips, and a suite's entry would then read "passed" for a check
// that did not run. This main exits 77 (the entries' SKIP_RETURN_CODE) when every test of the run
// was skipped, and fails a run that mixes skipped and passed tests: such a test needs its own
// suite, so that CTest lists exactly it as skipped.
#include <cstdio>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    const int failed = RUN_ALL_TESTS();
    if (failed != 0) return failed;
    const testing::UnitTest& run = *testing::UnitTest::GetInstance();
    const int skipped = run.skipped_test_count();
    if (skipped == 0) return 0;
    if (run.successful_test_count() == 0) return 77;
    std::fprintf(stderr,
                 "%d test(s) skipped beside %d passed in one run: give a test that can skip a suite of its own, "
                 "so that CTest lists it as skipped (cmake/KlGTestSuites.cmake)\n",
                 skipped, run.successful_test_count());
    return 1;
}
