// Shared pieces of the `kladder` commands: loading the data, parsing K=V arguments, tables.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "course/lesson.h"
#include "model/manifest.h"

namespace kl::cli {

// Loads every ladder. Manifests that fail to load are kept in load_errors() (one line each,
// naming file, line and field); asking for such a ladder by id throws its error.
std::vector<Ladder> load_ladders_or_throw();
const std::vector<std::string>& load_errors();
const Ladder& find_ladder_or_throw(const std::vector<Ladder>& ladders, const std::string& id);
// A lesson, results file or request naming a ladder whose manifest failed to load fails with
// "unknown ladder 'X'"; the thing to fix is the manifest. Such a message comes back with the
// ladder's own load error (file:line: field) first; any other message comes back as it is.
std::string with_ladder_cause(const std::string& message);

// "n=1024,m=3" or repeated "K=V" items -> map; values accept 2^k and k suffixes (4k = 4096).
std::map<std::string, int64_t> parse_assignments(const std::vector<std::string>& items, const std::string& what);
int64_t parse_integer(const std::string& text, const std::string& what);

// A plain text table: header row, then rows; columns padded, numbers right-aligned. Every cell
// is shown through printable() (base/printable.h); callers cap titles themselves.
std::string format_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
std::string fmt(double v, int precision = 3);
std::string human_bytes(double bytes);

// The command line this process was started with (recorded in results files).
std::string& invocation();

// `--exercise LESSON/STEP` (try, submit): the lesson, kept in *keep, and its step, which has an
// exercise. InputError naming the lesson or step otherwise.
const LessonStep* find_exercise(const std::string& spec, const std::vector<Ladder>& ladders, Lesson* keep);

// Every lesson exercise's starter file and reference solution compiled with NVRTC as its starter
// rung (cmd_exercise.cpp; `kladder check-kernels` calls it); failures printed "FAIL  exercise ...".
struct ExerciseCompileCounts {
    int compiled = 0, failed = 0;
};
ExerciseCompileCounts compile_exercise_files(const std::vector<Ladder>& ladders, const std::string& arch,
                                             const std::string& only_ladder, bool verbose);

}  // namespace kl::cli
