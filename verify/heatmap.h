// Heatmaps of |out - ref|: where in the output the error lives. Each map is a grid of cells,
// each aggregating a rectangular block of a source grid by max and by mean, so that a viewer can
// show a 16384-long sequence in 256 pixels without losing the one bad row (max) or the overall
// level (mean).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error_heatmap.h"
#include "common/problem.h"

namespace flashscope::verify {

// common/error_heatmap.h: one struct for the heatmaps built here and the report's records.
using Heatmap = ::flashscope::Heatmap;

// Bin edges that split `n` source cells into min(n, max_bins) contiguous bins whose sizes differ
// by at most one: bin b covers [edges[b], edges[b+1]). Every source cell is in exactly one bin.
std::vector<int64_t> BinEdges(int64_t n, int64_t max_bins);

// A source grid before downsampling: each cell holds the max and the sum of the elements folded
// into it, and how many there were.
struct ErrorGrid {
  int64_t rows = 0, cols = 0;
  std::vector<float> max;
  std::vector<double> sum;
  std::vector<int64_t> count;
  ErrorGrid(int64_t r, int64_t c);
  void Add(int64_t r, int64_t c, float e) {
    const int64_t i = r * cols + c;
    if (e > max[i]) max[i] = e;
    sum[i] += e;
    ++count[i];
  }
};

// Downsamples `g` to at most max_rows × max_cols cells: a cell's max is the max over its block,
// its mean the sum over its block divided by the element count (the exact mean of the elements).
Heatmap BinGrid(const ErrorGrid& g, int64_t max_rows, int64_t max_cols, std::string kind,
                std::string row_axis, std::string col_axis);

// From |out - ref| of an attention output [B,H,Sq,D]: "position_x_dim" (Sq × D over all heads),
// "sequence_profile" (1 × Sq, at most min(1024, 4·max_side) columns), "tile_fold" (query row mod
// block_m × D, skipped when block_m <= 0) and "per_head" ((B·H) × Sq); every map at most max_side
// per side except the profile.
std::vector<Heatmap> AttentionHeatmaps(const AttentionProblem& p, const float* abs_err, int block_m,
                                       int max_side = 256);

// From |C - ref| of a gemm [M,N]: "position" (M × N) and "tile_fold" ((m mod block_m) ×
// (n mod block_n), skipped when a block size is <= 0).
std::vector<Heatmap> GemmHeatmaps(const GemmProblem& p, const float* abs_err, int block_m,
                                  int block_n, int max_side = 256);

}  // namespace flashscope::verify
