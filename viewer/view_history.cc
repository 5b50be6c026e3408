// The history view (flashscope-view --history DB, docs/viewer.md): the series of a history
// database on the left; on the right the chosen series' medians over revisions with each change
// point a red rule, hovering it shows the change and its explanation, clicking it (or its row's
// "compare" button) opens the compare view of the two runs around it.
#include <imgui.h>

#include <algorithm>
#include <string>

#include "reports/text_table.h"
#include "viewer/plot_helpers.h"
#include "viewer/viewer_state.h"

namespace flashscope::viewer {
namespace {

void DrawSeriesList(ViewerState& s) {
  const auto& series = s.history.series();
  ImGui::BeginChild("history_series", ImVec2(360, 0), true);
  for (size_t i = 0; i < series.size(); ++i) {
    const history::SeriesChanges& sc = series[i];
    // The count first: long problem keys are cut at the list's edge.
    std::string label =
        sc.changes.empty() ? "     " : "[" + std::to_string(sc.changes.size()) + "] ";
    label += sc.series.key.kernel_id + "  " + sc.series.key.problem_key;
    if (ImGui::Selectable((label + "##" + std::to_string(i)).c_str(), s.history_series == int(i))) {
      s.history_series = int(i);
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", sc.series.key.Name().c_str());
  }
  ImGui::EndChild();
}

void ChangeTooltip(const history::HistoryChange& h) {
  ImGui::BeginTooltip();
  ImGui::Text("%s -> %s: %s, p %.2g", h.previous_revision.c_str(), h.revision.c_str(),
              reports::text::SignedPct(h.point.change * 100).c_str(), h.point.p_value);
  ImGui::PushTextWrapPos(520);
  ImGui::TextUnformatted(h.explanation.c_str());
  ImGui::PopTextWrapPos();
  ImGui::TextUnformatted("click: compare the two runs");
  ImGui::EndTooltip();
}

// The chart; returns the change clicked, or -1.
int DrawSeriesChart(const history::SeriesChanges& sc) {
  const SeriesChartScale scale = ChartScaleOf(sc.series);
  const PlotArea area = BeginPlotArea("history_chart", ImVec2(-1, 280));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float left = area.min.x + 60, right = area.max.x - 16;
  const float top = area.min.y + 14, bottom = area.max.y - 24;
  auto px = [&](size_t i) { return left + float(scale.X(i)) * (right - left); };
  auto py = [&](double ms) { return bottom - float(scale.Y(ms)) * (bottom - top); };
  dl->AddText(ImVec2(area.min.x + 4, top - 6), ToU32({200, 200, 200}),
              reports::text::Ms(scale.hi).c_str());
  dl->AddText(ImVec2(area.min.x + 4, bottom - 8), ToU32({200, 200, 200}),
              reports::text::Ms(scale.lo).c_str());
  // Revision names under the axis: all when few, else about ten evenly spaced.
  const size_t step = std::max<size_t>(1, sc.series.points.size() / 10);
  for (size_t i = 0; i < sc.series.points.size(); i += step) {
    const std::string name = sc.series.points[i].revision.substr(0, 12);
    TextCentered(dl, px(i), bottom + 4, ToU32({200, 200, 200}), name);
  }
  const ImU32 red = ToU32(palette::kChangePoint);
  for (const history::HistoryChange& h : sc.changes) {
    const float x = (px(size_t(h.point_index - 1)) + px(size_t(h.point_index))) / 2;
    dl->AddRectFilled(ImVec2(x - 2, top), ImVec2(x + 2, bottom), red);
    dl->AddText(ImVec2(x + 5, top), red, reports::text::SignedPct(h.point.change * 100).c_str());
  }
  ImVec2 previous;
  bool have_previous = false;
  const ImU32 blue = ToU32(palette::kSeriesLine);
  for (size_t i = 0; i < sc.series.points.size(); ++i) {
    const history::RevisionPoint& p = sc.series.points[i];
    if (!p.Timed()) continue;
    const ImVec2 at(px(i), py(p.median_ms));
    if (have_previous) dl->AddLine(previous, at, blue, 2.5f);
    dl->AddCircleFilled(at, 4, blue);
    previous = at;
    have_previous = true;
  }
  if (!area.hovered || sc.changes.empty()) return -1;
  const double x = (ImGui::GetIO().MousePos.x - left) / (right - left);
  const int near = ChangeNearX(sc, scale, x, 8.0 / (right - left));
  if (near < 0) return -1;
  ChangeTooltip(sc.changes[size_t(near)]);
  return ImGui::IsMouseClicked(ImGuiMouseButton_Left) ? near : -1;
}

int DrawChangeTable(const history::SeriesChanges& sc) {
  int clicked = -1;
  if (sc.changes.empty()) {
    ImGui::TextDisabled("No change point in this series.");
    return clicked;
  }
  if (!ImGui::BeginTable(
          "history_changes", 5,
          ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    return clicked;
  }
  for (const char* h : {"good", "bad", "change", "why (correlation)", ""}) {
    ImGui::TableSetupColumn(h);
  }
  ImGui::TableHeadersRow();
  for (size_t i = 0; i < sc.changes.size(); ++i) {
    const history::HistoryChange& h = sc.changes[i];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(h.previous_revision.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(h.revision.c_str());
    ImGui::TableNextColumn();
    ImGui::TextColored(
        ImGui::ColorConvertU32ToFloat4(ToU32(h.regression ? palette::kWorse : palette::kNeutral)),
        "%s", reports::text::SignedPct(h.point.change * 100).c_str());
    ImGui::TableNextColumn();
    ImGui::TextWrapped("%s", h.explanation.c_str());
    ImGui::TableNextColumn();
    if (ImGui::SmallButton(("compare##" + std::to_string(i)).c_str())) clicked = int(i);
  }
  ImGui::EndTable();
  return clicked;
}

}  // namespace

bool OpenHistoryChange(ViewerState& s, int series, int change) {
  const auto& all = s.history.series();
  if (series < 0 || series >= int(all.size()) || change < 0 ||
      change >= int(all[size_t(series)].changes.size())) {
    return false;
  }
  const history::HistoryChange& h = all[size_t(series)].changes[size_t(change)];
  const auto added = s.history.AddChangeReports(h, *s.session);
  if (!added) return false;
  s.compare_base = added->first;
  s.compare_next = added->second;
  // Nothing selected: the table's default order puts the pairs that need attention (this
  // change's among them) first, in their verdict's colour.
  s.compare_selected = -1;
  s.side_by_side = false;
  s.request_view = ViewId::kCompare;
  return true;
}

void DrawHistoryView(ViewerState& s) {
  if (!s.history.loaded()) {
    ImGui::TextWrapped("%s", s.history.error().empty()
                                 ? "No history: flashscope-view --history DB (an SQLite file "
                                   "or a postgresql:// URL; docs/history.md)."
                                 : ("Cannot read the history: " + s.history.error()).c_str());
    return;
  }
  const auto& all = s.history.series();
  ImGui::Text(
      "%s: %zu series. Change points: PELT + Mann-Whitney; explanations are "
      "correlations, not proven causes.",
      s.history.db().c_str(), all.size());
  if (all.empty()) return;
  if (s.history_series < 0 || s.history_series >= int(all.size())) s.history_series = 0;
  DrawSeriesList(s);
  ImGui::SameLine();
  ImGui::BeginChild("history_detail", ImVec2(0, 0), false);
  const history::SeriesChanges& sc = all[size_t(s.history_series)];
  ImGui::TextUnformatted(sc.series.key.Name().c_str());
  int open = DrawSeriesChart(sc);
  const int from_table = DrawChangeTable(sc);
  if (from_table >= 0) open = from_table;
  ImGui::EndChild();
  if (open >= 0 && !OpenHistoryChange(s, s.history_series, open)) {
    ImGui::SetTooltip("%s", s.history.error().c_str());
  }
}

}  // namespace flashscope::viewer
