// The report's results store and figure builders (namespace kl::report, app/report) under the
// names the window's code uses. Types and functions found by argument-dependent lookup need no
// line here; these are the ones called with engine or std types.
#pragma once
#include "report/figure_request.h"
#include "report/figures.h"
#include "report/results_store.h"

namespace kl::gui {

using report::BuiltFigure;
using report::FigureRequest;
using report::PlotContext;
using report::RecordedSource;
using report::ResultsStore;
using report::Sizes;
using report::StoredRun;

using report::axis_value;
using report::format_size_value;
using report::format_sizes;
using report::library_reference_rung;

}  // namespace kl::gui
