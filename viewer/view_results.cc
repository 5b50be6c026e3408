// The results table: every case of the current report, filterable and sortable (multi-column
// with shift-click), coloured by status, navigable with the keyboard (up/down, page up/down,
// home/end; Enter opens the case view). Rows are drawn through ImGuiListClipper, and the filtered
// order is recomputed only when the report, filter or sort changes.
#include <imgui.h>

#include <algorithm>
#include <cstring>

#include "viewer/palette.h"
#include "viewer/plot_helpers.h"
#include "viewer/viewer_state.h"

namespace flashscope::viewer {
namespace {

Rgb StatusColour(reports::CaseStatus s) {
  switch (s) {
    case reports::CaseStatus::kPassed:
      return palette::kRowPassed;
    case reports::CaseStatus::kFailed:
      return palette::kRowFailed;
    case reports::CaseStatus::kSkipped:
      return palette::kRowSkipped;
    case reports::CaseStatus::kError:
      return palette::kRowError;
    case reports::CaseStatus::kTimeout:
      return palette::kRowTimeout;
  }
  return palette::kRowSkipped;
}

void DrawFilterBar(ViewerState& s, const reports::Report& r, size_t shown) {
  ImGui::SetNextItemWidth(320);
  if (ImGui::InputTextWithHint("##filter", "filter: words, -exclude (e.g. a0 causal -peer)",
                               s.filter_text, sizeof s.filter_text)) {
    s.filter.text = s.filter_text;
  }
  static const char* kStatus[] = {"passed", "failed", "skipped", "error", "timeout"};
  for (int i = 0; i < 5; ++i) {
    ImGui::SameLine();
    ImGui::Checkbox(kStatus[i], &s.filter.show_status[i]);
  }
  ImGui::SameLine();
  ImGui::TextDisabled("%zu of %zu cases", shown, r.cases.size());
}

// Moves the selection within the visible order with the keyboard.
void HandleKeys(ViewerState& s, const std::vector<int>& order, int page) {
  if (order.empty() || ImGui::GetIO().WantTextInput) return;
  if (!ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows)) return;
  int pos = -1;
  auto it = std::find(order.begin(), order.end(), s.selected_case);
  if (it != order.end()) pos = int(it - order.begin());
  int next = pos;
  auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k)); };
  if (pressed(ImGuiKey_DownArrow)) next = pos + 1;
  if (pressed(ImGuiKey_UpArrow)) next = pos < 0 ? 0 : pos - 1;
  if (pressed(ImGuiKey_PageDown)) next = pos + page;
  if (pressed(ImGuiKey_PageUp)) next = pos - page;
  if (pressed(ImGuiKey_Home)) next = 0;
  if (pressed(ImGuiKey_End)) next = int(order.size()) - 1;
  next = std::clamp(next, 0, int(order.size()) - 1);
  if (next != pos) {
    s.selected_case = order[size_t(next)];
    s.scroll_to_selected = true;
  }
  if (pos >= 0 && (pressed(ImGuiKey_Enter) || pressed(ImGuiKey_KeyPadEnter))) {
    s.request_view = ViewId::kCase;
  }
}

// Headers drawn one by one so that each explains its value (the summary model's description).
void DrawHeaders(const std::vector<TableColumn>& columns) {
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  for (size_t c = 0; c < columns.size(); ++c) {
    if (!ImGui::TableSetColumnIndex(int(c))) continue;
    ImGui::TableHeader(columns[c].label.c_str());
    if (ImGui::IsItemHovered() && !columns[c].description.empty()) {
      ImGui::SetTooltip("%s", columns[c].description.c_str());
    }
  }
}

void ReadSortSpecs(ViewerState& s, const std::vector<TableColumn>& columns) {
  ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs();
  if (!specs || !specs->SpecsDirty) return;
  s.sort.clear();
  for (int i = 0; i < specs->SpecsCount; ++i) {
    const ImGuiTableColumnSortSpecs& c = specs->Specs[i];
    if (c.ColumnUserID < columns.size()) {
      s.sort.push_back(
          {columns[c.ColumnUserID].key, c.SortDirection == ImGuiSortDirection_Descending});
    }
  }
  specs->SpecsDirty = false;
}

void ScrollToSelected(ViewerState& s, const std::vector<int>& order, float row_h) {
  if (!s.scroll_to_selected) return;
  auto it = std::find(order.begin(), order.end(), s.selected_case);
  if (it != order.end()) {
    float y = float(it - order.begin()) * row_h;
    float top = ImGui::GetScrollY(), visible = ImGui::GetWindowHeight() - 2 * row_h;
    if (y < top || y > top + visible) ImGui::SetScrollY(std::max(0.f, y - visible / 2));
  }
  s.scroll_to_selected = false;
}

void DrawRow(ViewerState& s, const reports::CaseSummary& c, int ci,
             const std::vector<TableColumn>& columns, float row_h) {
  ImGui::TableNextRow(ImGuiTableRowFlags_None, row_h);
  const bool selected = ci == s.selected_case;
  ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0,
                         ToU32(selected ? palette::kRowSelected : StatusColour(c.status)));
  ImGui::TableSetColumnIndex(0);
  ImGui::PushID(ci);
  if (ImGui::Selectable(
          c.kernel_id.c_str(), false,
          ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
    s.selected_case = ci;
    if (ImGui::IsMouseDoubleClicked(0)) s.request_view = ViewId::kCase;
  }
  if (ImGui::IsItemHovered() && !c.reason.empty()) ImGui::SetTooltip("%s", c.reason.c_str());
  ImGui::PopID();
  for (size_t col = 1; col < columns.size(); ++col) {
    ImGui::TableSetColumnIndex(int(col));
    ImGui::TextUnformatted(CellText(c, columns[col]).c_str());
  }
}

}  // namespace

void DrawResultsView(ViewerState& s) {
  const reports::Report* r = s.CurrentReport();
  if (!r) {
    ImGui::TextWrapped("No report loaded; see the error panel above.");
    return;
  }
  const std::vector<int>& order = s.order.Get(*r, s.CurrentGeneration(), s.filter, s.sort);
  const reports::ReportSummary& summary = s.order.summary();
  const std::vector<TableColumn>& columns = s.order.columns();
  DrawFilterBar(s, *r, order.size());

  ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_SortMulti |
                          ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                          ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV |
                          ImGuiTableFlags_SizingFixedFit;
  // The columns depend on the report (its headline values): a table per column set.
  const std::string id = "results/" + std::to_string(columns.size());
  if (!ImGui::BeginTable(id.c_str(), int(columns.size()), flags, ImVec2(0, 0))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  for (size_t c = 0; c < columns.size(); ++c) {
    ImGuiTableColumnFlags cf = c == 0 ? ImGuiTableColumnFlags_DefaultSort : 0;
    if (columns[c].key == "problem") cf |= ImGuiTableColumnFlags_WidthStretch;
    ImGui::TableSetupColumn(columns[c].label.c_str(), cf, 0, ImGuiID(c));
  }
  DrawHeaders(columns);
  ReadSortSpecs(s, columns);

  float row_h = ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y;
  int page = std::max(1, int(ImGui::GetWindowHeight() / row_h) - 2);
  HandleKeys(s, order, page);
  ScrollToSelected(s, order, row_h);

  ImGuiListClipper clipper;
  clipper.Begin(int(order.size()), row_h);
  while (clipper.Step()) {
    for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
      const int ci = order[size_t(row)];
      DrawRow(s, summary.cases[size_t(ci)], ci, columns, row_h);
    }
  }
  ImGui::EndTable();
}

}  // namespace flashscope::viewer
