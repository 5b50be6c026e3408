// CSV (RFC 4180) for spreadsheets and pandas: one header line, one row per case, numbers in
// full precision, empty cells for values a case does not have. The environment's warnings are
// columns (`synthetic`, `forced_environment`) rather than comment lines, which CSV lacks.
#pragma once

#include <string>

#include "reports/compare.h"
#include "reports/gate.h"
#include "reports/report.h"

namespace flashscope::reports {

std::string RenderReportCsv(const Report& report);

// One row per paired case, then per case found on one side only (`side` says which).
std::string RenderComparisonCsv(const Comparison& comparison, const GateResult* gate);

// Quotes a field when it holds a comma, quote, CR or LF; quotes inside are doubled.
std::string CsvField(const std::string& s);

}  // namespace flashscope::reports
