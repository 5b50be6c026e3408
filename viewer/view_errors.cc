// The error panel: a report that did not load (missing, not JSON, not a flashscope report, a
// version this viewer cannot read, a bad field) is named with the reader's message and a hint;
// a partial report (recovered from a journal) gets a warning. The rest of the UI keeps working.
// The errors view says so when there is nothing to report, and lists what did load.
#include <imgui.h>

#include "viewer/plot_helpers.h"
#include "viewer/viewer_state.h"

namespace flashscope::viewer {

bool DrawErrorPanel(ViewerState& s) {
  int errors = 0, partial = 0;
  for (const auto& r : s.session->reports()) {
    errors += r.error.empty() ? 0 : 1;
    partial += (r.report && !r.report->complete) ? 1 : 0;
  }
  if (errors == 0 && partial == 0) return false;
  float line = ImGui::GetTextLineHeightWithSpacing();
  float h = line * float(errors * 3 + partial + 1) + 12;
  ImGui::PushStyleColor(ImGuiCol_ChildBg,
                        ImGui::ColorConvertU32ToFloat4(ToU32(palette::kErrorPanel)));
  ImGui::BeginChild("error_panel", ImVec2(0, std::min(h, 320.f)), true);
  for (const auto& r : s.session->reports()) {
    if (!r.error.empty()) {
      ImGui::TextColored(ImVec4(1, 0.75f, 0.75f, 1), "Cannot load %s", r.name.c_str());
      ImGui::TextWrapped("%s", r.error.c_str());
      ImGui::TextWrapped("%s%s", ErrorHint(r.error).c_str(),
                         r.report ? " Showing the last version that loaded." : "");
    } else if (r.report && !r.report->complete) {
      ImGui::TextColored(ImVec4(1, 0.85f, 0.4f, 1),
                         "%s is partial (recovered from an interrupted run's journal): %zu cases.",
                         r.name.c_str(), r.report->cases.size());
    }
  }
  ImGui::EndChild();
  ImGui::PopStyleColor();
  return true;
}

void DrawErrorsView(ViewerState& s, bool has_errors) {
  if (has_errors) {
    ImGui::TextWrapped(
        "The reports named above could not be loaded (or loaded partially); the other views "
        "show whatever did load.");
    return;
  }
  const auto& reports = s.session->reports();
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(ToU32(palette::kOkText)),
                     "No errors: all %zu report%s loaded completely.", reports.size(),
                     reports.size() == 1 ? "" : "s");
  for (const auto& r : reports) {
    ImGui::BulletText("%s: suite %s, %zu cases (loaded %d time%s)", r.name.c_str(),
                      r.report->suite.name.c_str(), r.report->cases.size(), r.loads,
                      r.loads == 1 ? "" : "s");
  }
}

}  // namespace flashscope::viewer
