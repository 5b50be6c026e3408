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

}  // namespace

void DrawResultsView(ViewerState& s) {
  const reports::Report* r = s.CurrentReport();
  if (!r) {
    ImGui::TextWrapped("No report loaded; see the error panel above.");
    return;
  }
  const std::vector<int>& order = s.order.Get(*r, s.CurrentGeneration(), s.filter, s.sort);
  DrawFilterBar(s, *r, order.size());

  constexpr int kCols = int(Column::kCount);
  ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_SortMulti |
                          ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                          ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV |
                          ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("results", kCols, flags, ImVec2(0, 0))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  for (int c = 0; c < kCols; ++c) {
    ImGuiTableColumnFlags cf = c == 0 ? ImGuiTableColumnFlags_DefaultSort : 0;
    if (c == int(Column::kProblem)) cf |= ImGuiTableColumnFlags_WidthStretch;
    ImGui::TableSetupColumn(ColumnName(Column(c)), cf, 0, ImGuiID(c));
  }
  ImGui::TableHeadersRow();

  if (ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsDirty) {
    s.sort.clear();
    for (int i = 0; i < specs->SpecsCount; ++i) {
      const ImGuiTableColumnSortSpecs& c = specs->Specs[i];
      s.sort.push_back({Column(c.ColumnUserID), c.SortDirection == ImGuiSortDirection_Descending});
    }
    specs->SpecsDirty = false;
  }

  float row_h = ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().CellPadding.y;
  int page = std::max(1, int(ImGui::GetWindowHeight() / row_h) - 2);
  HandleKeys(s, order, page);
  if (s.scroll_to_selected) {
    auto it = std::find(order.begin(), order.end(), s.selected_case);
    if (it != order.end()) {
      float y = float(it - order.begin()) * row_h;
      float top = ImGui::GetScrollY(), visible = ImGui::GetWindowHeight() - 2 * row_h;
      if (y < top || y > top + visible) ImGui::SetScrollY(std::max(0.f, y - visible / 2));
    }
    s.scroll_to_selected = false;
  }

  ImGuiListClipper clipper;
  clipper.Begin(int(order.size()), row_h);
  while (clipper.Step()) {
    for (int row = clipper.DisplayStart; row < clipper.DisplayEnd; ++row) {
      int ci = order[size_t(row)];
      const reports::CaseResult& c = r->cases[size_t(ci)];
      ImGui::TableNextRow(ImGuiTableRowFlags_None, row_h);
      bool selected = ci == s.selected_case;
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
      for (int col = 1; col < kCols; ++col) {
        ImGui::TableSetColumnIndex(col);
        std::string text = CellText(c, Column(col));
        ImGui::TextUnformatted(text.c_str());
      }
    }
  }
  ImGui::EndTable();
}

}  // namespace flashscope::viewer
