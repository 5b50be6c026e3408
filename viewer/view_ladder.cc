// The ladder view: for one problem, a bar per revision (TFLOPS, labelled with % of peak and the
// rung's id, wrapped so that variants of one revision stay apart: a11_fa4_softmax and
// a11_fa4_poly_exp never both read "a11"), the library peers as horizontal lines, and below the
// chart each rung's id, title and what it changed (the registry's words, carried by the report).
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "viewer/chart_model.h"
#include "viewer/plot_helpers.h"
#include "viewer/viewer_state.h"

namespace flashscope::viewer {
namespace {

constexpr int kLabelLines = 3;

void ChooseProblem(ViewerState& s, const std::vector<std::string>& problems) {
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
}

// Bars, labels and peer lines; returns the hovered rung or -1.
int DrawChart(const Ladder& l, ImVec2 size) {
  PlotArea a = BeginPlotArea("##ladder", size);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float line_h = ImGui::GetTextLineHeight();
  const float label_h = (kLabelLines + 1) * line_h + 6;
  const float left = a.min.x + 56, right = a.max.x - 160, top = a.min.y + 24;
  const float bottom = a.max.y - label_h;
  const double ymax = std::max(1.0, l.max_tflops * 1.1);
  auto y_of = [&](double v) { return bottom - float(v / ymax) * (bottom - top); };
  const ImU32 grid = IM_COL32(70, 70, 80, 255), text = IM_COL32(220, 220, 220, 255);
  for (int i = 0; i <= 4; ++i) {
    const double v = ymax * i / 4;
    const float y = y_of(v);
    dl->AddLine(ImVec2(left, y), ImVec2(right, y), grid);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    dl->AddText(ImVec2(a.min.x + 4, y - 7), text, buf);
  }
  dl->AddText(ImVec2(a.min.x + 4, a.min.y + 4), text, "TFLOPS");
  const float slot = (right - left) / float(std::max<size_t>(1, l.rungs.size()));
  const size_t chars = size_t(std::max(3.f, slot / ImGui::CalcTextSize("x").x));
  int hovered = -1;
  for (size_t i = 0; i < l.rungs.size(); ++i) {
    const LadderBar& b = l.rungs[i];
    const float x0 = left + slot * float(i) + slot * 0.15f, x1 = x0 + slot * 0.7f;
    const bool ok = b.status == reports::CaseStatus::kPassed;
    dl->AddRectFilled(ImVec2(x0, y_of(b.tflops)), ImVec2(x1, bottom),
                      ToU32(palette::kBar, ok ? 255 : 110));
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f%%", b.pct_peak);
    TextCentered(dl, (x0 + x1) / 2, y_of(b.tflops) - line_h - 1, text, buf);
    float y = bottom + 2;
    for (const std::string& line : RungLabel(b.kernel_id, chars, kLabelLines)) {
      TextCentered(dl, (x0 + x1) / 2, y, text, line);
      y += line_h;
    }
    if (!ok)
      TextCentered(dl, (x0 + x1) / 2, y, IM_COL32(255, 120, 120, 255), CaseStatusName(b.status));
    const ImVec2 m = ImGui::GetIO().MousePos;
    if (a.hovered && m.x >= x0 && m.x <= x1 && m.y >= top && m.y <= bottom) hovered = int(i);
  }
  for (const LadderBar& p : l.peers) {
    if (!p.timed) continue;
    const float y = y_of(p.tflops);
    dl->AddLine(ImVec2(left, y), ImVec2(right, y), ToU32(palette::kPeerLine), 3);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s %.0f", p.kernel_id.c_str(), p.tflops);
    dl->AddText(ImVec2(right + 4, y - 7), ToU32(palette::kPeerLine), buf);
  }
  return hovered;
}

// One row per rung: id, title, what it changed, TFLOPS; a click selects the case.
void DrawRungTable(ViewerState& s, const Ladder& l) {
  ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_BordersInnerV |
                          ImGuiTableFlags_RowBg | ImGuiTableFlags_Resizable |
                          ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("rungs", 5, flags)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("Rung");
  ImGui::TableSetupColumn("Title");
  ImGui::TableSetupColumn("What it changed", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("TFLOPS");
  ImGui::TableSetupColumn("% peak");
  ImGui::TableHeadersRow();
  for (const LadderBar& b : l.rungs) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    if (ImGui::Selectable(b.kernel_id.c_str(), s.selected_case == b.case_index,
                          ImGuiSelectableFlags_SpanAllColumns)) {
      s.selected_case = b.case_index;
    }
    ImGui::TableSetColumnIndex(1);
    ImGui::TextUnformatted(b.title.empty() ? "-" : b.title.c_str());
    ImGui::TableSetColumnIndex(2);
    ImGui::TextUnformatted(b.changed.empty() ? "- (not in this report)" : b.changed.c_str());
    ImGui::TableSetColumnIndex(3);
    ImGui::Text("%.1f", b.tflops);
    ImGui::TableSetColumnIndex(4);
    ImGui::Text("%.1f", b.pct_peak);
  }
  ImGui::EndTable();
}

}  // namespace

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
  ChooseProblem(s, problems);
  const Ladder l = BuildLadder(*r, s.ladder_problem);
  ImGui::TextDisabled(
      "bars: our revisions in revision order (TFLOPS, label: %% of measured peak); lines: "
      "library peers; hover a bar for its title and what it changed, double-click to open it");
  if (!l.note.Text().empty()) ImGui::TextWrapped("%s", l.note.Text().c_str());
  const float avail = ImGui::GetContentRegionAvail().y;
  const int hovered = DrawChart(l, ImVec2(0, std::max(200.f, avail * 0.62f)));
  DrawRungTable(s, l);
  if (hovered >= 0) {
    const LadderBar& b = l.rungs[size_t(hovered)];
    ImGui::SetTooltip(
        "%s%s%s\n%.1f TFLOPS, %.1f%% of peak, %s\nwhat changed: %s\ndouble-click: "
        "open the case",
        b.kernel_id.c_str(), b.title.empty() ? "" : ": ", b.title.c_str(), b.tflops, b.pct_peak,
        CaseStatusName(b.status), b.changed.empty() ? "(not in this report)" : b.changed.c_str());
    if (ImGui::IsMouseDoubleClicked(0)) {
      s.selected_case = b.case_index;
      s.request_view = ViewId::kCase;
    }
  }
}

}  // namespace flashscope::viewer
