// Pairing two reports case by case (by CaseResult::Key: kernel id + problem key) and the median
// delta of each pair. Issue 5 adds statistics (Mann-Whitney U on the raw samples, verdicts,
// metric deltas) by adding fields to CaseDelta and Comparison, not by changing these.
#pragma once

#include <string>
#include <vector>

#include "reports/report.h"

namespace flashscope::reports {

struct CaseDelta {
  std::string key, kernel_id, problem_key;
  const CaseResult* base;                 // points into the `base` report given to Compare
  const CaseResult* next;                 // points into the `next` report
  double base_median_ms, next_median_ms;  // NaN when that side has no timing
  double delta_pct;                       // (next - base) / base * 100; NaN without both timings
  // Why the delta is missing or what else changed, e.g. "status passed -> failed",
  // "no timing in next (skipped)". Empty when both sides are timed and the status is the same.
  std::string note;

  bool StatusChanged() const { return base->status != next->status; }
  // passed -> anything else, or anything -> failed/error/timeout: always worth a loud line.
  bool IsCorrectnessRegression() const;
};

struct Comparison {
  std::vector<CaseDelta> paired;  // in the order of `base`
  std::vector<const CaseResult*> only_base, only_next;
  bool different_gpu = false;    // GPU name or architecture differ: timings are not comparable
  std::string environment_note;  // each difference in GPU, driver or CUDA, in words; "" if none
  int duplicate_keys = 0;        // cases whose key repeated within one report (first one is used)
};

// The reports must outlive the returned Comparison (it points into them).
Comparison Compare(const Report& base, const Report& next);

// Environment note, then status changes (prominent), then a table of paired cases with their
// median delta, then the cases found on one side only, then a geometric-mean line.
std::string RenderComparison(const Comparison& comparison, bool color);

}  // namespace flashscope::reports
