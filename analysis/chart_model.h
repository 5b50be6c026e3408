// The one chart model: what the ladder, the roofline and the heatmaps show of a report, computed
// once for every view that draws them (the viewer's ImGui charts, the HTML report's SVG), so that
// both draw the same points from one report. The views only map these numbers to pixels.
//
// The semantics (docs/architecture.md, "Charts"):
// - Ladder, one per problem: every case of the problem, our revisions as bars in revision order
//   and the library peers ("peer.*") apart, as reference lines. A case that did not pass keeps its
//   place with its status named (a failing rung must not vanish from the ladder); one without
//   throughput (skipped, error) is a slot with no bar.
// - Roofline: every case with throughput, at (FLOP per byte of minimal traffic, TFLOPS), coloured
//   by status, peers apart, under the ceilings the run measured (matmul peak per dtype, copy).
// - Heatmaps: one value range per map (ScalePosition, HeatmapRange), saturated cells apart; the
//   kernel's structure over it is analysis/heatmap_overlay.h.
//
// Every number that leaves this model is finite and inside the bounds below: a point whose
// throughput, FLOPs, bytes or intensity is missing, zero, negative, NaN, infinite or absurd
// (1.79e308 TFLOPS) is left out and counted in the chart's note, so no view can be led into an
// unbounded loop or a degenerate axis by a hostile or damaged report.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "reports/report.h"

namespace flashscope::reports {

// What a chart may show. 1e6 TFLOPS is an exaFLOP/s, three orders of magnitude above any GPU
// made; intensities outside [1e-6, 1e9] FLOP/byte are not kernels but broken counts.
constexpr double kChartMaxTflops = 1e6;
constexpr double kChartMinTflops = 1e-9;
constexpr double kChartMinIntensity = 1e-6;
constexpr double kChartMaxIntensity = 1e9;
constexpr double kChartMaxBandwidthGbps = 1e9;
// A log axis carries at most this many ticks, whatever its range (every k-th decade beyond).
constexpr int kChartMaxTicks = 16;

// What a chart left out, and why (the first few examples).
struct ChartNote {
  int left_out = 0;
  std::vector<std::string> examples;  // "<case key>: <reason>", at most kMaxExamples
  static constexpr size_t kMaxExamples = 3;
  void LeaveOut(const std::string& what, const std::string& why);
  // "2 cases left out of this chart (not finite or out of range): a: tflops inf; b: ..." or "".
  std::string Text() const;
};

// ---- ladder ----
struct LadderBar {
  int case_index = -1;
  std::string kernel_id;
  int revision = 0;     // the kernel's revision in its ladder (0: not recorded)
  std::string title;    // the registry's title, "" in reports that predate it
  std::string changed;  // what this revision changed against the previous one
  bool timed = false;   // has a finite, bounded throughput (else a slot without a bar)
  double tflops = 0;
  double pct_peak = 0;  // 0 when not finite
  CaseStatus status = CaseStatus::kSkipped;
};

struct Ladder {
  std::string problem_key;
  // Ordered by revision, then id (reports without revisions: by id, which carries a zero-padded
  // number).
  std::vector<LadderBar> rungs;
  std::vector<LadderBar> peers;  // "peer.*" kernels, drawn as reference lines (timed ones only)
  double max_tflops = 0;         // over rungs and peers; 0 when nothing is timed
  ChartNote note;
};

// Kernel ids of library implementations start with "peer." (kernels/registry.h).
bool IsPeerKernel(const std::string& kernel_id);

// Problem keys with at least one case that has a drawable throughput, in order of first
// appearance (the suite's order).
std::vector<std::string> LadderProblems(const Report& report);
Ladder BuildLadder(const Report& report, const std::string& problem_key);

// ---- log axes ----
struct LogAxis {
  double min = 1, max = 10;   // whole decades, min < max, both finite and positive
  std::vector<double> ticks;  // decades from min to max, at most kChartMaxTicks
};
// The axis that holds [lo, hi] (clamped into [floor, ceiling] first), rounded out to decades.
LogAxis MakeLogAxis(double lo, double hi, double floor, double ceiling);

// ---- roofline ----
struct RooflinePoint {
  int case_index = -1;
  double intensity = 0;  // FLOPs per byte of minimal traffic
  double tflops = 0;
  bool peer = false;
  CaseStatus status = CaseStatus::kPassed;
};

struct Ceiling {
  std::string dtype;  // "fp16" or "bf16"
  double peak_tflops = 0;
  double ridge = 0;  // the intensity where the bandwidth slope meets the peak
  // The roof as a polyline over the axis: (intensity, TFLOPS) at the axis' left edge, the ridge
  // (when inside the axis) and the right edge.
  std::vector<std::pair<double, double>> polyline;
};

struct Roofline {
  std::vector<RooflinePoint> points;
  double bandwidth_gbps = 0;  // measured copy bandwidth, 0 when not measured (or not usable)
  double peak_fp16_tflops = 0;
  double peak_bf16_tflops = 0;
  std::vector<Ceiling> ceilings;  // drawn only when a peak and the bandwidth are both usable
  LogAxis intensity;              // covers the points and the ridges
  LogAxis tflops;
  ChartNote note;
};

Roofline BuildRoofline(const Report& report);
// The attainable TFLOPS at an intensity under a compute peak and a bandwidth (GB/s).
double AttainableTflops(double intensity, double peak_tflops, double bandwidth_gbps);

// ---- heatmap scale ----
// The values a map spans under a scale: linear 0..max, or log10 over the positive values (at most
// eight decades below the maximum, so that a few exact zeros do not flatten the map). Saturated
// cells (IsSaturatedCell) and non-finite values are left out.
struct ValueRange {
  double lo = 0, hi = 0;
};
ValueRange HeatmapRange(const HeatmapRecord& h, bool use_mean, bool log_scale);
// Two maps on one scale (side by side): the range that holds both.
ValueRange Union(ValueRange a, ValueRange b, bool log_scale);
// Position of a value in [0, 1] under a scale (NaN stays NaN).
double ScalePosition(double v, double lo, double hi, bool log_scale);

}  // namespace flashscope::reports
