// Change points of a series: one kernel on one problem, GPU and testbed over successive revisions
// (docs/history.md). Two stages, as Apache Otava and Mozilla's perf sheriffs do it:
//   1. PELT (Killick, Fearnhead & Eckley 2012) finds every candidate change of level in the
//      per-revision medians, on a log scale (so a change is relative), under a penalty per change
//      of `penalty_per_log_n` · ln n in units of the noise, which is estimated robustly from the
//      median absolute difference of neighbouring revisions (a step moves one difference only);
//   2. each candidate is confirmed on the raw samples of the segments either side of it: the
//      Mann-Whitney U test must give p < alpha and the change of the segments' medians must reach
//      the gate's minimum effect. The weakest unconfirmed candidate is dropped, its two segments
//      merged, and the neighbours tested again, until every candidate left is confirmed.
//   3. a single revision that departs and comes back (two confirmed changes around it, of
//      opposite signs, the levels either side within the minimum effect of each other) is an
//      outlier, not two changes: a 4-sigma run happens once in ~16,000 revisions. It is listed in
//      `outliers`. A departure at the newest revision cannot be told from a step yet and stays a
//      change (the CI use: the run just added got slower).
#pragma once

#include <string>
#include <vector>

namespace flashscope::reports {

// One revision of a series: its median and the raw samples it was judged from (all samples of
// every run of that revision; the median alone when a run kept no samples).
struct RevisionSamples {
  double median_ms = 0;
  std::vector<double> samples_ms;
};

struct ChangePointOptions {
  double alpha = 0.01;           // Mann-Whitney significance level (the gate's)
  double min_effect = 0.02;      // smallest relative change of the medians that counts (the gate's)
  double penalty_per_log_n = 3;  // PELT's penalty per change: this × ln(n), in noise units
  // The noise estimate never goes below this relative level (identical medians would otherwise
  // make every rounding step a change; confirmation drops them anyway, this keeps PELT quiet).
  double noise_floor = 1e-4;
};

struct ChangePoint {
  int index = 0;                // first revision after the change (index into the series)
  double before_median_ms = 0;  // median of the per-revision medians of the segment before
  double after_median_ms = 0;   // ... and after
  double change = 0;            // after / before - 1 (signed: > 0 slower)
  double p_value = 1;           // Mann-Whitney U, raw samples of the two segments
  std::string test;             // MannWhitneyResult::Method()
};

struct ChangePointResult {
  std::vector<ChangePoint> changes;  // in revision order
  double noise = 0;                  // the relative noise PELT worked with
  int candidates = 0;                // found by PELT before confirmation
  std::vector<int> outliers;         // single revisions that departed and came back
};

// The median (the mean of the middle two for an even count); NaN for no values.
double MedianOf(std::vector<double> values);

// The method in words, for outputs ("PELT on ln(median), penalty 3·ln n; Mann-Whitney p < 0.01,
// |change| >= 2%").
std::string ChangePointMethod(const ChangePointOptions& options);

// Non-finite or non-positive medians are an error of the caller (only timed, passed revisions
// belong to a series); fewer than two revisions have no change point.
ChangePointResult FindChangePoints(const std::vector<RevisionSamples>& series,
                                   const ChangePointOptions& options);

// PELT alone (exposed for tests): the first index of each segment after the first, for values
// `x` with known noise `sigma` and penalty `beta` per change.
std::vector<int> PeltMeanChanges(const std::vector<double>& x, double sigma, double beta);

}  // namespace flashscope::reports
