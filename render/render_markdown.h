// Markdown for CI step summaries ($GITHUB_STEP_SUMMARY) and pull-request comments: GitHub
// flavoured tables, warnings as block quotes first, long tables folded in <details>.
#pragma once

#include <cstddef>
#include <string>

#include "analysis/compare.h"
#include "analysis/gate.h"
#include "reports/report.h"

namespace flashscope::reports {

// What a pull-request comment holds (65,536 characters on GitHub), less room for a CI's own
// lines around it. Both renderings stay under it: tables are cut (failures first) and say so.
inline constexpr size_t kMarkdownLimit = 60000;

// Title, warnings, environment, counts per status, then one table row per case.
std::string RenderReportMarkdown(const Report& report);

// Warnings (forced, environment), the gate's verdict and failures when `gate` is given, the
// verdict counts, the cases that changed (status, slower, faster, ambiguous) and all pairs folded.
std::string RenderComparisonMarkdown(const Comparison& comparison, const GateResult* gate);

// Any string as inert markdown text, fit for a table cell: raw HTML (< > &) as entities, markdown
// punctuation that could make links, images, emphasis, code or mentions backslash-escaped, `|`
// escaped so that a row keeps its columns, line breaks flattened to spaces, controls and bytes
// that are not UTF-8 as U+FFFD.
std::string MarkdownCell(const std::string& s);
// Any string as inline code: a fence of backticks longer than any run inside, `|` escaped (a
// table cell), line breaks as spaces, controls and bytes that are not UTF-8 as U+FFFD.
std::string MarkdownCode(const std::string& s);

}  // namespace flashscope::reports
