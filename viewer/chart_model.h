// The data behind the charts (ladder, roofline, heatmap, histogram, compare colours), computed
// on the CPU without ImGui or OpenGL so that it is unit-tested; the views only draw it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/comparison_summary.h"
#include "reports/report.h"
#include "viewer/palette.h"

namespace flashscope::viewer {

// ---- ladder ----
struct LadderBar {
  int case_index = -1;
  std::string kernel_id;
  int revision = 0;     // the kernel's revision in its ladder (0: not recorded)
  std::string title;    // the registry's title, "" in reports that predate it
  std::string changed;  // what this revision changed against the previous one
  double tflops = 0;
  double pct_peak = 0;
  reports::CaseStatus status = reports::CaseStatus::kSkipped;
};

struct Ladder {
  std::string problem_key;
  // Ordered by revision, then id (reports without revisions: by id, which carries a zero-padded
  // number).
  std::vector<LadderBar> rungs;
  std::vector<LadderBar> peers;  // "peer.*" kernels, drawn as horizontal lines
  double max_tflops = 0;
};

// Problem keys that have at least one case with throughput, in order of first appearance.
std::vector<std::string> LadderProblems(const reports::Report& report);
Ladder BuildLadder(const reports::Report& report, const std::string& problem_key);

// ---- roofline ----
struct RooflinePoint {
  int case_index = -1;
  double intensity = 0;  // FLOPs per byte of minimal traffic
  double tflops = 0;
  bool peer = false;
  reports::CaseStatus status = reports::CaseStatus::kPassed;
};

struct Roofline {
  std::vector<RooflinePoint> points;
  double bandwidth_gbps = 0;  // measured copy bandwidth, 0 when not measured
  double peak_fp16_tflops = 0;
  double peak_bf16_tflops = 0;
  double min_intensity = 0, max_intensity = 0;  // axis range (log scale), covers the ridge
  double min_tflops = 0, max_tflops = 0;
};

Roofline BuildRoofline(const reports::Report& report);
// The attainable TFLOPS at an intensity under a compute peak and a bandwidth (GB/s).
double AttainableTflops(double intensity, double peak_tflops, double bandwidth_gbps);

// ---- heatmap ----
struct HeatmapImage {
  int width = 0, height = 0;
  std::vector<uint32_t> rgba;  // ImGui/OpenGL byte order R,G,B,A in memory
  double lo = 0, hi = 0;       // value range mapped onto the colour map
  bool log_scale = false;
  int64_t saturated = 0;  // cells drawn in palette::kSaturated (reports::IsSaturatedCell)
  std::string error;      // non-empty when the record is inconsistent (then rgba is empty)
};

// The values a map spans under a scale: linear 0..max, or log10 over the positive values (at most
// eight decades below the maximum, so that a few exact zeros do not flatten the map). Saturated
// cells are left out.
struct ValueRange {
  double lo = 0, hi = 0;
};
ValueRange HeatmapRange(const reports::HeatmapRecord& h, bool use_mean, bool log_scale);
// Two maps on one scale (side by side): the range that holds both.
ValueRange Union(ValueRange a, ValueRange b, bool log_scale);

// Maps max (or mean) onto the colour map over `range` (the map's own HeatmapRange when null).
HeatmapImage BuildHeatmapImage(const reports::HeatmapRecord& h, bool use_mean, bool log_scale,
                               const ValueRange* range = nullptr);
// Position of a value in [0, 1] under the image's scale.
double ScalePosition(double v, double lo, double hi, bool log_scale);

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
