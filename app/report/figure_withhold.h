// Predict, then reveal in figures: a bar, a sweep point or a roofline point whose run a
// prediction not yet kept is about (course/reveal.h, LessonRevealGate) loses its value, and its run
// (so no tooltip describes it); the caption says which rungs wait and for which step. The window
// applies this to every figure it builds. No UI.
#pragma once
#include <functional>
#include <string>

#include "report/figures.h"

namespace kl::report {

// `why(run)`: "" when the run's figures show, else why not ("until step 5's prediction").
// Returns how many bars and points were withheld.
int withhold_runs(BuiltFigure& built, const std::function<std::string(const RunRecord&)>& why);

// The results copy beside such a figure (the window's Export writes NAME.results.json): `file`
// without the runs `why` withholds, so the file carries no figure the picture leaves empty; a
// kept run's pct_reference against a left-out reference rung (same ladder, sizes and dtype) goes
// too (its time over that share is the reference's time). One line per left-out run in
// `file.withheld` ("matmul/naive fp32 K=4096 M=4096 N=4096: until your prediction"). Returns how
// many runs were left out.
int withhold_results(ResultsFile& file, const std::function<std::string(const RunRecord&)>& why);

// Every finite value a figure draws from runs (bars and points, with their whiskers), for tests.
std::vector<double> drawn_values(const BuiltFigure& built);

}  // namespace kl::report
