// JUnit XML, the format CI systems (GitLab, Jenkins, GitHub test reporters) turn into per-test
// results: each case is a <testcase>; verification failures and gate failures are <failure>,
// errors and timeouts <error>, skipped cases <skipped>.
#pragma once

#include <string>

#include "analysis/compare.h"
#include "analysis/gate.h"
#include "reports/report.h"

namespace flashscope::reports {

// classname = kernel id, name = problem key, time = the case's wall time.
std::string RenderReportJunit(const Report& report);

// One <testcase> per paired case and per case found on one side only. A case fails when the
// gate (if given) failed it; without a gate, when it is a correctness regression or "slower".
std::string RenderComparisonJunit(const Comparison& comparison, const GateResult* gate);

// The XML and HTML sanitiser: any string as XML 1.0 text or attribute value (the HTML page uses
// it for every string too): & < > " ' escaped, tab, line feed and carriage return as character
// references; every other control (C0, DEL, C1), bidi control (text::IsBidiControl), character
// XML forbids (U+FFFE, U+FFFF, surrogates) and byte that is not UTF-8 replaced by U+FFFD.
std::string XmlEscape(const std::string& s);

}  // namespace flashscope::reports
