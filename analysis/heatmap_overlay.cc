#include "analysis/heatmap_overlay.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace flashscope::reports {

bool IsSaturatedCell(float max) {
  return !std::isfinite(max) || max >= std::numeric_limits<float>::max();
}
namespace {

// "query position mod 128" -> 128; 0 when the axis is not a fold.
int FoldModulus(const std::string& axis) {
  const size_t at = axis.rfind(" mod ");
  int n = 0;
  if (at == std::string::npos || !absl::SimpleAtoi(axis.substr(at + 5), &n)) return 0;
  return n;
}

int64_t Param(const CaseResult& c, const char* name) {
  auto it = c.params.find(name);
  int64_t v = 0;
  if (it == c.params.end() || !absl::SimpleAtoi(it->second, &v)) return 0;
  return v;
}

// Keeps every stride-th of `lines` when there are more than `max_lines`; returns the stride.
int Thin(int max_lines, std::vector<double>* lines) {
  const int n = static_cast<int>(lines->size());
  if (max_lines < 1 || n <= max_lines) return 1;
  const int stride = (n + max_lines - 1) / max_lines;
  std::vector<double> kept;
  for (int i = 0; i < n; ++i) {
    if ((i + 1) % stride == 0) kept.push_back((*lines)[i]);
  }
  *lines = std::move(kept);
  return stride;
}

std::string Every(int stride) {
  return stride == 1 ? "a line at each boundary"
                     : absl::StrCat("a line every ", stride, " boundaries (a dense map)");
}

// An axis along `size` positions of the output, drawn on `cells` cells, tiled by `tile`.
// `what` names the positions ("query rows"). Adds its legend lines.
AxisOverlay PositionAxis(int64_t size, int64_t cells, int tile, const std::string& what,
                         int max_lines, std::vector<std::string>* legend) {
  AxisOverlay a;
  if (size <= 0 || cells <= 0 || tile <= 1) return a;
  const double scale = static_cast<double>(cells) / size;
  for (int64_t p = tile; p < size; p += tile) a.tile_lines.push_back(p * scale);
  a.stride = Thin(max_lines, &a.tile_lines);
  if (!a.tile_lines.empty()) {
    legend->push_back(absl::StrCat("tile: ", tile, " ", what, "; ", Every(a.stride)));
  }
  if (const int64_t rest = size % tile; rest != 0 && size > tile) {
    a.partial = CellSpan{(size - rest) * scale, static_cast<double>(cells)};
    legend->push_back(absl::StrCat("last partial tile: ", what, " ", size - rest, "..", size - 1,
                                   " (", rest, " of ", tile, "; shaded)"));
  }
  return a;
}

// A fold of `size` positions by `tile` on `cells` cells: what the last partial tile lacks.
AxisOverlay FoldAxis(int64_t size, int64_t cells, int tile, const std::string& what,
                     std::vector<std::string>* legend) {
  AxisOverlay a;
  const int64_t rest = tile > 1 ? size % tile : 0;
  if (cells <= 0 || rest == 0 || size < tile) return a;
  a.partial = CellSpan{rest * static_cast<double>(cells) / tile, static_cast<double>(cells)};
  legend->push_back(absl::StrCat(what, " ", rest, "..", tile - 1,
                                 " mod the tile: the last partial tile does not reach them "
                                 "(shaded; one tile fewer adds up there)"));
  return a;
}

// Causal attention: query row q sees keys up to q + (Sk - Sq); the diagonal enters key tile j
// at q = j·block_n - (Sk - Sq).
void AddDiagonal(const CaseResult& c, int block_n, int64_t cells, int max_lines, AxisOverlay* query,
                 std::vector<std::string>* legend) {
  const int64_t sq = Param(c, "Sq"), sk = Param(c, "Sk");
  auto causal = c.params.find("causal");
  if (causal == c.params.end() || causal->second != "true" || block_n <= 1 || sq <= 0) return;
  const double scale = static_cast<double>(cells) / sq;
  for (int64_t key = block_n; key - (sk - sq) < sq; key += block_n) {
    const int64_t q = key - (sk - sq);
    if (q > 0) query->diagonal_lines.push_back(q * scale);
  }
  const int stride = Thin(max_lines, &query->diagonal_lines);
  if (query->diagonal_lines.empty()) return;
  legend->push_back(absl::StrCat("causal: the diagonal enters a new ", block_n,
                                 "-key tile at the dashed lines",
                                 stride == 1 ? "" : absl::StrCat(" (one per ", stride, ")")));
}

}  // namespace

bool HeatmapOverlay::Any() const {
  for (const AxisOverlay* a : {&rows, &cols}) {
    if (!a->tile_lines.empty() || !a->diagonal_lines.empty() || a->partial) return true;
  }
  return false;
}

std::optional<TileRecord> TileOf(const CaseResult& c) {
  if (c.tile) return c.tile;
  if (!c.verification) return std::nullopt;
  for (const HeatmapRecord& h : c.verification->heatmaps) {
    if (h.kind != "tile_fold") continue;
    const int m = FoldModulus(h.row_axis), n = FoldModulus(h.col_axis);
    if (m > 0) return TileRecord{m, n};  // block_n 0: not known (attention folds by rows only)
  }
  return std::nullopt;
}

HeatmapOverlay BuildHeatmapOverlay(const CaseResult& c, const HeatmapRecord& h, int max_lines) {
  HeatmapOverlay o;
  const std::optional<TileRecord> tile = TileOf(c);
  if (!tile) return o;
  std::vector<std::string>& legend = o.legend;
  if (c.family == "attention_fwd") {
    const int64_t sq = Param(c, "Sq");
    if (h.kind == "position_x_dim") {
      o.rows = PositionAxis(sq, h.rows, tile->block_m, "query rows", max_lines, &legend);
      AddDiagonal(c, tile->block_n, h.rows, max_lines, &o.rows, &legend);
    } else if (h.kind == "sequence_profile" || h.kind == "per_head") {
      o.cols = PositionAxis(sq, h.cols, tile->block_m, "query rows", max_lines, &legend);
      AddDiagonal(c, tile->block_n, h.cols, max_lines, &o.cols, &legend);
    } else if (h.kind == "tile_fold") {
      o.rows = FoldAxis(sq, h.rows, tile->block_m, "query rows", &legend);
    }
  } else if (c.family == "gemm") {
    const int64_t m = Param(c, "M"), n = Param(c, "N");
    if (h.kind == "position") {
      o.rows = PositionAxis(m, h.rows, tile->block_m, "rows of C", max_lines, &legend);
      o.cols = PositionAxis(n, h.cols, tile->block_n, "columns of C", max_lines, &legend);
    } else if (h.kind == "tile_fold") {
      o.rows = FoldAxis(m, h.rows, tile->block_m, "rows", &legend);
      o.cols = FoldAxis(n, h.cols, tile->block_n, "columns", &legend);
    }
  }
  return o;
}

}  // namespace flashscope::reports
