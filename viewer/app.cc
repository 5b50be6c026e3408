// The main window: a status line (reports, reload), the error panel when needed, and one tab per
// view. Also the shared ViewerState helpers.
#include <imgui.h>

#include <cstdlib>
#include <cstring>

#include "viewer/viewer_state.h"

namespace flashscope::viewer {
namespace {

constexpr const char* kViewNames[] = {"results",  "case",   "ladder", "compare",
                                      "roofline", "errors", "history"};
constexpr const char* kTabTitles[] = {"Results",  "Case",   "Ladder", "Compare",
                                      "Roofline", "Errors", "History"};

void DrawStatusLine(ViewerState& s) {
  const auto& rs = s.session->reports();
  if (rs.size() > 1) {
    ImGui::SetNextItemWidth(360);
    const char* cur = rs[size_t(s.report_index)].name.c_str();
    if (ImGui::BeginCombo("report", cur)) {
      for (size_t i = 0; i < rs.size(); ++i) {
        if (ImGui::Selectable(rs[i].name.c_str(), int(i) == s.report_index)) {
          s.report_index = int(i);
          s.selected_case = -1;
        }
      }
      ImGui::EndCombo();
    }
    ImGui::SameLine();
  } else if (!rs.empty()) {
    ImGui::Text("%s", rs[0].name.c_str());
    ImGui::SameLine();
  }
  if (const reports::Report* r = s.CurrentReport()) {
    const auto& e = r->environment;
    if (e.synthetic) {
      ImGui::TextColored(ImVec4(1, 0.7f, 0.2f, 1), "SYNTHETIC (not a GPU measurement)");
      ImGui::SameLine();
    }
    ImGui::TextDisabled("| %s, %d SMs, CUDA %s | suite %s | %zu cases%s",
                        e.gpu_name.empty() ? "no GPU" : e.gpu_name.c_str(), e.sm_count,
                        e.cuda_runtime_version.c_str(), r->suite.name.c_str(), r->cases.size(),
                        r->complete ? "" : " (partial)");
    ImGui::SameLine();
  }
  ImGui::Checkbox("live reload", &s.live_reload);
  if (!s.reload_note.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", s.reload_note.c_str());
  }
}

}  // namespace

const char* ViewName(ViewId v) {
  int i = int(v);
  return i >= 0 && i < int(ViewId::kCount) ? kViewNames[i] : "?";
}

std::optional<ViewId> ParseViewName(const std::string& s) {
  for (int i = 0; i < int(ViewId::kCount); ++i) {
    if (s == kViewNames[i]) return ViewId(i);
  }
  return std::nullopt;
}

const reports::Report* ViewerState::CurrentReport() const {
  const auto& rs = session->reports();
  if (report_index < 0 || size_t(report_index) >= rs.size()) return nullptr;
  return rs[size_t(report_index)].report.get();
}

uint64_t ViewerState::CurrentGeneration() const {
  const auto& rs = session->reports();
  if (report_index < 0 || size_t(report_index) >= rs.size()) return 0;
  return rs[size_t(report_index)].generation;
}

const reports::CaseResult* ViewerState::SelectedCase() const {
  const reports::Report* r = CurrentReport();
  if (!r || selected_case < 0 || size_t(selected_case) >= r->cases.size()) return nullptr;
  return &r->cases[size_t(selected_case)];
}

TextureCache& ViewerState::TexturesFor() {
  uint64_t generations = 0;
  for (const auto& r : session->reports()) generations = generations * 1000003 + r.generation;
  if (generations != textures_generations) {
    textures.Clear();
    textures_generations = generations;
  }
  return textures;
}

bool SelectCaseById(ViewerState& s, const std::string& id) {
  const reports::Report* r = s.CurrentReport();
  if (!r || id.empty()) return false;
  char* end = nullptr;
  long n = std::strtol(id.c_str(), &end, 10);
  if (end && *end == '\0' && n >= 0 && size_t(n) < r->cases.size()) {
    s.selected_case = int(n);
    return true;
  }
  for (int pass = 0; pass < 3; ++pass) {
    for (size_t i = 0; i < r->cases.size(); ++i) {
      const auto& c = r->cases[i];
      bool hit = pass == 0   ? c.Key() == id
                 : pass == 1 ? c.kernel_id == id
                             : c.Key().find(id) != std::string::npos;
      if (hit) {
        s.selected_case = int(i);
        return true;
      }
    }
  }
  return false;
}

int HeatmapIndexOfKind(const reports::CaseResult& c, const std::string& kind, std::string* kinds) {
  kinds->clear();
  if (!c.verification) return -1;
  const auto& maps = c.verification->heatmaps;
  for (size_t i = 0; i < maps.size(); ++i) {
    if (maps[i].kind == kind) return int(i);
    *kinds += (i ? ", " : "") + maps[i].kind;
  }
  return -1;
}

void DrawApp(ViewerState& s, double now_s) {
  if (s.live_reload && now_s - s.last_poll_s > 0.5) {
    s.last_poll_s = now_s;
    if (int n = s.session->PollForChanges(); n > 0) {
      s.reload_note = "reloaded " + std::to_string(n) + " report(s)";
      if (!s.SelectedCase()) s.selected_case = -1;
    }
  }
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(vp->WorkSize);
  ImGuiWindowFlags wf = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                        ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus;
  ImGui::Begin("flashscope", nullptr, wf);
  DrawStatusLine(s);
  bool has_errors = DrawErrorPanel(s);
  // Taken before the views draw: a view may ask for another one for the next frame (the history
  // view opens the compare view of a change point).
  const std::optional<ViewId> requested = s.request_view;
  s.request_view.reset();
  if (ImGui::BeginTabBar("views")) {
    for (int i = 0; i < int(ViewId::kCount); ++i) {
      ViewId v = ViewId(i);
      ImGuiTabItemFlags tf = requested == v ? ImGuiTabItemFlags_SetSelected : 0;
      if (!ImGui::BeginTabItem(kTabTitles[i], nullptr, tf)) continue;
      switch (v) {
        case ViewId::kResults:
          DrawResultsView(s);
          break;
        case ViewId::kCase:
          DrawCaseView(s);
          break;
        case ViewId::kLadder:
          DrawLadderView(s);
          break;
        case ViewId::kCompare:
          DrawCompareView(s);
          break;
        case ViewId::kRoofline:
          DrawRooflineView(s);
          break;
        case ViewId::kHistory:
          DrawHistoryView(s);
          break;
        case ViewId::kErrors:
          DrawErrorsView(s, has_errors);
          break;
        default:
          break;
      }
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
  ImGui::End();
}

}  // namespace flashscope::viewer
