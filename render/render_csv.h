// CSV (RFC 4180) for spreadsheets and pandas: one header line, one row per case, numbers in
// full precision, empty cells for values a case does not have. The environment's warnings are
// columns (`synthetic`, `forced_environment`) rather than comment lines, which CSV lacks.
#pragma once

#include <string>

#include "analysis/compare.h"
#include "analysis/gate.h"
#include "reports/report.h"

namespace flashscope::reports {

std::string RenderReportCsv(const Report& report);

// One row per paired case, then per case found on one side only (`side` says which).
std::string RenderComparisonCsv(const Comparison& comparison, const GateResult* gate);

// Any string as one CSV field (RFC 4180): a text starting with = + - @ tab or CR (a spreadsheet
// formula) gets a leading ' unless it is a number; controls other than tab, CR and LF (C0, DEL,
// C1), bidi controls and bytes that are not UTF-8 become U+FFFD; quoted when it holds a comma,
// quote, CR or LF (quotes inside doubled).
std::string CsvField(const std::string& s);

}  // namespace flashscope::reports
