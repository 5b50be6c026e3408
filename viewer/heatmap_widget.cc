#include "viewer/heatmap_widget.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

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

}  // namespace

void DrawHeatmapPanel(ViewerState& s, const reports::CaseResult& c) {
  if (!c.verification || c.verification->heatmaps.empty()) {
    ImGui::TextDisabled("no heatmaps in this case (not verified, or recorded without them)");
    return;
  }
  const auto& maps = c.verification->heatmaps;
  s.heatmap_index = std::clamp(s.heatmap_index, 0, int(maps.size()) - 1);
  for (size_t i = 0; i < maps.size(); ++i) {
    if (i) ImGui::SameLine();
    if (ImGui::RadioButton(maps[i].kind.c_str(), s.heatmap_index == int(i))) {
      s.heatmap_index = int(i);
      s.heatmap_zoom = 1;
      s.heatmap_pan[0] = s.heatmap_pan[1] = 0;
    }
  }
  ImGui::SameLine(0, 24);
  ImGui::Checkbox("mean (else max)", &s.heatmap_mean);
  ImGui::SameLine();
  ImGui::Checkbox("log", &s.heatmap_log);
  ImGui::SameLine();
  if (ImGui::SmallButton("reset zoom")) {
    s.heatmap_zoom = 1;
    s.heatmap_pan[0] = s.heatmap_pan[1] = 0;
  }
  const reports::HeatmapRecord& h = maps[size_t(s.heatmap_index)];
  ImGui::TextDisabled("rows: %s (%lld -> %d)   cols: %s (%lld -> %d)   wheel: zoom, drag: pan",
                      h.row_axis.c_str(), (long long)h.src_rows, h.rows, h.col_axis.c_str(),
                      (long long)h.src_cols, h.cols);

  // Textures are cached per report version, case, heatmap, value and scale.
  if (s.textures_generation != s.CurrentGeneration()) {
    s.textures.Clear();
    s.heatmap_key.clear();
    s.textures_generation = s.CurrentGeneration();
  }
  char key[128];
  std::snprintf(key, sizeof key, "%d/%d/%d/%d/%d", s.report_index, s.selected_case, s.heatmap_index,
                int(s.heatmap_mean), int(s.heatmap_log));
  if (s.heatmap_key != key) {
    s.heatmap_image = BuildHeatmapImage(h, s.heatmap_mean, s.heatmap_log);
    s.heatmap_key = key;
  }
  const HeatmapImage& img = s.heatmap_image;
  if (!img.error.empty()) {
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", img.error.c_str());
    return;
  }
  std::string err;
  uint32_t tex = s.textures.Get(key, img.width, img.height, img.rgba, &err);
  if (!tex) {
    ImGui::TextColored(ImVec4(1, 0.4f, 0.4f, 1), "%s", err.c_str());
    return;
  }

  ImVec2 avail = ImGui::GetContentRegionAvail();
  float bar_w = 90;
  PlotArea a = BeginPlotArea("##heat", ImVec2(std::max(50.f, avail.x - bar_w), avail.y));
  ImGuiIO& io = ImGui::GetIO();
  float vis_cols = float(h.cols) / s.heatmap_zoom, vis_rows = float(h.rows) / s.heatmap_zoom;
  auto cell_at = [&](ImVec2 p, float* col, float* row) {
    *col = s.heatmap_pan[0] + (p.x - a.min.x) / a.Width() * vis_cols;
    *row = s.heatmap_pan[1] + (p.y - a.min.y) / a.Height() * vis_rows;
  };
  if (a.hovered && io.MouseWheel != 0) {
    float mc, mr;
    cell_at(io.MousePos, &mc, &mr);
    s.heatmap_zoom = std::clamp(s.heatmap_zoom * std::pow(1.25f, io.MouseWheel), 1.f, 256.f);
    vis_cols = float(h.cols) / s.heatmap_zoom;
    vis_rows = float(h.rows) / s.heatmap_zoom;
    // Keep the cell under the cursor where it was.
    s.heatmap_pan[0] = mc - (io.MousePos.x - a.min.x) / a.Width() * vis_cols;
    s.heatmap_pan[1] = mr - (io.MousePos.y - a.min.y) / a.Height() * vis_rows;
  }
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(0)) {
    s.heatmap_pan[0] -= io.MouseDelta.x / a.Width() * vis_cols;
    s.heatmap_pan[1] -= io.MouseDelta.y / a.Height() * vis_rows;
  }
  s.heatmap_pan[0] = std::clamp(s.heatmap_pan[0], 0.f, float(h.cols) - vis_cols);
  s.heatmap_pan[1] = std::clamp(s.heatmap_pan[1], 0.f, float(h.rows) - vis_rows);
  ImVec2 uv0(s.heatmap_pan[0] / float(h.cols), s.heatmap_pan[1] / float(h.rows));
  ImVec2 uv1(uv0.x + vis_cols / float(h.cols), uv0.y + vis_rows / float(h.rows));
  ImGui::GetWindowDrawList()->AddImage(ImTextureID(intptr_t(tex)), a.min, a.max, uv0, uv1);
  DrawColourBar(ImVec2(a.max.x + 8, a.min.y), ImVec2(a.max.x + 28, a.max.y), img);

  if (a.hovered) {
    float fc, fr;
    cell_at(io.MousePos, &fc, &fr);
    int col = std::clamp(int(fc), 0, h.cols - 1), row = std::clamp(int(fr), 0, h.rows - 1);
    size_t i = size_t(row) * size_t(h.cols) + size_t(col);
    // Each cell aggregates a block of source rows and columns; show the block's range.
    long long r0 = (long long)(row * h.src_rows / h.rows);
    long long r1 = (long long)((row + 1) * h.src_rows / h.rows) - 1;
    long long c0 = (long long)(col * h.src_cols / h.cols);
    long long c1 = (long long)((col + 1) * h.src_cols / h.cols) - 1;
    ImGui::SetTooltip("%s %lld..%lld, %s %lld..%lld\nmax %.4g   mean %.4g", h.row_axis.c_str(), r0,
                      std::max(r0, r1), h.col_axis.c_str(), c0, std::max(c0, c1),
                      i < h.max.size() ? h.max[i] : NAN, i < h.mean.size() ? h.mean[i] : NAN);
  }
}

}  // namespace flashscope::viewer
