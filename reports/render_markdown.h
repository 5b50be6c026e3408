// Markdown for CI step summaries ($GITHUB_STEP_SUMMARY) and pull-request comments: GitHub
// flavoured tables, warnings as block quotes first, long tables folded in <details>.
#pragma once

#include <string>

#include "reports/compare.h"
#include "reports/gate.h"
#include "reports/report.h"

namespace flashscope::reports {

// Title, warnings, environment, counts per status, then one table row per case.
std::string RenderReportMarkdown(const Report& report);

// Warnings (forced, environment), the gate's verdict and failures when `gate` is given, the
// verdict counts, the cases that changed (status, slower, faster, ambiguous) and all pairs folded.
std::string RenderComparisonMarkdown(const Comparison& comparison, const GateResult* gate);

// `|` and newlines would break a table row; backslash-escape the one, flatten the other.
std::string MarkdownCell(const std::string& s);

}  // namespace flashscope::reports
