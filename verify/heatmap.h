// Heatmaps of |out - ref|: where in the output the error lives. Each map is a grid of cells,
// each aggregating a rectangular block of a source grid by max and by mean, so that a viewer can
// show a 16384-long sequence in 256 pixels without losing the one bad row (max) or the overall
// level (mean).
//
// The maps are accumulated in the chunked pass that computes the output's statistics
// (ComputeErrorStats in error_stats.h, on threads): every element's error goes straight into its
// binned cell of every map, each chunk into maps of its own, combined in chunk order. A cell's
// mean is the sum of its elements' errors (as double) added in element order within each chunk,
// the chunks' sums added in chunk order, over the count: chunks depend on the element count alone
// (parallel_chunks.h), so the maps are the same on every machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error_heatmap.h"
#include "common/problem.h"

namespace flashscope::verify {

// common/error_heatmap.h: one struct for the heatmaps built here and the report's records.
using Heatmap = ::flashscope::Heatmap;

// The side of full-resolution maps: a failing case is verified again with maps this large
// (runner/case_runner.cc), and it is the default.
inline constexpr int kFullHeatmapSide = 256;

// Bin edges that split `n` source cells into min(n, max_bins) contiguous bins whose sizes differ
// by at most one: bin b covers [edges[b], edges[b+1]). Every source cell is in exactly one bin.
std::vector<int64_t> BinEdges(int64_t n, int64_t max_bins);

// Where one map of a HeatmapAccumulator sends an element.
struct MapLayout {
  Heatmap shape;  // kind, axes and sizes; no cells
  int64_t row_period = 1;
  std::vector<int64_t> row_part;  // row_period entries
  std::vector<int64_t> col_part;  // row_length entries
};

// The heatmaps of one output, as they are accumulated. The output is a sequence of rows of
// row_length elements (attention: B·H·Sq rows of D; gemm: M rows of N); each map sends element
// (row, col) to one binned cell: cell = row_part[row % row_period] + col_part[col].
class HeatmapAccumulator {
 public:
  static constexpr int kMaxMaps = 4;
  // "position_x_dim" (Sq × D over all heads), "sequence_profile" (1 × Sq, at most
  // min(1024, 4·max_side) columns), "tile_fold" (query row mod block_m × D, left out when
  // block_m <= 0) and "per_head" ((B·H) × Sq); every map at most max_side per side except the
  // profile.
  static HeatmapAccumulator ForAttention(const AttentionProblem& p, int block_m, int max_side);
  // "position" (M × N) and "tile_fold" ((m mod block_m) × (n mod block_n), left out when a block
  // size is <= 0).
  static HeatmapAccumulator ForGemm(const GemmProblem& p, int block_m, int block_n, int max_side);

  int64_t elements() const { return rows_ * row_length_; }
  // Host bytes the accumulation holds with `chunks` chunks' partial maps (the host-memory guard,
  // host_memory.h).
  int64_t Bytes(int chunks) const;

  // One chunk's cells of every map.
  struct Partial {
    std::vector<float> max;
    std::vector<double> sum;
    std::vector<int64_t> count;
  };

  // Adds the errors of consecutive elements, from `first` on, to one chunk's partial maps.
  class Cursor {
   public:
    void Add(float e) {
      for (int m = 0; m < map_count_; ++m) {
        const int64_t cell = row_cell_[m] + col_part_[m][col_];
        if (e > max_[m][cell]) max_[m][cell] = e;
        sum_[m][cell] += e;
        ++count_[m][cell];
      }
      if (++col_ == row_length_) NextRow();
    }

   private:
    friend class HeatmapAccumulator;
    void NextRow();
    const HeatmapAccumulator* owner_ = nullptr;
    int map_count_ = 0;
    int64_t row_length_ = 1, row_ = 0, col_ = 0;
    int64_t row_cell_[kMaxMaps] = {};
    const int64_t* col_part_[kMaxMaps] = {};
    float* max_[kMaxMaps] = {};
    double* sum_[kMaxMaps] = {};
    int64_t* count_[kMaxMaps] = {};
  };

  // Makes `chunks` sets of empty partial maps (the pass calls it before it starts).
  void Begin(int chunks);
  // A cursor into chunk `chunk`'s partial maps at element `first`.
  Cursor Start(int chunk, int64_t first);
  // The maps: the chunks' partial maps combined in chunk order.
  std::vector<Heatmap> Finish() const;

 private:
  HeatmapAccumulator() = default;

  int64_t rows_ = 0, row_length_ = 1;
  std::vector<MapLayout> maps_;
  std::vector<std::vector<Partial>> chunks_;  // [chunk][map]
};

// The maps of `abs_err` (n floats, already |out - ref|), on the calling thread, as one chunk: for
// callers that hold the errors already.
std::vector<Heatmap> AttentionHeatmaps(const AttentionProblem& p, const float* abs_err, int block_m,
                                       int max_side = kFullHeatmapSide);
std::vector<Heatmap> GemmHeatmaps(const GemmProblem& p, const float* abs_err, int block_m,
                                  int block_n, int max_side = kFullHeatmapSide);

}  // namespace flashscope::verify
