// Example figures of each plot kind, for the demo program, tests and GUI smoke tests.
// Their numbers are made up to look plausible (and say so in the caption); they are not
// measurements and must never be shown as such.
#pragma once

#include "plot/plot_model.h"

namespace kl::plot {

Figure sample_rung_bars();      // per-rung GB/s bars with a copy-roof reference line
Figure sample_size_sweep();     // TFLOP/s vs N on log-log axes, one line per rung (one NaN gap)
Figure sample_roofline();       // two roofs, rungs as labelled points
Figure sample_error_heatmap();  // a 32 x 32 error map on a log colour scale with NaN cells
Figure sample_traffic_bars();   // grouped bars: ideal, modelled and measured DRAM traffic per rung

}  // namespace kl::plot
