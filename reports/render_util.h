// Internal: what the file renderers (markdown, JUnit, CSV, HTML) share so that they say the same
// things the same way: status counts, the one-line environment, a case's reason, the warnings
// every output must carry (synthetic, incomplete, forced), and gate failures by case key.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "reports/compare.h"
#include "reports/gate.h"
#include "reports/report.h"

namespace flashscope::reports::render {

struct StatusCounts {
  int passed = 0, failed = 0, skipped = 0, error = 0, timeout = 0;
  int total() const { return passed + failed + skipped + error + timeout; }
};
StatusCounts CountStatuses(const Report& r);

// "NVIDIA H200, 132 SMs, sm_90, driver 580.159.04, CUDA 13.0, git 0249ede"
std::string EnvironmentLine(const Environment& e);

// "N lines of the journal could not be read ...", for Report::unreadable_journal_lines > 0.
std::string UnreadableJournalLines(const Report& r);

// Sentences each output must show before anything else: a synthetic report, an incomplete one
// (recovered from a journal). Empty when there is nothing to warn about.
std::vector<std::string> ReportWarnings(const Report& r);
// The forced banner and the environment differences of a comparison.
std::vector<std::string> ComparisonWarnings(const Comparison& c);

// Skipped/error/timeout: the reason; failed: the verification rule; else "".
std::string CaseReason(const CaseResult& c);

// Median ms, or NaN when the case was not timed.
double MedianMs(const CaseResult& c);

// The tensor-pipe / shared-memory metric value, NaN when not measured.
double TensorPct(const CaseResult& c);
double SharedPct(const CaseResult& c);

// key -> the gate's failures of that case ("slowdown: ...; metric_floor: ...").
std::map<std::string, std::vector<const GateFailure*>> FailuresByKey(const GateResult* gate);

}  // namespace flashscope::reports::render
