// What the views share: the session, the selection and each view's settings. One instance lives
// for the program; views read and write it, draw with ImGui, and keep nothing else between frames.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/gate.h"
#include "viewer/chart_model.h"
#include "viewer/compare_model.h"
#include "viewer/gl_texture.h"
#include "viewer/heatmap_widget.h"
#include "viewer/history_model.h"
#include "viewer/results_model.h"
#include "viewer/session.h"

namespace flashscope::viewer {

enum class ViewId { kResults, kCase, kLadder, kCompare, kRoofline, kErrors, kHistory, kCount };

const char* ViewName(ViewId v);  // "results", "case", ... (the --view names)
std::optional<ViewId> ParseViewName(const std::string& s);

struct ViewerState {
  Session* session = nullptr;
  bool headless = false;   // --screenshot: no pointer, fixed frames
  int report_index = 0;    // the report shown by results, case, ladder and roofline
  int selected_case = -1;  // index into that report's cases

  // A view to bring to front on the next frame (command line, double click, keyboard).
  std::optional<ViewId> request_view;

  // Results table.
  ResultsFilter filter;
  char filter_text[256] = {};
  std::vector<SortKey> sort = {{"kernel", false}};
  ResultsOrder order;
  bool scroll_to_selected = false;

  // Case view.
  HeatmapView heatmap;
  // Heatmap textures of every view; freed when any report is reloaded (see TexturesFor).
  TextureCache textures;
  uint64_t textures_generations = 0;

  // Compare view: two reports (the first two given, or the runs around a change point the history
  // view opened), judged by `policy` as `flashscope gate` judges them.
  reports::GatePolicy policy;              // --policy FILE, else the built-in defaults
  int compare_base = 0, compare_next = 1;  // indexes into the session's reports
  CompareCache compare;
  CompareFilter compare_filter;
  char compare_filter_text[256] = {};
  std::vector<CompareSortKey> compare_sort = {{CompareColumn::kVerdict, false}};
  int compare_selected = -1;  // index into the comparison's pairs
  bool side_by_side = false;  // the selected pair's heatmaps, base and new, on one scale
  HeatmapView side_base, side_next;

  // Ladder.
  std::string ladder_problem;

  // History view (--history DB): the series, the one shown, and why a change could not open.
  HistoryModel history;
  int history_series = 0;

  // Live reload.
  bool live_reload = true;
  double last_poll_s = 0;
  std::string reload_note;

  // The loaded report being shown, or null when it failed to load.
  const reports::Report* CurrentReport() const;
  uint64_t CurrentGeneration() const;
  const reports::CaseResult* SelectedCase() const;
  // The texture cache, emptied first when any report was reloaded since the last call (a texture
  // key names a report's generation, so nothing stale is shown; this bounds the cache).
  TextureCache& TexturesFor();
};

// Each view in its own file; all draw into the current ImGui window.
void DrawResultsView(ViewerState& s);
void DrawCaseView(ViewerState& s);
void DrawLadderView(ViewerState& s);
void DrawCompareView(ViewerState& s);
void DrawRooflineView(ViewerState& s);
void DrawHistoryView(ViewerState& s);
// Opens the compare view of the runs around change `change` of series `series` of the history
// (their reports are added to the session); false, with the history's error set, when it cannot.
bool OpenHistoryChange(ViewerState& s, int series, int change);
// The error panel: one entry per report that failed to load (or loaded with warnings, such as a
// partial report recovered from a journal). Returns true when it drew anything.
bool DrawErrorPanel(ViewerState& s);
// The errors view: what the panel says, or that every report loaded (and what each holds).
void DrawErrorsView(ViewerState& s, bool has_errors);

// The whole window: status line, error panel, the view tabs. Polls for reloads.
void DrawApp(ViewerState& s, double now_s);

// Selects a case by index, exact key, kernel id (first match) or substring of the key.
bool SelectCaseById(ViewerState& s, const std::string& id);
// Selects a pair of the compare view by exact key or substring of the key, and opens its heatmaps
// side by side.
bool SelectPairById(ViewerState& s, const std::string& id);
// The base case of the compare view's selected pair, or null.
const reports::CaseResult* SelectedPairBase(ViewerState& s);
// The index of case c's heatmap of `kind` ("tile_fold"...), or -1; `kinds` receives the kinds it
// has, comma-separated, for the message.
int HeatmapIndexOfKind(const reports::CaseResult& c, const std::string& kind, std::string* kinds);

}  // namespace flashscope::viewer
