// A single-file, offline HTML report: inline CSS and inline SVG charts, no scripts or fonts from
// the network, so it can be attached to a CI run and opened anywhere. Charts: ladder bars
// (TFLOPS per kernel for each problem), a roofline against the measured peaks, and error
// heatmaps of the verification; a comparison adds a delta bar chart. Warnings (synthetic,
// incomplete, forced) open the page in a red banner.
#pragma once

#include <string>

#include "analysis/compare.h"
#include "analysis/gate.h"
#include "reports/report.h"

namespace flashscope::reports {

struct HtmlLimits {
  int ladder_problems = 12;  // problems with a ladder chart (those with the most timed kernels)
  int heatmaps = 12;         // heatmaps drawn (failed cases first); each is rows × cols rects
  int delta_bars = 60;       // comparison: the most-changed pairs in the delta chart
};

std::string RenderReportHtml(const Report& report, const HtmlLimits& limits = {});
std::string RenderComparisonHtml(const Comparison& comparison, const GateResult* gate,
                                 const HtmlLimits& limits = {});

}  // namespace flashscope::reports
