// Synthetic reports for the viewer's tests: every field the views draw is filled, with values
// shaped like a real ladder run, and the environment is marked synthetic so that no one mistakes
// a file made from it for a GPU measurement.
#pragma once

#include <cstdint>

#include "reports/report.h"

namespace flashscope::viewer::testing {

// `cases` cases over ladder rungs, two peers and a grid of attention problems; about 1 in 12 is
// failed, 1 in 15 skipped, 1 in 40 an error. `speedup` scales every time (for compare tests).
// Heatmaps are attached to the cases of every `heatmap_stride`-th problem (they dominate the
// file size: a 2,000-case report with all of them is ~450 MB of JSON).
reports::Report MakeSyntheticReport(int cases, uint64_t seed, double speedup = 1.0,
                                    int heatmap_stride = 4);

}  // namespace flashscope::viewer::testing
