// The data behind the viewer's charts (ladder, roofline, heatmap image, histogram, compare
// colours), computed on the CPU without ImGui or OpenGL so that it is unit-tested; the views only
// draw it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/chart_model.h"
#include "analysis/comparison_summary.h"
#include "reports/report.h"
#include "viewer/palette.h"

namespace flashscope::viewer {

// The ladder, the roofline and the heatmap scale are the one chart model the HTML report draws too
// (analysis/chart_model.h); the views use its names unqualified.
using reports::AttainableTflops;
using reports::BuildLadder;
using reports::BuildRoofline;
using reports::Ceiling;
using reports::HeatmapRange;
using reports::Ladder;
using reports::LadderBar;
using reports::LadderProblems;
using reports::LogAxis;
using reports::Roofline;
using reports::RooflinePoint;
using reports::ScalePosition;
using reports::Union;
using reports::ValueRange;

// ---- heatmap ----
struct HeatmapImage {
  int width = 0, height = 0;
  std::vector<uint32_t> rgba;  // ImGui/OpenGL byte order R,G,B,A in memory
  double lo = 0, hi = 0;       // value range mapped onto the colour map
  bool log_scale = false;
  int64_t saturated = 0;  // cells drawn in palette::kSaturated (reports::IsSaturatedCell)
  std::string error;      // non-empty when the record is inconsistent (then rgba is empty)
};

// Maps max (or mean) onto the colour map over `range` (the map's own HeatmapRange when null).
HeatmapImage BuildHeatmapImage(const reports::HeatmapRecord& h, bool use_mean, bool log_scale,
                               const ValueRange* range = nullptr);

// ---- histogram ----
struct Histogram {
  double lo = 0, hi = 0;
  std::vector<int> counts;
  int max_count = 0;
};
Histogram BuildHistogram(const std::vector<double>& samples, int bins);

// ---- compare ----
// The colour of a pair's tone (analysis/comparison_summary.h): a decision, not a size: a confirmed
// slowdown of 3 % is as red as one of 30 %, an unconfirmed change of 30 % is amber.
Rgb ToneColour(reports::Tone tone);

// The short label of a rung under its bar, wrapped at '_' into lines of at most `max_chars`
// characters (at most `max_lines`, the last cut with "~"): "a11_fa4_cond_rescale" ->
// {"a11_fa4", "cond_rescale"}. The family prefix ("attn.") is dropped.
std::vector<std::string> RungLabel(const std::string& kernel_id, size_t max_chars, int max_lines);

}  // namespace flashscope::viewer
