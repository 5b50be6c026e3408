// The ladder view: for one problem, a bar per revision (TFLOPS, labelled with % of peak), the
// library peers as horizontal lines, and each rung's kernel id. The registry's one-line "what
// changed" is not stored in reports (schema v1), so the view names the kernel id and says so.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "viewer/chart_model.h"
#include "viewer/plot_helpers.h"
#include "viewer/viewer_state.h"

namespace flashscope::viewer {

void DrawLadderView(ViewerState& s) {
  const reports::Report* r = s.CurrentReport();
  if (!r) {
    ImGui::TextWrapped("No report loaded; see the error panel above.");
    return;
  }
  // Cached per report version: the problem list scans every case.
  static uint64_t cached_gen = 0;
  static std::vector<std::string> problems;
  if (cached_gen != s.CurrentGeneration()) {
    problems = LadderProblems(*r);
    cached_gen = s.CurrentGeneration();
  }
  if (problems.empty()) {
    ImGui::TextWrapped("No case in this report has throughput (all skipped or failed to run).");
    return;
  }
  if (std::find(problems.begin(), problems.end(), s.ladder_problem) == problems.end()) {
    const reports::CaseResult* sel = s.SelectedCase();
    bool sel_ok =
        sel && std::find(problems.begin(), problems.end(), sel->problem_key) != problems.end();
    s.ladder_problem = sel_ok ? sel->problem_key : problems.front();
  }
  ImGui::SetNextItemWidth(520);
  if (ImGui::BeginCombo("problem", s.ladder_problem.c_str())) {
    for (const auto& p : problems) {
      if (ImGui::Selectable(p.c_str(), p == s.ladder_problem)) s.ladder_problem = p;
    }
    ImGui::EndCombo();
  }
  Ladder l = BuildLadder(*r, s.ladder_problem);
  ImGui::TextDisabled(
      "bars: our revisions (TFLOPS, label: %% of measured peak); lines: library "
      "peers. What each rung changed is in the kernel registry "
      "(flashscope list), not yet in reports.");

  PlotArea a = BeginPlotArea("##ladder", ImVec2(0, 0));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float label_h = 2 * ImGui::GetTextLineHeight() + 6;
  float left = a.min.x + 56, right = a.max.x - 160, top = a.min.y + 24;
  float bottom = a.max.y - label_h;
  double ymax = std::max(1.0, l.max_tflops * 1.1);
  auto y_of = [&](double v) { return bottom - float(v / ymax) * (bottom - top); };
  ImU32 grid = IM_COL32(70, 70, 80, 255), text = IM_COL32(220, 220, 220, 255);
  for (int i = 0; i <= 4; ++i) {
    double v = ymax * i / 4;
    float y = y_of(v);
    dl->AddLine(ImVec2(left, y), ImVec2(right, y), grid);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    dl->AddText(ImVec2(a.min.x + 4, y - 7), text, buf);
  }
  dl->AddText(ImVec2(a.min.x + 4, a.min.y + 4), text, "TFLOPS");

  int n = std::max<int>(1, int(l.rungs.size()));
  float slot = (right - left) / float(n);
  int hovered = -1;
  for (size_t i = 0; i < l.rungs.size(); ++i) {
    const LadderBar& b = l.rungs[i];
    float x0 = left + slot * float(i) + slot * 0.15f, x1 = x0 + slot * 0.7f;
    float y = y_of(b.tflops);
    bool ok = b.status == reports::CaseStatus::kPassed;
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, bottom), ToU32(palette::kBar, ok ? 255 : 110));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f%%", b.pct_peak);
    TextCentered(dl, (x0 + x1) / 2, y - ImGui::GetTextLineHeight() - 1, text, buf);
    // Short id under the bar (the part after the family prefix), full id in the tooltip.
    std::string id = b.kernel_id.substr(b.kernel_id.find('.') + 1);
    if (ImGui::CalcTextSize(id.c_str()).x > slot) id = id.substr(0, 3);
    TextCentered(dl, (x0 + x1) / 2, bottom + 2, text, id);
    if (!ok)
      TextCentered(dl, (x0 + x1) / 2, bottom + 2 + ImGui::GetTextLineHeight(),
                   IM_COL32(255, 120, 120, 255), CaseStatusName(b.status));
    ImVec2 m = ImGui::GetIO().MousePos;
    if (a.hovered && m.x >= x0 && m.x <= x1 && m.y >= top && m.y <= bottom) hovered = int(i);
  }
  for (const LadderBar& p : l.peers) {
    float y = y_of(p.tflops);
    dl->AddLine(ImVec2(left, y), ImVec2(right, y), ToU32(palette::kPeerLine), 3);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s %.0f", p.kernel_id.c_str(), p.tflops);
    dl->AddText(ImVec2(right + 4, y - 7), ToU32(palette::kPeerLine), buf);
  }
  if (hovered >= 0) {
    const LadderBar& b = l.rungs[size_t(hovered)];
    ImGui::SetTooltip(
        "%s\n%.1f TFLOPS, %.1f%% of peak, %s\nwhat changed: see the registry "
        "(not stored in reports)\ndouble-click: open the case",
        b.kernel_id.c_str(), b.tflops, b.pct_peak, CaseStatusName(b.status));
    if (ImGui::IsMouseDoubleClicked(0)) {
      s.selected_case = b.case_index;
      s.request_view = ViewId::kCase;
    }
  }
}

}  // namespace flashscope::viewer
