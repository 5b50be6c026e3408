// The data behind the charts (ladder, roofline, heatmap, histogram, compare colours), computed
// on the CPU without ImGui or OpenGL so that it is unit-tested; the views only draw it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reports/report.h"
#include "viewer/palette.h"

namespace flashscope::viewer {

// ---- ladder ----
struct LadderBar {
  int case_index = -1;
  std::string kernel_id;
  double tflops = 0;
  double pct_peak = 0;
  reports::CaseStatus status = reports::CaseStatus::kSkipped;
};

struct Ladder {
  std::string problem_key;
  std::vector<LadderBar> rungs;  // ordered by kernel id (ids carry a zero-padded revision)
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
  std::string error;  // non-empty when the record is inconsistent (then rgba is empty)
};

// Maps max (or mean) onto the colour map, linear from 0..max or log10 over the positive range.
HeatmapImage BuildHeatmapImage(const reports::HeatmapRecord& h, bool use_mean, bool log_scale);
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
// Colour of a change from `base` to `next`; green when better, red when worse, saturating at a
// factor of 2 either way (Tracy's compare view); neutral grey when equal or not comparable.
Rgb DeltaColour(double base, double next, bool lower_is_better);

}  // namespace flashscope::viewer
