#include "verify/heatmap.h"

#include <algorithm>
#include <utility>

namespace flashscope::verify {
namespace {

// The profile is one row, so it can afford more columns than a square map: 4 x max_side,
// never more than 1024 (a small max_side is asked for to keep reports small).
int64_t ProfileMaxCols(int max_side) { return std::min<int64_t>(1024, 4 * int64_t{max_side}); }

// For each source index, the bin it falls in.
std::vector<int> BinOf(int64_t n, int64_t max_bins) {
  const std::vector<int64_t> edges = BinEdges(n, max_bins);
  std::vector<int> bin(static_cast<size_t>(n));
  for (size_t b = 0; b + 1 < edges.size(); ++b) {
    for (int64_t i = edges[b]; i < edges[b + 1]; ++i) bin[i] = static_cast<int>(b);
  }
  return bin;
}

}  // namespace

std::vector<int64_t> BinEdges(int64_t n, int64_t max_bins) {
  const int64_t k = std::max<int64_t>(1, std::min(n, max_bins));
  std::vector<int64_t> edges(static_cast<size_t>(k + 1));
  // floor(b·n/k) is strictly increasing for k <= n, so no bin is empty.
  for (int64_t b = 0; b <= k; ++b) edges[b] = b * n / k;
  return edges;
}

ErrorGrid::ErrorGrid(int64_t r, int64_t c)
    : rows(r),
      cols(c),
      max(static_cast<size_t>(r * c), 0.f),
      sum(static_cast<size_t>(r * c), 0.0),
      count(static_cast<size_t>(r * c), 0) {}

Heatmap BinGrid(const ErrorGrid& g, int64_t max_rows, int64_t max_cols, std::string kind,
                std::string row_axis, std::string col_axis) {
  Heatmap h;
  h.kind = std::move(kind);
  h.row_axis = std::move(row_axis);
  h.col_axis = std::move(col_axis);
  h.src_rows = g.rows;
  h.src_cols = g.cols;
  if (g.rows == 0 || g.cols == 0) return h;
  const std::vector<int> rbin = BinOf(g.rows, max_rows);
  const std::vector<int> cbin = BinOf(g.cols, max_cols);
  h.rows = rbin.back() + 1;
  h.cols = cbin.back() + 1;
  const size_t cells = static_cast<size_t>(h.rows) * h.cols;
  h.max.assign(cells, 0.f);
  std::vector<double> sum(cells, 0.0);
  std::vector<int64_t> count(cells, 0);
  for (int64_t r = 0; r < g.rows; ++r) {
    for (int64_t c = 0; c < g.cols; ++c) {
      const int64_t src = r * g.cols + c;
      const size_t dst = static_cast<size_t>(rbin[r]) * h.cols + cbin[c];
      h.max[dst] = std::max(h.max[dst], g.max[src]);
      sum[dst] += g.sum[src];
      count[dst] += g.count[src];
    }
  }
  h.mean.resize(cells);
  for (size_t i = 0; i < cells; ++i) {
    h.mean[i] = count[i] > 0 ? static_cast<float>(sum[i] / count[i]) : 0.f;
  }
  return h;
}

std::vector<Heatmap> AttentionHeatmaps(const AttentionProblem& p, const float* abs_err, int block_m,
                                       int max_side) {
  const int64_t bh_count = p.batch * p.heads, sq = p.seq_q, d = p.head_dim;
  ErrorGrid pos(sq, d), profile(1, sq), per_head(bh_count, sq);
  const int64_t fold_rows = block_m > 0 ? std::min<int64_t>(block_m, sq) : 0;
  ErrorGrid fold(fold_rows, fold_rows > 0 ? d : 0);
  for (int64_t bh = 0; bh < bh_count; ++bh) {
    for (int64_t s = 0; s < sq; ++s) {
      const float* row = abs_err + (bh * sq + s) * d;
      for (int64_t c = 0; c < d; ++c) {
        const float e = row[c];
        pos.Add(s, c, e);
        profile.Add(0, s, e);
        per_head.Add(bh, s, e);
        if (fold_rows > 0) fold.Add(s % block_m, c, e);
      }
    }
  }
  std::vector<Heatmap> maps;
  maps.push_back(BinGrid(pos, max_side, max_side, "position_x_dim", "query position", "head dim"));
  maps.push_back(BinGrid(profile, 1, ProfileMaxCols(max_side), "sequence_profile",
                         "all heads and dims", "query position"));
  if (fold_rows > 0) {
    maps.push_back(BinGrid(fold, max_side, max_side, "tile_fold",
                           "query position mod " + std::to_string(block_m), "head dim"));
  }
  maps.push_back(
      BinGrid(per_head, max_side, max_side, "per_head", "batch x head", "query position"));
  return maps;
}

std::vector<Heatmap> GemmHeatmaps(const GemmProblem& p, const float* abs_err, int block_m,
                                  int block_n, int max_side) {
  ErrorGrid pos(p.m, p.n);
  const bool do_fold = block_m > 0 && block_n > 0;
  const int64_t fr = do_fold ? std::min<int64_t>(block_m, p.m) : 0;
  const int64_t fc = do_fold ? std::min<int64_t>(block_n, p.n) : 0;
  ErrorGrid fold(fr, fc);
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      const float e = abs_err[i * p.n + j];
      pos.Add(i, j, e);
      if (do_fold) fold.Add(i % block_m, j % block_n, e);
    }
  }
  std::vector<Heatmap> maps;
  maps.push_back(BinGrid(pos, max_side, max_side, "position", "m (row of C)", "n (column of C)"));
  if (do_fold) {
    maps.push_back(BinGrid(fold, max_side, max_side, "tile_fold",
                           "m mod " + std::to_string(block_m), "n mod " + std::to_string(block_n)));
  }
  return maps;
}

}  // namespace flashscope::verify
