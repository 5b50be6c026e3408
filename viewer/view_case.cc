// The case view: what was measured for one case, and where its kernel came from (built in, or a
// plugin file with its version and hash). Left: status, verification statistics with the
// verdict and the rule that decided it, resource usage, metrics as bars out of 100 %. Right: the
// error heatmap (see heatmap_widget.cc) and the histogram of the raw timing samples.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "reports/provenance.h"
#include "analysis/summary.h"
#include "viewer/chart_model.h"
#include "viewer/heatmap_widget.h"
#include "viewer/plot_helpers.h"
#include "viewer/viewer_state.h"

namespace flashscope::viewer {
namespace {

void DrawVerification(const reports::CaseResult& c) {
  ImGui::TextUnformatted("Verification");
  ImGui::Separator();
  if (!c.verification || !c.verification->ran) {
    ImGui::TextDisabled("not verified (%s)",
                        c.reason.empty() ? "no verification record" : c.reason.c_str());
    return;
  }
  const auto& v = *c.verification;
  ImVec4 col = v.passed ? ImVec4(0.4f, 0.9f, 0.4f, 1) : ImVec4(1, 0.35f, 0.35f, 1);
  ImGui::TextColored(col, "%s  (%.2fx the naive same-precision error)",
                     v.passed ? "PASSED" : "FAILED", v.ratio_to_baseline);
  ImGui::TextWrapped("rule: %s", v.rule.empty() ? "(not recorded)" : v.rule.c_str());
  const auto& st = v.stats;
  ImGui::Text("reference %s   atol %.3g  rtol %.3g", v.reference.c_str(), v.atol, v.rtol);
  ImGui::Text("max abs %.4g   mean abs %.4g   NRMSE %.4g", st.max_abs, st.mean_abs, st.nrmse);
  ImGui::Text("max rel %.4g   naive max abs %.4g", st.max_rel, v.baseline_max_abs);
  ImGui::Text("bad %lld / %lld   NaN %lld   Inf %lld   never written %lld", (long long)st.bad,
              (long long)st.elements, (long long)st.nan, (long long)st.inf,
              (long long)st.never_written);
  if (st.worst_index >= 0)
    ImGui::Text("worst element at flat index %lld", (long long)st.worst_index);
  if (!v.dump_dir.empty()) ImGui::TextWrapped(".npy dumps: %s", v.dump_dir.c_str());
}

void DrawTiming(const reports::CaseResult& c) {
  ImGui::Spacing();
  ImGui::TextUnformatted("Timing");
  ImGui::Separator();
  if (!c.timing) {
    ImGui::TextDisabled("not timed");
    return;
  }
  const auto& t = *c.timing;
  ImGui::Text("%s: median %.4f ms  (p10 %.4f, p90 %.4f, min %.4f)", t.mode.c_str(), t.median_ms,
              t.p10_ms, t.p90_ms, t.min_ms);
  ImGui::Text("noise %.2f%%  %s  samples %zu  throttled rejected %d", t.noise * 100,
              t.converged ? "converged" : "NOT converged", t.samples_ms.size(),
              t.samples_rejected_throttled);
  if (!t.stop_reason.empty()) ImGui::TextWrapped("stopped: %s", t.stop_reason.c_str());
  if (c.throughput) {
    ImGui::Text("%.1f TFLOPS (%.1f%% of peak)   %.0f GB/s (%.1f%% of copy bandwidth)",
                c.throughput->tflops, c.throughput->pct_peak_flops, c.throughput->gbps,
                c.throughput->pct_peak_bandwidth);
  }
}

void DrawMetrics(const reports::CaseResult& c) {
  ImGui::Spacing();
  ImGui::TextUnformatted("Metrics");
  ImGui::Separator();
  if (!c.profile) {
    ImGui::TextDisabled("not profiled");
    return;
  }
  if (!c.profile->available) {
    ImGui::TextWrapped("profiler unavailable: %s", c.profile->unavailable_reason.c_str());
    return;
  }
  for (const auto& m : c.profile->metrics) {
    char text[160];
    if (m.unit == "%") {
      std::snprintf(text, sizeof text, "%-22s %6.1f %%", m.name.c_str(), m.value);
      FractionBar(float(m.value / 100.0), palette::kBar, text);
    } else {
      ImGui::Text("%-22s %.4g %s", m.name.c_str(), m.value, m.unit.c_str());
    }
    // The catalogue's plain description first; the hardware name for those who know CUPTI.
    if (ImGui::IsItemHovered()) {
      ImGui::SetTooltip("%s\n%s", reports::MetricDescription(m).c_str(),
                        m.hw_name.empty() ? "" : m.hw_name.c_str());
    }
  }
  ImGui::TextDisabled("%d passes (%s replay), %d kernel(s), %.2f s", c.profile->passes,
                      c.profile->replay.empty() ? "user" : c.profile->replay.c_str(),
                      c.profile->kernels, c.profile->wall_s);
}

void DrawResources(const reports::CaseResult& c) {
  ImGui::Spacing();
  ImGui::TextUnformatted("Resources");
  ImGui::Separator();
  if (c.resources.empty()) {
    ImGui::TextDisabled("none recorded (library peers do not expose their kernels)");
    return;
  }
  for (const auto& r : c.resources) {
    ImGui::TextWrapped("%s", r.function.c_str());
    ImGui::Text("  %d regs  smem %d+%d B  local %d B%s  %d threads  occupancy %.0f%%", r.registers,
                r.static_smem_bytes, r.dynamic_smem_bytes, r.local_bytes,
                r.local_bytes > 0 ? " (spills!)" : "", r.block_threads,
                r.theoretical_occupancy * 100);
  }
}

void DrawSampleHistogram(const reports::CaseResult& c) {
  ImGui::TextUnformatted("Raw timing samples");
  if (!c.timing || c.timing->samples_ms.empty()) {
    ImGui::TextDisabled("no samples in the report");
    return;
  }
  const auto& samples = c.timing->samples_ms;
  int bins = std::clamp(int(std::sqrt(double(samples.size())) * 2), 8, 60);
  Histogram h = BuildHistogram(samples, bins);
  PlotArea a = BeginPlotArea("##hist", ImVec2(0, 0));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  float label_h = ImGui::GetTextLineHeight() + 2;
  float bottom = a.max.y - label_h, height = std::max(10.f, a.Height() - label_h - 4);
  float bw = a.Width() / float(h.counts.size());
  for (size_t i = 0; i < h.counts.size(); ++i) {
    float bh = h.max_count ? height * float(h.counts[i]) / float(h.max_count) : 0;
    float x0 = a.min.x + bw * float(i);
    dl->AddRectFilled(ImVec2(x0 + 1, bottom - bh), ImVec2(x0 + bw - 1, bottom),
                      ToU32(palette::kHistogram));
  }
  auto x_of = [&](double v) { return a.min.x + float((v - h.lo) / (h.hi - h.lo)) * a.Width(); };
  float xm = x_of(c.timing->median_ms);
  dl->AddLine(ImVec2(xm, a.min.y), ImVec2(xm, bottom), IM_COL32(255, 255, 255, 255), 2);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f ms", h.lo);
  dl->AddText(ImVec2(a.min.x + 2, bottom + 1), IM_COL32(200, 200, 200, 255), buf);
  std::snprintf(buf, sizeof buf, "%.4f ms", h.hi);
  float w = ImGui::CalcTextSize(buf).x;
  dl->AddText(ImVec2(a.max.x - w - 2, bottom + 1), IM_COL32(200, 200, 200, 255), buf);
  std::snprintf(buf, sizeof buf, "median %.4f ms, %zu samples", c.timing->median_ms,
                samples.size());
  TextCentered(dl, xm, a.min.y + 2, IM_COL32(255, 255, 255, 255), buf);
  if (a.hovered) {
    float mx = ImGui::GetIO().MousePos.x;
    int b = std::clamp(int((mx - a.min.x) / bw), 0, int(h.counts.size()) - 1);
    double b0 = h.lo + (h.hi - h.lo) * b / double(h.counts.size());
    double b1 = h.lo + (h.hi - h.lo) * (b + 1) / double(h.counts.size());
    ImGui::SetTooltip("%.4f .. %.4f ms: %d samples", b0, b1, h.counts[size_t(b)]);
  }
}

}  // namespace

void DrawCaseView(ViewerState& s) {
  const reports::CaseResult* c = s.SelectedCase();
  if (!c) {
    ImGui::TextWrapped(
        "No case selected: pick one in the Results view (click, or arrows and "
        "Enter), or start with --case ID.");
    return;
  }
  ImGui::Text("%s  |  %s  |  %s", c->kernel_id.c_str(), c->problem_key.c_str(),
              CaseStatusName(c->status));
  if (!c->kernel_title.empty()) {
    ImGui::TextWrapped("%s%s%s", c->kernel_title.c_str(), c->kernel_changed.empty() ? "" : ": ",
                       c->kernel_changed.c_str());
  }
  if (!c->reason.empty()) ImGui::TextWrapped("reason: %s", c->reason.c_str());
  ImGui::TextDisabled("inputs %s, seed %llu, wall %.2f s", c->input_kind.c_str(),
                      (unsigned long long)c->seed, c->wall_s);
  if (c->provenance) {
    // The whole hash: it is what identifies the plugin build.
    const std::string from = reports::DescribeProvenance(*c->provenance, /*full_hash=*/true);
    ImGui::TextDisabled("kernel from %s", from.c_str());
  }

  ImVec2 avail = ImGui::GetContentRegionAvail();
  float left_w = std::min(480.f, avail.x * 0.4f);
  ImGui::BeginChild("case_left", ImVec2(left_w, 0), true);
  DrawVerification(*c);
  DrawTiming(*c);
  DrawMetrics(*c);
  DrawResources(*c);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("case_right", ImVec2(0, 0), false);
  float hist_h = std::max(120.f, ImGui::GetContentRegionAvail().y * 0.3f);
  ImGui::BeginChild("heatmap", ImVec2(0, ImGui::GetContentRegionAvail().y - hist_h), true);
  DrawHeatmapPanel(s.heatmap, s.TexturesFor(),
                   "case/" + std::to_string(s.report_index) + "/" +
                       std::to_string(s.CurrentGeneration()) + "/" +
                       std::to_string(s.selected_case),
                   *c);
  ImGui::EndChild();
  ImGui::BeginChild("hist", ImVec2(0, 0), true);
  DrawSampleHistogram(*c);
  ImGui::EndChild();
  ImGui::EndChild();
}

}  // namespace flashscope::viewer
