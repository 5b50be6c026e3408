#include "viewer/heatmap_widget.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/heatmap_overlay.h"
#include "viewer/colormap.h"
#include "viewer/plot_helpers.h"

namespace flashscope::viewer {
namespace {

void DrawColourBar(ImVec2 min, ImVec2 max, const HeatmapImage& img) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const auto& table = ColormapTable();
  constexpr int kSteps = 64;
  float h = (max.y - min.y) / kSteps;
  for (int i = 0; i < kSteps; ++i) {
    // Top of the bar is the largest value.
    Rgb c = table[size_t(std::lround(255.0 * (kSteps - 1 - i) / (kSteps - 1)))];
    dl->AddRectFilled(ImVec2(min.x, min.y + h * i), ImVec2(max.x, min.y + h * (i + 1) + 1),
                      ToU32(c));
  }
  ImU32 white = IM_COL32(230, 230, 230, 255);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3g", img.hi);
  dl->AddText(ImVec2(max.x + 4, min.y), white, buf);
  std::snprintf(buf, sizeof buf, "%.3g", img.lo);
  dl->AddText(ImVec2(max.x + 4, max.y - ImGui::GetTextLineHeight()), white, buf);
  if (img.log_scale && img.hi > img.lo && img.lo > 0) {
    // Decade ticks between the ends.
    for (double d = std::ceil(std::log10(img.lo)); d < std::log10(img.hi); d += 1) {
      double t = ScalePosition(std::pow(10.0, d), img.lo, img.hi, true);
      float y = max.y - float(t) * (max.y - min.y);
      dl->AddLine(ImVec2(min.x - 3, y), ImVec2(max.x, y), white);
      std::snprintf(buf, sizeof buf, "1e%d", int(d));
      if (y > min.y + 14 && y < max.y - 14) dl->AddText(ImVec2(max.x + 4, y - 7), white, buf);
    }
  }
}

// Maps cell coordinates of the shown window onto the plot.
// Overlay lines land on whole pixels (ImGui centres a 1-pixel line there), so that they are drawn
// in their exact colour rather than smeared over two rows.
struct CellToScreen {
  PlotArea a;
  float pan_col, pan_row, vis_cols, vis_rows;
  float X(double col) const {
    return std::floor(a.min.x + float((col - pan_col) / vis_cols) * a.Width());
  }
  float Y(double row) const {
    return std::floor(a.min.y + float((row - pan_row) / vis_rows) * a.Height());
  }
};

void DashedLine(ImDrawList* dl, ImVec2 p0, ImVec2 p1, ImU32 colour) {
  const float len = std::hypot(p1.x - p0.x, p1.y - p0.y);
  if (len <= 0) return;
  const ImVec2 d((p1.x - p0.x) / len, (p1.y - p0.y) / len);
  for (float t = 0; t < len; t += 10) {
    const float e = std::min(len, t + 6);
    dl->AddLine(ImVec2(p0.x + d.x * t, p0.y + d.y * t), ImVec2(p0.x + d.x * e, p0.y + d.y * e),
                colour, 2);
  }
}

// Lines across the plot at `at` cells along one axis (`rows`: horizontal lines).
void AxisLines(ImDrawList* dl, const CellToScreen& m, const reports::AxisOverlay& axis, bool rows) {
  const ImVec2 lo = m.a.min, hi = m.a.max;
  auto inside = [&](float v) { return rows ? v > lo.y && v < hi.y : v > lo.x && v < hi.x; };
  if (axis.partial) {
    // The last partial tile: shaded, with an outline the screenshot tests can find.
    ImVec2 p0 =
        rows ? ImVec2(lo.x, m.Y(axis.partial->from)) : ImVec2(m.X(axis.partial->from), lo.y);
    ImVec2 p1 = rows ? ImVec2(hi.x, m.Y(axis.partial->to)) : ImVec2(m.X(axis.partial->to), hi.y);
    p0 = ImVec2(std::max(p0.x, lo.x), std::max(p0.y, lo.y));
    p1 = ImVec2(std::min(p1.x, hi.x), std::min(p1.y, hi.y));
    if (p1.x > p0.x && p1.y > p0.y) {
      dl->AddRectFilled(p0, p1, ToU32(palette::kPartialTile, 48));
      dl->AddRect(p0, p1, ToU32(palette::kPartialTile), 0, 0, 2);
    }
  }
  // The dashes first: where a crossing falls on a tile boundary, the boundary stays whole.
  for (double at : axis.diagonal_lines) {
    const float v = rows ? m.Y(at) : m.X(at);
    if (!inside(v)) continue;
    DashedLine(dl, rows ? ImVec2(lo.x, v) : ImVec2(v, lo.y),
               rows ? ImVec2(hi.x, v) : ImVec2(v, hi.y), ToU32(palette::kDiagonal));
  }
  for (double at : axis.tile_lines) {
    const float v = rows ? m.Y(at) : m.X(at);
    if (!inside(v)) continue;
    dl->AddLine(rows ? ImVec2(lo.x, v) : ImVec2(v, lo.y), rows ? ImVec2(hi.x, v) : ImVec2(v, hi.y),
                ToU32(palette::kTileLine));
  }
}

// Kind, max/mean, log, the kernel's structure, reset zoom.
void DrawControls(HeatmapView& v, const std::vector<reports::HeatmapRecord>& maps) {
  for (size_t i = 0; i < maps.size(); ++i) {
    if (i) ImGui::SameLine();
    if (ImGui::RadioButton(maps[i].kind.c_str(), v.index == int(i))) {
      v.index = int(i);
      v.ResetZoom();
    }
  }
  // The switches on their own line: the panel may be half a window wide (side by side).
  ImGui::Checkbox("mean (else max)", &v.mean);
  ImGui::SameLine();
  ImGui::Checkbox("log", &v.log);
  ImGui::SameLine();
  ImGui::Checkbox("tiles", &v.overlay);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip(
        "the kernel's tile boundaries, the last partial tile and, for causal "
        "attention, where the diagonal enters each key tile");
  }
  ImGui::SameLine();
  if (ImGui::SmallButton("reset zoom")) v.ResetZoom();
}

// Zoom around the cursor (wheel) and pan (drag); keeps the window inside the map.
void ZoomAndPan(HeatmapView& v, const PlotArea& a, const reports::HeatmapRecord& h) {
  ImGuiIO& io = ImGui::GetIO();
  float vis_cols = float(h.cols) / v.zoom, vis_rows = float(h.rows) / v.zoom;
  if (a.hovered && io.MouseWheel != 0) {
    const float mc = v.pan[0] + (io.MousePos.x - a.min.x) / a.Width() * vis_cols;
    const float mr = v.pan[1] + (io.MousePos.y - a.min.y) / a.Height() * vis_rows;
    v.zoom = std::clamp(v.zoom * std::pow(1.25f, io.MouseWheel), 1.f, 256.f);
    vis_cols = float(h.cols) / v.zoom;
    vis_rows = float(h.rows) / v.zoom;
    // Keep the cell under the cursor where it was.
    v.pan[0] = mc - (io.MousePos.x - a.min.x) / a.Width() * vis_cols;
    v.pan[1] = mr - (io.MousePos.y - a.min.y) / a.Height() * vis_rows;
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(0)) {
    v.pan[0] -= io.MouseDelta.x / a.Width() * vis_cols;
    v.pan[1] -= io.MouseDelta.y / a.Height() * vis_rows;
  }
  v.pan[0] = std::clamp(v.pan[0], 0.f, float(h.cols) - vis_cols);
  v.pan[1] = std::clamp(v.pan[1], 0.f, float(h.rows) - vis_rows);
}

void CellTooltip(const CellToScreen& m, const reports::HeatmapRecord& h) {
  const ImVec2 p = ImGui::GetIO().MousePos;
  const float fc = m.pan_col + (p.x - m.a.min.x) / m.a.Width() * m.vis_cols;
  const float fr = m.pan_row + (p.y - m.a.min.y) / m.a.Height() * m.vis_rows;
  int col = std::clamp(int(fc), 0, h.cols - 1), row = std::clamp(int(fr), 0, h.rows - 1);
  size_t i = size_t(row) * size_t(h.cols) + size_t(col);
  // Each cell aggregates a block of source rows and columns; show the block's range.
  long long r0 = (long long)(row * h.src_rows / h.rows);
  long long r1 = (long long)((row + 1) * h.src_rows / h.rows) - 1;
  long long c0 = (long long)(col * h.src_cols / h.cols);
  long long c1 = (long long)((col + 1) * h.src_cols / h.cols) - 1;
  if (i < h.max.size() && reports::IsSaturatedCell(h.max[i])) {
    ImGui::SetTooltip("%s %lld..%lld, %s %lld..%lld\nholds a never-written, NaN or Inf element",
                      h.row_axis.c_str(), r0, std::max(r0, r1), h.col_axis.c_str(), c0,
                      std::max(c0, c1));
    return;
  }
  ImGui::SetTooltip("%s %lld..%lld, %s %lld..%lld\nmax %.4g   mean %.4g", h.row_axis.c_str(), r0,
                    std::max(r0, r1), h.col_axis.c_str(), c0, std::max(c0, c1),
                    i < h.max.size() ? h.max[i] : NAN, i < h.mean.size() ? h.mean[i] : NAN);
}

}  // namespace

void DrawHeatmapPanel(HeatmapView& v, TextureCache& textures, const std::string& id,
                      const reports::CaseResult& c, bool controls, const ValueRange* range) {
  if (!c.verification || c.verification->heatmaps.empty()) {
    ImGui::TextDisabled("no heatmaps in this case (not verified, or recorded without them)");
    return;
  }
  ImGui::PushID(id.c_str());
  const auto& maps = c.verification->heatmaps;
  v.index = std::clamp(v.index, 0, int(maps.size()) - 1);
  if (controls) DrawControls(v, maps);
  const reports::HeatmapRecord& h = maps[size_t(v.index)];
  ImGui::TextDisabled("rows: %s (%lld -> %d)   cols: %s (%lld -> %d)   wheel: zoom, drag: pan",
                      h.row_axis.c_str(), (long long)h.src_rows, h.rows, h.col_axis.c_str(),
                      (long long)h.src_cols, h.cols);
  const reports::HeatmapOverlay overlay = reports::BuildHeatmapOverlay(c, h);
  if (v.overlay) {
    for (const std::string& line : overlay.legend) ImGui::TextDisabled("%s", line.c_str());
  }
  // Textures are cached per panel (report version and case in `id`), heatmap, value and scale.
  char key[256];
  std::snprintf(key, sizeof key, "%s/%d/%d/%d/%.9g/%.9g", id.c_str(), v.index, int(v.mean),
                int(v.log), range ? range->lo : -1.0, range ? range->hi : -1.0);
  if (v.image_key != key) {
    v.image = BuildHeatmapImage(h, v.mean, v.log, range);
    v.image_key = key;
  }
  std::string err = v.image.error;
  const uint32_t tex =
      err.empty() ? textures.Get(key, v.image.width, v.image.height, v.image.rgba, &err) : 0;
  if (!tex) {
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", err.c_str());
    ImGui::PopID();
    return;
  }
  if (v.image.saturated > 0) {
    const Rgb k = palette::kSaturated;
    ImGui::TextColored(ImVec4(k.r / 255.f, k.g / 255.f, k.b / 255.f, 1),
                       "%lld cells hold never-written, NaN or Inf elements (outside the scale)",
                       (long long)v.image.saturated);
  }
  ImVec2 avail = ImGui::GetContentRegionAvail();
  const float bar_w = 90;
  PlotArea a = BeginPlotArea("##heat", ImVec2(std::max(50.f, avail.x - bar_w), avail.y));
  ZoomAndPan(v, a, h);
  const CellToScreen m{a, v.pan[0], v.pan[1], float(h.cols) / v.zoom, float(h.rows) / v.zoom};
  ImVec2 uv0(v.pan[0] / float(h.cols), v.pan[1] / float(h.rows));
  ImVec2 uv1(uv0.x + m.vis_cols / float(h.cols), uv0.y + m.vis_rows / float(h.rows));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddImage(ImTextureID(intptr_t(tex)), a.min, a.max, uv0, uv1);
  if (v.overlay) {
    dl->PushClipRect(a.min, a.max, true);
    AxisLines(dl, m, overlay.rows, /*rows=*/true);
    AxisLines(dl, m, overlay.cols, /*rows=*/false);
    dl->PopClipRect();
  }
  DrawColourBar(ImVec2(a.max.x + 8, a.min.y), ImVec2(a.max.x + 28, a.max.y), v.image);
  if (a.hovered) CellTooltip(m, h);
  ImGui::PopID();
}

}  // namespace flashscope::viewer
