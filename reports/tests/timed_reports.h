// Reports of timed cases for the compare and gate tests: cases whose samples spread evenly around
// a median, so that a test sets the size of a change and the number of samples.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "reports/report.h"
#include "reports/tests/sample_reports.h"

namespace flashscope::reports::testing {

// A passed case whose samples are `median` scaled by 1 + k·0.001 for k = -n/2 .. n/2 (no ties).
inline CaseResult Timed(const std::string& kernel, double median, int n = 10) {
  CaseResult c = SimpleCase(kernel, "p1", CaseStatus::kPassed, median);
  c.timing->samples_ms.clear();
  for (int k = 0; k < n; ++k) c.timing->samples_ms.push_back(median * (1 + (k - n / 2) * 0.001));
  return c;
}

// A report of `cases` on the synthetic environment.
inline Report With(std::vector<CaseResult> cases) {
  Report r;
  r.environment = SyntheticEnvironment();
  r.cases = std::move(cases);
  return r;
}

}  // namespace flashscope::reports::testing
