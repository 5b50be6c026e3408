// The compare view: the first report on the command line is the base, the second the new run.
// What it shows per pair is what `flashscope gate` decides (viewer/compare_model.h runs the same
// compare and gate code with the same policy): the verdict, the p-value, the change and the rule
// that decided, and the gate's failures; colour is the verdict's tone (by significance, not by
// size). Pairs sort and filter by verdict and by change; a selected pair's two heatmaps open side
// by side on one colour scale.
#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "viewer/chart_model.h"
#include "viewer/plot_helpers.h"
#include "viewer/viewer_state.h"

namespace flashscope::viewer {
namespace {

void DrawUnpaired(const char* title, const std::vector<reports::PairSummary>& cases) {
  if (cases.empty()) return;
  char header[96];
  std::snprintf(header, sizeof header, "%s (%zu)", title, cases.size());
  if (ImGui::CollapsingHeader(header)) {
    for (const auto& p : cases) {
      ImGui::BulletText("%s%s%s", p.StatusText("").c_str(), p.failure.empty() ? "" : ": ",
                        p.failure.c_str());
    }
  }
}

// The gate's decision, the method and the counts: the CLI's summary lines.
void DrawHeader(const ComparedReports& cr, const std::string& base, const std::string& next) {
  const reports::ComparisonSummary& s = cr.summary;
  ImGui::Text("base: %s    new: %s", base.c_str(), next.c_str());
  for (const reports::Warning& w : s.warnings) {
    ImGui::TextColored(ImVec4(1, 0.7f, 0.2f, 1), "%s", w.text.c_str());
  }
  const ImVec4 verdict_colour =
      cr.gate.passed ? ImVec4(0.4f, 0.9f, 0.4f, 1) : ImVec4(1, 0.35f, 0.35f, 1);
  ImGui::TextColored(verdict_colour, "%s", reports::GateHeadline(cr.gate).c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("%s (policy: %s)", reports::GateNotes(cr.gate).c_str(),
                      cr.gate.policy_source.c_str());
  ImGui::TextDisabled(
      "%s: %d slower, %d faster, %d same, %d ambiguous, %d not timed; %d correctness "
      "regressions",
      s.method.c_str(), s.counts.slower, s.counts.faster, s.counts.same, s.counts.ambiguous,
      s.counts.not_timed, s.counts.correctness_regressions);
}

void DrawFilterBar(ViewerState& s, size_t shown, size_t total) {
  ImGui::SetNextItemWidth(260);
  if (ImGui::InputTextWithHint("##cmpfilter", "filter: words, -exclude", s.compare_filter_text,
                               sizeof s.compare_filter_text)) {
    s.compare_filter.text = s.compare_filter_text;
  }
  for (int v = 0; v < 5; ++v) {
    ImGui::SameLine();
    ImGui::Checkbox(reports::VerdictName(reports::Verdict(v)), &s.compare_filter.show_verdict[v]);
  }
  ImGui::SameLine();
  ImGui::Checkbox("changes only", &s.compare_filter.changes_only);
  ImGui::SameLine();
  ImGui::Checkbox("gate failures only", &s.compare_filter.gate_failures_only);
  ImGui::SameLine();
  ImGui::TextDisabled("%zu of %zu pairs", shown, total);
}

void ToneCell(reports::Tone tone) {
  ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, ToU32(ToneColour(tone)));
}

void DrawPairRow(ViewerState& s, const reports::PairSummary& p, int index) {
  ImGui::TableNextRow();
  ImGui::TableSetColumnIndex(0);
  ImGui::PushID(index);
  if (ImGui::Selectable(p.kernel_id.c_str(), s.compare_selected == index,
                        ImGuiSelectableFlags_SpanAllColumns)) {
    s.compare_selected = index;
  }
  ImGui::PopID();
  ImGui::TableSetColumnIndex(1);
  ImGui::TextUnformatted(p.problem_key.c_str());
  ImGui::TableSetColumnIndex(2);
  if (p.correctness_regression) ToneCell(reports::Tone::kFailure);
  ImGui::TextUnformatted(p.StatusText(" -> ").c_str());
  ImGui::TableSetColumnIndex(3);
  ImGui::TextUnformatted(reports::FormatValue(p.base_median).c_str());
  ImGui::TableSetColumnIndex(4);
  ImGui::TextUnformatted(reports::FormatValue(p.next_median).c_str());
  ImGui::TableSetColumnIndex(5);
  ToneCell(p.tone);
  if (std::isnan(p.delta_pct.value)) {
    ImGui::TextDisabled("-");
  } else {
    ImGui::Text("%+.1f%%", p.delta_pct.value);
  }
  ImGui::TableSetColumnIndex(6);
  ImGui::TextUnformatted(reports::FormatValue(p.p_value).c_str());
  ImGui::TableSetColumnIndex(7);
  ToneCell(p.tone);
  ImGui::TextUnformatted(reports::VerdictName(p.verdict));
  ImGui::TableSetColumnIndex(8);
  if (p.gate == reports::GateMark::kFail) {
    ToneCell(reports::Tone::kFailure);
    std::string rules;
    for (const reports::GateFailure* f : p.gate_failures)
      rules += (rules.empty() ? "" : ", ") + f->rule;
    ImGui::TextUnformatted(rules.c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.failure.c_str());
  } else {
    ImGui::TextUnformatted(reports::GateMarkName(p.gate));
  }
  ImGui::TableSetColumnIndex(9);
  const std::string rule = p.note.empty()             ? p.verdict_reason
                           : p.verdict_reason.empty() ? p.note
                                                      : p.note + "; " + p.verdict_reason;
  ImGui::TextUnformatted(rule.c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("judged by %s\n%s", p.judged_by.c_str(), rule.c_str());
}

void ReadSortSpecs(ViewerState& s) {
  ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs();
  if (!specs || !specs->SpecsDirty) return;
  s.compare_sort.clear();
  for (int i = 0; i < specs->SpecsCount; ++i) {
    const ImGuiTableColumnSortSpecs& c = specs->Specs[i];
    s.compare_sort.push_back(
        {CompareColumn(c.ColumnUserID), c.SortDirection == ImGuiSortDirection_Descending});
  }
  specs->SpecsDirty = false;
}

void DrawPairTable(ViewerState& s, const reports::ComparisonSummary& summary,
                   const std::vector<int>& order, float height) {
  constexpr int kCols = int(CompareColumn::kCount);
  ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                          ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV |
                          ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_Sortable |
                          ImGuiTableFlags_SortMulti;
  if (!ImGui::BeginTable("compare", kCols, flags, ImVec2(0, height))) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  for (int c = 0; c < kCols; ++c) {
    ImGuiTableColumnFlags cf =
        c == int(CompareColumn::kVerdict) ? ImGuiTableColumnFlags_DefaultSort : 0;
    ImGui::TableSetupColumn(CompareColumnName(CompareColumn(c)), cf, 0, ImGuiID(c));
  }
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  for (int c = 0; c < kCols; ++c) {
    if (!ImGui::TableSetColumnIndex(c)) continue;
    ImGui::TableHeader(CompareColumnName(CompareColumn(c)));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", CompareColumnHelp(CompareColumn(c)));
  }
  ReadSortSpecs(s);
  ImGuiListClipper clipper;
  clipper.Begin(int(order.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const int index = order[size_t(i)];
      DrawPairRow(s, summary.pairs[size_t(index)], index);
    }
  }
  ImGui::EndTable();
}

// Base and new heatmaps of the selected pair, the new panel following the base panel's settings,
// both on one colour scale so that equal colours are equal errors.
void DrawSideBySide(ViewerState& s, const reports::PairSummary& p) {
  const reports::CaseResult* sides[2] = {p.base, p.next};
  s.side_next.index = s.side_base.index;
  s.side_next.mean = s.side_base.mean;
  s.side_next.log = s.side_base.log;
  s.side_next.overlay = s.side_base.overlay;
  std::optional<ValueRange> range;
  for (const reports::CaseResult* c : sides) {
    if (!c->verification || c->verification->heatmaps.empty()) continue;
    const auto& maps = c->verification->heatmaps;
    const auto& h = maps[size_t(std::clamp(s.side_base.index, 0, int(maps.size()) - 1))];
    const ValueRange r = HeatmapRange(h, s.side_base.mean, s.side_base.log);
    range = range ? Union(*range, r, s.side_base.log) : r;
  }
  // The comparison's rebuild count names the reports' versions: a reload makes new images.
  const std::string gens = std::to_string(s.compare.rebuilds()) + "/" + p.key;
  const float w = ImGui::GetContentRegionAvail().x / 2 - 4;
  HeatmapView* views[2] = {&s.side_base, &s.side_next};
  for (int i = 0; i < 2; ++i) {
    if (i) ImGui::SameLine();
    ImGui::BeginChild(i == 0 ? "side_base" : "side_next", ImVec2(w, 0), true);
    ImGui::Text("%s: %s", i == 0 ? "base" : "new", CaseStatusName(sides[i]->status));
    // The new panel draws no switches of its own: it mirrors the base panel's.
    if (i == 1) ImGui::TextDisabled("(follows the base panel's switches)");
    DrawHeatmapPanel(*views[i], s.TexturesFor(), (i == 0 ? "base/" : "next/") + gens, *sides[i],
                     i == 0, range ? &*range : nullptr);
    ImGui::EndChild();
  }
}

// The comparison of the first two reports, or null (with why in *why) when there is none.
const ComparedReports* Compared(ViewerState& s, std::string* why) {
  const auto& loaded = s.session->reports();
  const int n = int(loaded.size());
  if (s.compare_base < 0 || s.compare_base >= n || s.compare_next < 0 || s.compare_next >= n ||
      s.compare_base == s.compare_next) {
    *why =
        "Compare needs two reports: flashscope-view BASE.json NEW.json (the first is the base), "
        "or a change point of the history view.";
    return nullptr;
  }
  const LoadedReport& lb = loaded[size_t(s.compare_base)];
  const LoadedReport& ln = loaded[size_t(s.compare_next)];
  if (!lb.report || !ln.report) {
    *why = "Cannot compare: " + (!lb.report ? lb.name : ln.name) +
           " did not load; see the error panel above.";
    return nullptr;
  }
  return &s.compare.Get(lb.report, lb.generation, ln.report, ln.generation, s.policy);
}

}  // namespace

bool SelectPairById(ViewerState& s, const std::string& id) {
  std::string why;
  const ComparedReports* cr = Compared(s, &why);
  if (cr == nullptr || id.empty()) return false;
  const auto& pairs = cr->summary.pairs;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < pairs.size(); ++i) {
      if (pass == 0 ? pairs[i].key == id : pairs[i].key.find(id) != std::string::npos) {
        s.compare_selected = int(i);
        s.side_by_side = true;
        return true;
      }
    }
  }
  return false;
}

const reports::CaseResult* SelectedPairBase(ViewerState& s) {
  std::string why;
  const ComparedReports* cr = Compared(s, &why);
  if (cr == nullptr || s.compare_selected < 0 ||
      s.compare_selected >= int(cr->summary.pairs.size())) {
    return nullptr;
  }
  return cr->summary.pairs[size_t(s.compare_selected)].base;
}

void DrawCompareView(ViewerState& s) {
  std::string why;
  const ComparedReports* compared = Compared(s, &why);
  if (compared == nullptr) {
    ImGui::TextWrapped("%s", why.c_str());
    return;
  }
  const ComparedReports& cr = *compared;
  const auto& loaded = s.session->reports();
  const reports::ComparisonSummary& summary = cr.summary;
  DrawHeader(cr, loaded[size_t(s.compare_base)].name, loaded[size_t(s.compare_next)].name);
  const std::vector<int> order = FilterAndSortPairs(summary, s.compare_filter, s.compare_sort);
  DrawFilterBar(s, order.size(), summary.pairs.size());
  DrawUnpaired("only in base", summary.only_base);
  DrawUnpaired("only in new", summary.only_next);
  if (s.compare_selected >= int(summary.pairs.size())) s.compare_selected = -1;
  const reports::PairSummary* selected =
      s.compare_selected >= 0 ? &summary.pairs[size_t(s.compare_selected)] : nullptr;
  if (selected != nullptr) {
    ImGui::Checkbox("heatmaps side by side", &s.side_by_side);
    ImGui::SameLine();
    ImGui::TextDisabled("%s", selected->key.c_str());
  } else {
    ImGui::TextDisabled("select a pair to open its two heatmaps side by side");
  }
  const bool side = selected != nullptr && s.side_by_side;
  const float avail = ImGui::GetContentRegionAvail().y;
  DrawPairTable(s, summary, order, side ? avail * 0.4f : 0.f);
  if (side) DrawSideBySide(s, *selected);
}

}  // namespace flashscope::viewer
