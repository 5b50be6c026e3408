// Terminal renderings of a report: the case table and the summary that `flashscope show` and
// `flashscope run` print. Colour is ANSI and only on request (StdoutIsTty / UseColorByDefault).
#pragma once

#include <string>

#include "analysis/compare.h"
#include "analysis/gate.h"
#include "analysis/summary.h"
#include "reports/report.h"

namespace flashscope::reports {

// One row per case: kernel, problem, status, the headline values of the summary model
// (analysis/summary.h: median ms, TFLOPS, % of measured peak, max error, error ratio to the
// same-precision baseline, the basic metrics) where any case has them, then the reason of
// skipped/error/timeout cases (and the deciding rule of failed ones). Column widths follow the
// contents; a long problem key widens its column instead of being cut. "-" marks a value the case
// does not have.
std::string RenderCaseTable(const Report& report, bool color);
// The same from a summary built once (analysis/summary.h): its cases are the rows, so a caller may
// filter summary.cases first.
std::string RenderCaseTable(const ReportSummary& summary, bool color);

// The report's warnings first (synthetic, incomplete, unreadable journal lines), then the
// environment (GPU name, SMs, architecture, driver, CUDA, measured peaks), the suite name, case
// counts per status and the total wall time.
std::string RenderSummary(const Report& report, bool color);
// The same from a summary built once; summary.source must be set (SummarizeReport sets it).
std::string RenderSummary(const ReportSummary& summary, bool color);

// What `flashscope show` and `run` print: the summary, a blank line, the case table, from one
// summary model built once.
std::string RenderReportTerminal(const Report& report, bool color);

// A comparison (`flashscope compare`): environment note, then status changes (prominent), then a
// table of paired cases with their median delta and verdict, then the cases found on one side
// only, then a geometric-mean line and the verdict counts.
std::string RenderComparison(const Comparison& comparison, bool color);

// The gate's decision: "GATE PASSED: ..." or "GATE FAILED: N failures" followed by one line per
// failure.
std::string RenderGateTerminal(const GateResult& gate, bool color);

bool StdoutIsTty();
// StdoutIsTty(), unless NO_COLOR is set (https://no-color.org) or TERM is "dumb".
bool UseColorByDefault();

}  // namespace flashscope::reports
