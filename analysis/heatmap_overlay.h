// The kernel's structure over an error heatmap, so that the eye can connect error and structure:
// the tile boundaries along each axis that is a position in the output, the last partial tile
// (a size that is not a multiple of the tile), and for causal attention the query rows at which the
// causal diagonal enters a new key tile (where a mask that is off by one on the diagonal goes wrong
// first). Everything is in the heatmap's cell coordinates (row 0..rows, column 0..cols), so any
// view can draw it at any zoom; the viewer's heatmaps do.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/report.h"

namespace flashscope::reports {

// A range of cells along one axis, [from, to).
struct CellSpan {
  double from = 0, to = 0;
};

struct AxisOverlay {
  std::vector<double> tile_lines;      // tile boundaries, in cells (fractional)
  std::vector<double> diagonal_lines;  // causal: the diagonal enters a new key tile here
  std::optional<CellSpan> partial;     // the last partial tile (or, in a fold, what it lacks)
  int stride = 1;                      // every stride-th tile boundary kept (dense maps)
};

struct HeatmapOverlay {
  AxisOverlay rows, cols;
  std::vector<std::string> legend;  // what is drawn, in words, one line each
  bool Any() const;
};

// Whether a heatmap cell whose max is `max` holds an element with no error to measure: never
// written (still the poison pattern), NaN or Inf. verify/ marks such elements with the largest
// float (SaturatedError in verify/error_stats.h), so one of them would otherwise stretch a colour
// scale to 3.4e38 and push every real error beside it into the bottom colour. Every heatmap view
// (the viewer's, the HTML report's) draws such cells apart and keeps them out of its scale.
bool IsSaturatedCell(float max);

// The tile of a case: its record, else (reports written before tiles were recorded) block_m read
// from a tile_fold heatmap's row axis ("query position mod 128", "m mod 64"), block_n from its
// column axis ("n mod 128"); nullopt when neither says.
std::optional<TileRecord> TileOf(const CaseResult& c);

// What to draw over heatmap `h` of case `c`; empty when the case's tile or the map's axes are
// unknown. At most `max_lines` tile boundaries per axis: denser ones are thinned to every k-th.
HeatmapOverlay BuildHeatmapOverlay(const CaseResult& c, const HeatmapRecord& h, int max_lines = 64);

}  // namespace flashscope::reports
