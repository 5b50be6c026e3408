// The roofline: each case with throughput at (arithmetic intensity, achieved TFLOPS) on log
// axes, under the ceilings measured by the run itself (matmul peaks per dtype, copy bandwidth)
// rather than datasheet numbers. Rungs are circles, peers squares; colour is the status.
#include <imgui.h>

#include <cmath>
#include <cstdio>

#include "viewer/chart_model.h"
#include "viewer/plot_helpers.h"
#include "viewer/viewer_state.h"

namespace flashscope::viewer {

void DrawRooflineView(ViewerState& s) {
  const reports::Report* r = s.CurrentReport();
  if (!r) {
    ImGui::TextWrapped("No report loaded; see the error panel above.");
    return;
  }
  static uint64_t cached_gen = 0;
  static Roofline rl;
  if (cached_gen != s.CurrentGeneration()) {
    rl = BuildRoofline(*r);
    cached_gen = s.CurrentGeneration();
  }
  ImGui::Text(
      "ceilings measured in this run: fp16 %.0f TFLOPS, bf16 %.0f TFLOPS, copy %.0f GB/s "
      "%s",
      rl.peak_fp16_tflops, rl.peak_bf16_tflops, rl.bandwidth_gbps,
      rl.ceilings.empty() ? "(missing peaks: ceilings not drawn)" : "");
  if (!rl.note.Text().empty()) ImGui::TextWrapped("%s", rl.note.Text().c_str());
  PlotArea a = BeginPlotArea("##roof", ImVec2(0, 0));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float left = a.min.x + 56, right = a.max.x - 16, top = a.min.y + 12;
  float bottom = a.max.y - 2 * ImGui::GetTextLineHeight();
  // The model's axes are whole decades, finite and bounded (analysis/chart_model.h).
  const double lx0 = std::log10(rl.intensity.min), lx1 = std::log10(rl.intensity.max);
  const double ly0 = std::log10(rl.tflops.min), ly1 = std::log10(rl.tflops.max);
  auto X = [&](double ai) {
    return left + float((std::log10(ai) - lx0) / (lx1 - lx0)) * (right - left);
  };
  auto Y = [&](double tf) {
    return bottom - float((std::log10(tf) - ly0) / (ly1 - ly0)) * (bottom - top);
  };
  ImU32 grid = IM_COL32(60, 60, 70, 255), text = IM_COL32(220, 220, 220, 255);
  char buf[96];
  for (double tick : rl.intensity.ticks) {
    float x = X(tick);
    dl->AddLine(ImVec2(x, top), ImVec2(x, bottom), grid);
    std::snprintf(buf, sizeof buf, "%g", tick);
    TextCentered(dl, x, bottom + 2, text, buf);
  }
  for (double tick : rl.tflops.ticks) {
    float y = Y(tick);
    dl->AddLine(ImVec2(left, y), ImVec2(right, y), grid);
    std::snprintf(buf, sizeof buf, "%g", tick);
    dl->AddText(ImVec2(a.min.x + 4, y - 7), text, buf);
  }
  TextCentered(dl, (left + right) / 2, bottom + 2 + ImGui::GetTextLineHeight(), text,
               "arithmetic intensity (FLOP / byte of minimal traffic)");
  dl->AddText(ImVec2(left + 4, top), text, "TFLOPS");

  dl->PushClipRect(ImVec2(left, top), ImVec2(right, bottom), true);
  int ceiling = 0;
  for (const Ceiling& c : rl.ceilings) {
    ++ceiling;
    // Piecewise: the bandwidth slope up to the ridge point, then flat at the peak.
    for (size_t k = 1; k < c.polyline.size(); ++k) {
      const auto& [x0, y0] = c.polyline[k - 1];
      const auto& [x1, y1] = c.polyline[k];
      dl->AddLine(ImVec2(X(x0), Y(y0)), ImVec2(X(x1), Y(y1)), ToU32(palette::kCeiling), 3);
    }
    std::snprintf(buf, sizeof buf, "%s %.0f TFLOPS", c.dtype.c_str(), c.peak_tflops);
    // Labels stack under the ceiling: fp16 and bf16 peaks are often within a few percent.
    const ImVec2 end(X(rl.intensity.max), Y(c.peak_tflops));
    float ly = end.y + 2 + float(ceiling - 1) * ImGui::GetTextLineHeight();
    dl->AddText(ImVec2(end.x - ImGui::CalcTextSize(buf).x - 4, ly), ToU32(palette::kCeiling), buf);
  }
  int hovered = -1;
  float best = 64;
  ImVec2 m = ImGui::GetIO().MousePos;
  for (size_t i = 0; i < rl.points.size(); ++i) {
    const RooflinePoint& p = rl.points[i];
    ImVec2 c(X(p.intensity), Y(p.tflops));
    ImU32 col = p.status == reports::CaseStatus::kPassed ? IM_COL32(80, 220, 120, 255)
                                                         : IM_COL32(240, 90, 90, 255);
    if (p.peer) {
      dl->AddRectFilled(ImVec2(c.x - 5, c.y - 5), ImVec2(c.x + 5, c.y + 5),
                        ToU32(palette::kPeerLine));
    } else {
      dl->AddCircleFilled(c, 5, col);
    }
    float d2 = (c.x - m.x) * (c.x - m.x) + (c.y - m.y) * (c.y - m.y);
    if (a.hovered && d2 < best) best = d2, hovered = int(i);
  }
  dl->PopClipRect();
  if (hovered >= 0) {
    const RooflinePoint& p = rl.points[size_t(hovered)];
    const auto& c = r->cases[size_t(p.case_index)];
    ImGui::SetTooltip("%s\n%s\n%.1f FLOP/B, %.1f TFLOPS (%s)\ndouble-click: open the case",
                      c.kernel_id.c_str(), c.problem_key.c_str(), p.intensity, p.tflops,
                      CaseStatusName(c.status));
    if (ImGui::IsMouseDoubleClicked(0)) {
      s.selected_case = p.case_index;
      s.request_view = ViewId::kCase;
    }
  }
}

}  // namespace flashscope::viewer
