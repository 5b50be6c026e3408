// JUnit XML, the format CI systems (GitLab, Jenkins, GitHub test reporters) turn into per-test
// results: each case is a <testcase>; verification failures and gate failures are <failure>,
// errors and timeouts <error>, skipped cases <skipped>.
#pragma once

#include <string>

#include "reports/compare.h"
#include "reports/gate.h"
#include "reports/report.h"

namespace flashscope::reports {

// classname = kernel id, name = problem key, time = the case's wall time.
std::string RenderReportJunit(const Report& report);

// One <testcase> per paired case and per case found on one side only. A case fails when the
// gate (if given) failed it; without a gate, when it is a correctness regression or "slower".
std::string RenderComparisonJunit(const Comparison& comparison, const GateResult* gate);

// Escapes & < > " ' and drops characters XML 1.0 does not allow (control characters).
std::string XmlEscape(const std::string& s);

}  // namespace flashscope::reports
