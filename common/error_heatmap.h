// Heatmaps of |out - ref|: where in a kernel's output the error lives. One struct for what verify/
// builds (verify/heatmap.h) and what a report records (reports/report.h's HeatmapRecord), so that
// a field added here reaches the report without a copy in between.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace flashscope {

// Error downsampled onto a grid: row-major rows × cols, each cell aggregating a block of the
// source (src_rows × src_cols) by max and by mean, so that a viewer can show a 16384-long
// sequence in 256 pixels without losing the one bad row (max) or the overall level (mean).
struct Heatmap {
  std::string kind;  // "position_x_dim", "sequence_profile", "tile_fold", "per_head", "position"
  std::string row_axis;
  std::string col_axis;
  int64_t src_rows = 0;  // the size of the grid before downsampling
  int64_t src_cols = 0;
  int rows = 0;
  int cols = 0;
  std::vector<float> max;  // row-major rows × cols
  std::vector<float> mean;
};

}  // namespace flashscope
