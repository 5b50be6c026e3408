#include "verify/heatmap.h"

#include <algorithm>
#include <utility>

namespace flashscope::verify {
namespace {

// The profile is one row, so it can afford more columns than a square map: 4 x max_side,
// never more than 1024 (a small max_side is asked for to keep reports small).
int64_t ProfileMaxCols(int max_side) { return std::min<int64_t>(1024, 4 * int64_t{max_side}); }

// For each source index, the bin it falls in.
std::vector<int64_t> BinOf(int64_t n, int64_t max_bins) {
  const std::vector<int64_t> edges = BinEdges(n, max_bins);
  std::vector<int64_t> bin(static_cast<size_t>(n));
  for (size_t b = 0; b + 1 < edges.size(); ++b) {
    for (int64_t i = edges[b]; i < edges[b + 1]; ++i) bin[i] = static_cast<int64_t>(b);
  }
  return bin;
}

// A map of src_rows × src_cols binned to at most max_rows × max_cols cells; `row_bin` and
// `col_bin` say which bin each source row and column falls in.
struct Binned {
  Heatmap shape;
  std::vector<int64_t> row_bin, col_bin;
};

Binned Bin(int64_t src_rows, int64_t src_cols, int64_t max_rows, int64_t max_cols, std::string kind,
           std::string row_axis, std::string col_axis) {
  Binned b;
  b.shape.kind = std::move(kind);
  b.shape.row_axis = std::move(row_axis);
  b.shape.col_axis = std::move(col_axis);
  b.shape.src_rows = src_rows;
  b.shape.src_cols = src_cols;
  b.row_bin = BinOf(src_rows, max_rows);
  b.col_bin = BinOf(src_cols, max_cols);
  b.shape.rows = static_cast<int>(b.row_bin.back() + 1);
  b.shape.cols = static_cast<int>(b.col_bin.back() + 1);
  return b;
}

// A map whose source cell of element (row, col) is (src_row(row % period, col),
// src_col(row % period, col)), split into the part that depends on the row and the part that
// depends on the column: `row_cell(r)` and `col_cell(c)` return cell offsets that add up.
template <typename RowCell, typename ColCell>
MapLayout Layout(Binned b, int64_t period, int64_t row_length, RowCell row_cell, ColCell col_cell) {
  MapLayout m;
  m.row_period = period;
  m.row_part.resize(static_cast<size_t>(period));
  for (int64_t r = 0; r < period; ++r) m.row_part[r] = row_cell(b, r);
  m.col_part.resize(static_cast<size_t>(row_length));
  for (int64_t c = 0; c < row_length; ++c) m.col_part[c] = col_cell(b, c);
  m.shape = std::move(b.shape);
  return m;
}

int64_t NoCell(const Binned&, int64_t) { return 0; }

}  // namespace

std::vector<int64_t> BinEdges(int64_t n, int64_t max_bins) {
  const int64_t k = std::max<int64_t>(1, std::min(n, max_bins));
  std::vector<int64_t> edges(static_cast<size_t>(k + 1));
  // floor(b·n/k) is strictly increasing for k <= n, so no bin is empty.
  for (int64_t b = 0; b <= k; ++b) edges[b] = b * n / k;
  return edges;
}

HeatmapAccumulator HeatmapAccumulator::ForAttention(const AttentionProblem& p, int block_m,
                                                    int max_side) {
  HeatmapAccumulator h;
  const int64_t bh = p.batch * p.heads, sq = p.seq_q, d = p.head_dim;
  if (bh <= 0 || sq <= 0 || d <= 0) return h;  // no elements, no maps
  h.rows_ = bh * sq;
  h.row_length_ = d;
  // Rows of the output are (b·H + h)·Sq + s: the query position is row % Sq.
  auto row_of_seq = [](const Binned& b, int64_t s) { return b.row_bin[s] * b.shape.cols; };
  auto col_of_dim = [](const Binned& b, int64_t c) { return b.col_bin[c]; };
  h.maps_.push_back(
      Layout(Bin(sq, d, max_side, max_side, "position_x_dim", "query position", "head dim"), sq, d,
             row_of_seq, col_of_dim));
  h.maps_.push_back(Layout(
      Bin(1, sq, 1, ProfileMaxCols(max_side), "sequence_profile", "all heads and dims",
          "query position"),
      sq, d, [](const Binned& b, int64_t s) { return b.col_bin[s]; }, NoCell));
  const int64_t fold_rows = block_m > 0 ? std::min<int64_t>(block_m, sq) : 0;
  if (fold_rows > 0) {
    h.maps_.push_back(Layout(
        Bin(fold_rows, d, max_side, max_side, "tile_fold",
            "query position mod " + std::to_string(block_m), "head dim"),
        sq, d,
        [block_m](const Binned& b, int64_t s) { return b.row_bin[s % block_m] * b.shape.cols; },
        col_of_dim));
  }
  h.maps_.push_back(Layout(
      Bin(bh, sq, max_side, max_side, "per_head", "batch x head", "query position"), h.rows_, d,
      [sq](const Binned& b, int64_t row) {
        return b.row_bin[row / sq] * b.shape.cols + b.col_bin[row % sq];
      },
      NoCell));
  return h;
}

HeatmapAccumulator HeatmapAccumulator::ForGemm(const GemmProblem& p, int block_m, int block_n,
                                               int max_side) {
  HeatmapAccumulator h;
  if (p.m <= 0 || p.n <= 0) return h;  // no elements, no maps
  h.rows_ = p.m;
  h.row_length_ = p.n;
  h.maps_.push_back(Layout(
      Bin(p.m, p.n, max_side, max_side, "position", "m (row of C)", "n (column of C)"), p.m, p.n,
      [](const Binned& b, int64_t i) { return b.row_bin[i] * b.shape.cols; },
      [](const Binned& b, int64_t j) { return b.col_bin[j]; }));
  if (block_m > 0 && block_n > 0) {
    const int64_t fr = std::min<int64_t>(block_m, p.m), fc = std::min<int64_t>(block_n, p.n);
    h.maps_.push_back(Layout(
        Bin(fr, fc, max_side, max_side, "tile_fold", "m mod " + std::to_string(block_m),
            "n mod " + std::to_string(block_n)),
        fr, p.n, [](const Binned& b, int64_t r) { return b.row_bin[r] * b.shape.cols; },
        [block_n](const Binned& b, int64_t j) { return b.col_bin[j % block_n]; }));
  }
  return h;
}

int64_t HeatmapAccumulator::Bytes(int chunks) const {
  int64_t cells = 0, layout = 0;
  for (const MapLayout& m : maps_) {
    cells += int64_t{m.shape.rows} * m.shape.cols;
    layout += static_cast<int64_t>((m.row_part.size() + m.col_part.size()) * sizeof(int64_t));
  }
  constexpr int64_t kCellBytes = sizeof(float) + sizeof(double) + sizeof(int64_t);
  return layout + int64_t{chunks} * cells * kCellBytes;
}

void HeatmapAccumulator::Begin(int chunks) {
  chunks_.assign(static_cast<size_t>(std::max(chunks, 1)), std::vector<Partial>(maps_.size()));
  for (std::vector<Partial>& parts : chunks_) {
    for (size_t m = 0; m < maps_.size(); ++m) {
      const size_t cells = static_cast<size_t>(maps_[m].shape.rows) * maps_[m].shape.cols;
      parts[m].max.assign(cells, 0.f);
      parts[m].sum.assign(cells, 0.0);
      parts[m].count.assign(cells, 0);
    }
  }
}

HeatmapAccumulator::Cursor HeatmapAccumulator::Start(int chunk, int64_t first) {
  Cursor c;
  c.owner_ = this;
  c.map_count_ = static_cast<int>(maps_.size());
  c.row_length_ = row_length_;
  c.row_ = first / row_length_;
  c.col_ = first % row_length_;
  std::vector<Partial>& parts = chunks_[chunk];
  for (int m = 0; m < c.map_count_; ++m) {
    c.col_part_[m] = maps_[m].col_part.data();
    c.max_[m] = parts[m].max.data();
    c.sum_[m] = parts[m].sum.data();
    c.count_[m] = parts[m].count.data();
    c.row_cell_[m] = maps_[m].row_part[c.row_ % maps_[m].row_period];
  }
  return c;
}

void HeatmapAccumulator::Cursor::NextRow() {
  col_ = 0;
  ++row_;
  for (int m = 0; m < map_count_; ++m) {
    const MapLayout& map = owner_->maps_[m];
    row_cell_[m] = map.row_part[row_ % map.row_period];
  }
}

std::vector<Heatmap> HeatmapAccumulator::Finish() const {
  std::vector<Heatmap> out;
  for (size_t m = 0; m < maps_.size(); ++m) {
    Heatmap h = maps_[m].shape;
    const size_t cells = static_cast<size_t>(h.rows) * h.cols;
    h.max.assign(cells, 0.f);
    std::vector<double> sum(cells, 0.0);
    std::vector<int64_t> count(cells, 0);
    for (const std::vector<Partial>& parts : chunks_) {
      const Partial& p = parts[m];
      for (size_t i = 0; i < cells; ++i) {
        h.max[i] = std::max(h.max[i], p.max[i]);
        sum[i] += p.sum[i];
        count[i] += p.count[i];
      }
    }
    h.mean.resize(cells);
    for (size_t i = 0; i < cells; ++i) {
      h.mean[i] = count[i] > 0 ? static_cast<float>(sum[i] / count[i]) : 0.f;
    }
    out.push_back(std::move(h));
  }
  return out;
}

namespace {

std::vector<Heatmap> FromErrors(HeatmapAccumulator h, const float* abs_err) {
  h.Begin(1);
  HeatmapAccumulator::Cursor c = h.Start(0, 0);
  for (int64_t i = 0; i < h.elements(); ++i) c.Add(abs_err[i]);
  return h.Finish();
}

}  // namespace

std::vector<Heatmap> AttentionHeatmaps(const AttentionProblem& p, const float* abs_err, int block_m,
                                       int max_side) {
  return FromErrors(HeatmapAccumulator::ForAttention(p, block_m, max_side), abs_err);
}

std::vector<Heatmap> GemmHeatmaps(const GemmProblem& p, const float* abs_err, int block_m,
                                  int block_n, int max_side) {
  return FromErrors(HeatmapAccumulator::ForGemm(p, block_m, block_n, max_side), abs_err);
}

}  // namespace flashscope::verify
