// The one switch from an output format to its printer, for a report and for a comparison (with or
// without the gate's decision). Every printer renders the summary model (analysis/summary.h); the
// CLI only picks the format and where the text goes.
#pragma once

#include <optional>
#include <string>

#include "analysis/compare.h"
#include "analysis/gate.h"
#include "reports/report.h"

namespace flashscope::reports {

enum class Format { kTerminal, kMarkdown, kJunit, kCsv, kHtml };

// "terminal", "markdown", "junit", "csv", "html"; nullopt for anything else.
std::optional<Format> ParseFormat(const std::string& name);
const char* FormatName(Format f);

// Terminal: the summary, a blank line, the case table (ANSI colour only when `color`). The file
// formats ignore `color`.
std::string RenderReportAs(Format format, const Report& report, bool color);

// Terminal: the comparison, then (with `gate`) the gate's decision. The file formats carry the
// gate's failures per case when `gate` is given.
std::string RenderComparisonAs(Format format, const Comparison& comparison, const GateResult* gate,
                               bool color);

// What `flashscope gate` prints to a CI log: the verdict counts of the pairs, then the decision
// and one line per failure.
std::string RenderGateLog(const Comparison& comparison, const GateResult& gate, bool color);

}  // namespace flashscope::reports
