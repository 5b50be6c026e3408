// The compare view: the first report on the command line is the base, the second the new run.
// Pairing and notes come from reports/compare.h, the same code as `flashscope compare`; this view
// only colours the deltas (green better, red worse, saturating at 2x) and lists unpaired cases.
#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "reports/compare.h"
#include "viewer/case_values.h"
#include "viewer/chart_model.h"
#include "viewer/plot_helpers.h"
#include "viewer/viewer_state.h"

namespace flashscope::viewer {
namespace {

struct CompareCache {
  uint64_t base_gen = 0, next_gen = 0;
  // The comparison points into these reports; holding them keeps the pointers valid across a
  // reload of either file.
  std::shared_ptr<const reports::Report> base, next;
  reports::Comparison cmp;
};

void CellDelta(double base, double next, bool lower_is_better, const char* fmt) {
  if (std::isnan(base) || std::isnan(next)) {
    ImGui::TextDisabled("-");
    return;
  }
  ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg,
                         ToU32(DeltaColour(base, next, lower_is_better)));
  ImGui::Text(fmt, base, next);
}

void DrawUnpaired(const char* title, const std::vector<const reports::CaseResult*>& cases) {
  if (cases.empty()) return;
  char header[96];
  std::snprintf(header, sizeof header, "%s (%zu)", title, cases.size());
  if (ImGui::CollapsingHeader(header)) {
    for (const auto* c : cases) ImGui::BulletText("%s", c->Key().c_str());
  }
}

}  // namespace

void DrawCompareView(ViewerState& s) {
  const auto& loaded = s.session->reports();
  if (loaded.size() < 2) {
    ImGui::TextWrapped(
        "Compare needs two reports: flashscope-view BASE.json NEW.json (the first "
        "is the base).");
    return;
  }
  const LoadedReport& lb = loaded[0];
  const LoadedReport& ln = loaded[1];
  if (!lb.report || !ln.report) {
    ImGui::TextWrapped("Cannot compare: %s did not load; see the error panel above.",
                       (!lb.report ? lb.name : ln.name).c_str());
    return;
  }
  static CompareCache cache;
  if (cache.base_gen != lb.generation || cache.next_gen != ln.generation) {
    cache.base = lb.report;
    cache.next = ln.report;
    cache.cmp = reports::Compare(*cache.base, *cache.next);
    cache.base_gen = lb.generation;
    cache.next_gen = ln.generation;
  }
  const reports::Comparison& cmp = cache.cmp;
  ImGui::Text("base: %s", lb.name.c_str());
  ImGui::Text("new:  %s", ln.name.c_str());
  if (cmp.different_gpu || !cmp.environment_note.empty()) {
    ImGui::TextColored(ImVec4(1, 0.7f, 0.2f, 1), "%s%s",
                       cmp.different_gpu ? "DIFFERENT GPUs: " : "", cmp.environment_note.c_str());
  }
  ImGui::TextDisabled(
      "%zu paired, %zu only in base, %zu only in new; colour: green faster, red "
      "slower, full at 2x",
      cmp.paired.size(), cmp.only_base.size(), cmp.only_next.size());
  DrawUnpaired("only in base", cmp.only_base);
  DrawUnpaired("only in new", cmp.only_next);

  ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                          ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV |
                          ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg;
  if (!ImGui::BeginTable("compare", 7, flags)) return;
  ImGui::TableSetupScrollFreeze(1, 1);
  ImGui::TableSetupColumn("Kernel");
  ImGui::TableSetupColumn("Problem");
  ImGui::TableSetupColumn("Status");
  ImGui::TableSetupColumn("Median ms (base -> new)");
  ImGui::TableSetupColumn("Delta");
  ImGui::TableSetupColumn("Tensor % (base -> new)");
  ImGui::TableSetupColumn("Note");
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(int(cmp.paired.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const reports::CaseDelta& d = cmp.paired[size_t(i)];
      ImGui::TableNextRow();
      ImGui::TableSetColumnIndex(0);
      ImGui::TextUnformatted(d.kernel_id.c_str());
      ImGui::TableSetColumnIndex(1);
      ImGui::TextUnformatted(d.problem_key.c_str());
      ImGui::TableSetColumnIndex(2);
      bool bp = d.base && d.base->status == reports::CaseStatus::kPassed;
      bool np = d.next && d.next->status == reports::CaseStatus::kPassed;
      if (d.base && d.next && d.IsCorrectnessRegression()) {
        ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, ToU32(palette::kWorse));
      } else if (!bp && np) {
        ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, ToU32(palette::kBetter));
      }
      ImGui::Text("%s -> %s", d.base ? CaseStatusName(d.base->status) : "?",
                  d.next ? CaseStatusName(d.next->status) : "?");
      ImGui::TableSetColumnIndex(3);
      CellDelta(d.base_median_ms, d.next_median_ms, true, "%.4f -> %.4f");
      ImGui::TableSetColumnIndex(4);
      if (std::isnan(d.delta_pct)) {
        ImGui::TextDisabled("-");
      } else {
        ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg,
                               ToU32(DeltaColour(d.base_median_ms, d.next_median_ms, true)));
        ImGui::Text("%+.1f%%", d.delta_pct);
      }
      ImGui::TableSetColumnIndex(5);
      auto tb = d.base ? FindMetric(*d.base, MetricKind::kTensorPipe) : std::nullopt;
      auto tn = d.next ? FindMetric(*d.next, MetricKind::kTensorPipe) : std::nullopt;
      if (tb && tn) {
        CellDelta(*tb, *tn, false, "%.1f -> %.1f");
      } else {
        ImGui::TextDisabled("-");
      }
      ImGui::TableSetColumnIndex(6);
      ImGui::TextUnformatted(d.note.c_str());
    }
  }
  ImGui::EndTable();
}

}  // namespace flashscope::viewer
