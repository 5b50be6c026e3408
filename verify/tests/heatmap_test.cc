#include "verify/heatmap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace flashscope::verify {
namespace {

const Heatmap* Find(const std::vector<Heatmap>& maps, const std::string& kind) {
  for (const Heatmap& h : maps) {
    if (h.kind == kind) return &h;
  }
  return nullptr;
}

// The "position" map of a rows x cols gemm output whose element (r, c) holds r * row_weight + c
// (with row_weight >= cols every value is distinct and grows with its row-major index), binned
// to at most max_side per side.
Heatmap IndexedPosition(int rows, int cols, int row_weight, int max_side) {
  GemmProblem p;
  p.m = rows;
  p.n = cols;
  p.k = 1;
  std::vector<float> err(static_cast<size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) err[r * cols + c] = static_cast<float>(r * row_weight + c);
  }
  return *Find(GemmHeatmaps(p, err.data(), 0, 0, max_side), "position");
}

TEST(BinEdges, EvenUnevenAndFewerCellsThanBins) {
  EXPECT_EQ(BinEdges(10, 3), (std::vector<int64_t>{0, 3, 6, 10}));
  EXPECT_EQ(BinEdges(4, 2), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(BinEdges(3, 256), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(BinEdges(1, 1), (std::vector<int64_t>{0, 1}));
}

TEST(BinEdges, EveryCellInExactlyOneBinSizesDifferByAtMostOne) {
  for (int64_t n : {1, 2, 7, 255, 256, 257, 1000, 2047, 16384}) {
    for (int64_t k : {1, 3, 64, 256, 1024}) {
      const std::vector<int64_t> e = BinEdges(n, k);
      ASSERT_EQ(static_cast<int64_t>(e.size()), std::min(n, k) + 1);
      ASSERT_EQ(e.front(), 0);
      ASSERT_EQ(e.back(), n);
      int64_t lo = n, hi = 0;
      for (size_t b = 0; b + 1 < e.size(); ++b) {
        lo = std::min(lo, e[b + 1] - e[b]);
        hi = std::max(hi, e[b + 1] - e[b]);
      }
      EXPECT_GE(lo, 1) << n << " " << k;
      EXPECT_LE(hi - lo, 1) << n << " " << k;
    }
  }
}

TEST(Heatmaps, UnevenBlocksHaveExactMaxAndMean) {
  // 5 x 7 grid, cell value r*10 + c, one element per cell, binned to 3 x 3:
  // rows [0,1) [1,3) [3,5); cols [0,2) [2,4) [4,7).
  const Heatmap h = IndexedPosition(5, 7, 10, 3);
  ASSERT_EQ(h.rows, 3);
  ASSERT_EQ(h.cols, 3);
  EXPECT_EQ(h.src_rows, 5);
  EXPECT_EQ(h.src_cols, 7);
  const int row_lo[] = {0, 1, 3}, row_hi[] = {1, 3, 5}, col_lo[] = {0, 2, 4}, col_hi[] = {2, 4, 7};
  for (int br = 0; br < 3; ++br) {
    for (int bc = 0; bc < 3; ++bc) {
      double sum = 0;
      int n = 0;
      for (int r = row_lo[br]; r < row_hi[br]; ++r) {
        for (int c = col_lo[bc]; c < col_hi[bc]; ++c) sum += r * 10 + c, ++n;
      }
      EXPECT_EQ(h.max[br * 3 + bc], (row_hi[br] - 1) * 10 + col_hi[bc] - 1);
      EXPECT_FLOAT_EQ(h.mean[br * 3 + bc], static_cast<float>(sum / n));
    }
  }
}

TEST(Heatmaps, EveryCellCoveredOnce) {
  // Each source cell holds its own index; an output cell's mean times its element count is the
  // sum of the indices it covers, and those sums over all output cells must add up to the sum of
  // all indices: a cell covered twice or missed would break the total.
  const Heatmap h = IndexedPosition(257, 131, 131, 50);
  ASSERT_EQ(h.rows, 50);
  ASSERT_EQ(h.cols, 50);
  const std::vector<int64_t> re = BinEdges(257, 50), ce = BinEdges(131, 50);
  double total = 0, cells = 0;
  for (int br = 0; br < h.rows; ++br) {
    for (int bc = 0; bc < h.cols; ++bc) {
      const double n = static_cast<double>(re[br + 1] - re[br]) * (ce[bc + 1] - ce[bc]);
      total += static_cast<double>(h.mean[br * h.cols + bc]) * n;
      cells += n;
      // The max is the block's last (largest-index) cell.
      EXPECT_EQ(h.max[br * h.cols + bc],
                static_cast<float>((re[br + 1] - 1) * 131 + ce[bc + 1] - 1));
    }
  }
  const double n_all = 257.0 * 131;
  EXPECT_EQ(cells, n_all);
  EXPECT_NEAR(total, n_all * (n_all - 1) / 2, 1e-7 * n_all * n_all);
}

TEST(Heatmaps, EachSourceCellLandsInExactlyOneOutputCell) {
  // A spike at every source cell in turn: exactly one output cell sees it, the one whose block
  // contains the source cell, and its mean is the spike over that block's size.
  const int src_r = 23, src_c = 17, side = 4;
  GemmProblem p;
  p.m = src_r;
  p.n = src_c;
  p.k = 1;
  const std::vector<int64_t> re = BinEdges(src_r, side), ce = BinEdges(src_c, side);
  for (int r = 0; r < src_r; ++r) {
    for (int c = 0; c < src_c; ++c) {
      std::vector<float> err(src_r * src_c, 0.f);
      err[r * src_c + c] = 3.f;
      const Heatmap h = *Find(GemmHeatmaps(p, err.data(), 0, 0, side), "position");
      int hits = 0;
      for (int br = 0; br < side; ++br) {
        for (int bc = 0; bc < side; ++bc) {
          if (h.max[br * side + bc] == 0.f) continue;
          ++hits;
          EXPECT_TRUE(re[br] <= r && r < re[br + 1] && ce[bc] <= c && c < ce[bc + 1]);
          const double n = static_cast<double>(re[br + 1] - re[br]) * (ce[bc + 1] - ce[bc]);
          EXPECT_FLOAT_EQ(h.mean[br * side + bc], static_cast<float>(3.0 / n));
        }
      }
      ASSERT_EQ(hits, 1) << r << "," << c;
    }
  }
}

TEST(AttentionHeatmaps, SingleSpikeLandsInTheRightCellOfEveryMap) {
  AttentionProblem p = AttentionShape(2, 1, 5, 5, 3);
  std::vector<float> err(p.QElements(), 0.f);
  err[(1 * 5 + 3) * 3 + 2] = 7.f;  // b=1, s=3, d=2
  const std::vector<Heatmap> maps = AttentionHeatmaps(p, err.data(), /*block_m=*/2, /*max_side=*/2);
  ASSERT_EQ(maps.size(), 4u);

  const Heatmap* pos = Find(maps, "position_x_dim");
  ASSERT_NE(pos, nullptr);
  ASSERT_EQ(pos->rows, 2);  // Sq 5 -> [0,2) [2,5)
  ASSERT_EQ(pos->cols, 2);  // D 3 -> [0,1) [1,3)
  EXPECT_EQ(pos->max[1 * 2 + 1], 7.f);
  EXPECT_FLOAT_EQ(pos->mean[1 * 2 + 1], 7.f / (3 * 2 * 2));  // 3 positions × 2 dims × 2 heads
  EXPECT_EQ(pos->max[0], 0.f);
  EXPECT_EQ(pos->row_axis, "query position");

  const Heatmap* prof = Find(maps, "sequence_profile");
  ASSERT_NE(prof, nullptr);
  ASSERT_EQ(prof->rows, 1);
  ASSERT_EQ(prof->cols, 5);  // the profile may have 4 x max_side columns, more than the maps
  EXPECT_EQ(prof->max[3], 7.f);
  EXPECT_FLOAT_EQ(prof->mean[3], 7.f / 6);  // 2 heads × 3 dims
  EXPECT_EQ(prof->max[2], 0.f);

  const Heatmap* fold = Find(maps, "tile_fold");
  ASSERT_NE(fold, nullptr);
  ASSERT_EQ(fold->rows, 2);  // s mod 2
  ASSERT_EQ(fold->cols, 2);
  EXPECT_EQ(fold->src_rows, 2);
  EXPECT_EQ(fold->max[1 * 2 + 1], 7.f);
  EXPECT_FLOAT_EQ(fold->mean[1 * 2 + 1], 7.f / 8);  // s in {1,3} × d in {1,2} × 2 heads
  EXPECT_FLOAT_EQ(fold->mean[0], 0.f);

  const Heatmap* head = Find(maps, "per_head");
  ASSERT_NE(head, nullptr);
  ASSERT_EQ(head->rows, 2);
  ASSERT_EQ(head->cols, 2);
  EXPECT_EQ(head->max[1 * 2 + 1], 7.f);
  EXPECT_FLOAT_EQ(head->mean[1 * 2 + 1], 7.f / 9);  // s in [2,5) × 3 dims
  EXPECT_EQ(head->max[0 * 2 + 1], 0.f);
}

TEST(AttentionHeatmaps, SizesOfLongSequences) {
  AttentionProblem p;
  p.seq_q = 3000;
  p.seq_k = 3000;
  p.head_dim = 64;
  std::vector<float> err(p.QElements(), 0.5f);
  const std::vector<Heatmap> maps = AttentionHeatmaps(p, err.data(), 128);
  EXPECT_EQ(Find(maps, "position_x_dim")->rows, 256);
  EXPECT_EQ(Find(maps, "position_x_dim")->cols, 64);
  EXPECT_EQ(Find(maps, "sequence_profile")->cols, 1024);
  EXPECT_EQ(Find(AttentionHeatmaps(p, err.data(), 128, 16), "sequence_profile")->cols, 64);
  EXPECT_EQ(Find(maps, "tile_fold")->rows, 128);
  EXPECT_EQ(Find(maps, "per_head")->rows, 1);
  EXPECT_EQ(Find(maps, "per_head")->cols, 256);
  for (const Heatmap& h : maps) {
    for (float m : h.mean) ASSERT_FLOAT_EQ(m, 0.5f) << h.kind;
  }
  // Sequence shorter than the tile: the fold has only the rows that exist; no tile fold at 0.
  p.seq_q = 17;
  std::vector<float> small(p.QElements(), 1.f);
  EXPECT_EQ(Find(AttentionHeatmaps(p, small.data(), 64), "tile_fold")->rows, 17);
  EXPECT_EQ(Find(AttentionHeatmaps(p, small.data(), 0), "tile_fold"), nullptr);
}

TEST(GemmHeatmaps, PositionAndTileFold) {
  GemmProblem p;
  p.m = 3;
  p.n = 5;
  p.k = 1;
  std::vector<float> err(15);
  for (int i = 0; i < 15; ++i) err[i] = static_cast<float>(i);
  const std::vector<Heatmap> maps = GemmHeatmaps(p, err.data(), 2, 2);
  ASSERT_EQ(maps.size(), 2u);
  const Heatmap* pos = Find(maps, "position");
  ASSERT_EQ(pos->rows, 3);
  ASSERT_EQ(pos->cols, 5);
  EXPECT_EQ(pos->max, err);
  const Heatmap* fold = Find(maps, "tile_fold");
  ASSERT_EQ(fold->rows, 2);
  ASSERT_EQ(fold->cols, 2);
  // (0,0) gathers (m,n) in {0,2} × {0,2,4}: values 0,2,4,10,12,14.
  EXPECT_EQ(fold->max[0], 14.f);
  EXPECT_FLOAT_EQ(fold->mean[0], 42.f / 6);
  // (1,1) gathers m=1, n in {1,3}: values 6, 8.
  EXPECT_EQ(fold->max[3], 8.f);
  EXPECT_FLOAT_EQ(fold->mean[3], 7.f);
  EXPECT_EQ(fold->row_axis, "m mod 2");
}

}  // namespace
}  // namespace flashscope::verify
