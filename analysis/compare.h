// Pairing two reports case by case (by CaseResult::Key: kernel id + problem key): the median
// delta of each pair, a Mann-Whitney U test on the raw samples and a verdict (faster, slower,
// same, ambiguous), hardware-metric deltas, status changes and the cases found on one side only.
// docs/gating.md explains the verdict rule; analysis/gate.h turns a comparison into pass/fail.
#pragma once

#include <string>
#include <vector>

#include "analysis/stats_mann_whitney.h"
#include "reports/report.h"

namespace flashscope::reports {

struct CompareOptions {
  double alpha = 0.01;       // significance level of the Mann-Whitney U test
  double min_effect = 0.02;  // smallest relative median change that counts (0.02 = 2 %)
  // Set when the user forced a comparison across different GPUs or drivers: every renderer then
  // says so on its first lines (Comparison::forced).
  bool forced = false;
  // Below this many raw samples on either side the test has too little power (3 vs 3 can never
  // reach p < 0.01): a pair the test does not confirm is then judged by effect (DecideVerdict).
  int min_samples = 10;
};

// faster / slower: significant (p < alpha) and |median change| >= min_effect; or, with fewer
//   than min_samples samples on a side, the median and the minimum both changed by at least
//   min_effect in the same direction ("judged by effect").
// same: |median change| < min_effect (significant or not: too small to matter).
// ambiguous: |median change| >= min_effect but not confirmed (noisy samples; or few samples
//   whose minimum did not move with the median).
// not_timed: one side has no usable timing (skipped, error, missing, non-finite or not positive);
//   the pair's note says which.
enum class Verdict { kFaster, kSlower, kSame, kAmbiguous, kNotTimed };
const char* VerdictName(Verdict v);  // "faster", "slower", "same", "ambiguous", "not timed"

// One hardware metric measured on both sides (matched by hw_name, else by name).
struct MetricDelta {
  std::string name, unit;
  double base = 0, next = 0;
  double Delta() const { return next - base; }
};

struct CaseDelta {
  std::string key, kernel_id, problem_key;
  const CaseResult* base;                  // points into the `base` report given to Compare
  const CaseResult* next;                  // points into the `next` report
  double base_median_ms, next_median_ms;   // NaN when that side has no usable timing
  double delta_pct;                        // (next - base) / base * 100; NaN without both timings
  double min_delta_pct;                    // the same for the fastest sample (or timing.min_ms)
  int base_samples = 0, next_samples = 0;  // raw samples of each side
  // Why the delta is missing or what else changed, e.g. "status passed -> failed",
  // "no timing in next (skipped)". Empty when both sides are timed and the status is the same.
  std::string note;

  // Statistics (filled by Compare; NaN p-value when either side has no raw samples).
  bool tested = false;     // both sides had raw samples, `test` holds the result
  MannWhitneyResult test;  // Mann-Whitney U of base samples vs next samples
  Verdict verdict = Verdict::kNotTimed;
  bool judged_by_effect = false;  // too few samples for the test: median and minimum decided
  std::string verdict_reason;     // in words: "p 0.0079 < 0.01, +10.0% >= 2%", ...
  std::vector<MetricDelta> metrics;

  double PValue() const;  // test.p_value, NaN when !tested
  bool StatusChanged() const { return base->status != next->status; }
  // passed -> anything else, or anything -> failed/error/timeout: always worth a loud line.
  bool IsCorrectnessRegression() const;
};

struct Comparison {
  std::vector<CaseDelta> paired;  // in the order of `base`
  std::vector<const CaseResult*> only_base, only_next;
  bool different_gpu = false;     // GPU name or architecture differ: timings are not comparable
  std::string environment_note;   // each difference in GPU, driver or CUDA, in words; "" if none
  int duplicate_keys = 0;         // cases whose key repeated within one report (first one is used)
  bool different_driver = false;  // driver or CUDA runtime versions differ
  CompareOptions options;         // what the verdicts were decided with
  bool forced = false;            // compared although GPUs or drivers differ (options.forced)
  // Pairs whose two sides name different GPUs (device_uuid) of the same model: two chips, whose
  // timings of one case can differ by a few percent (docs/devices.md, "Two chips are two chips").
  int on_different_gpus = 0;

  // True when the two sides ran on different GPUs or drivers: the CLI refuses such a comparison
  // unless forced.
  bool EnvironmentMismatch() const { return different_gpu || different_driver; }
  // "" unless on_different_gpus: the sentence every output warns with.
  std::string DifferentGpusNote() const;
  // "" normally; when forced, the sentence every output starts with.
  std::string ForcedBanner() const;
  int CountVerdict(Verdict v) const;
  int CorrectnessRegressions() const;
};

// "" when `c` has a timing a comparison can use, else why not, e.g. "no timing in next
// (skipped)", "base median -0.5 ms is not a positive time". `side` names it in the message.
std::string TimingProblem(const char* side, const CaseResult& c);

// The reports must outlive the returned Comparison (it points into them).
Comparison Compare(const Report& base, const Report& next, const CompareOptions& options = {});

// What the verdict of one pair is decided from: relative changes (next - base) / base of the
// medians and of the minimums, the test's p-value (NaN without a test) and the sample counts.
struct VerdictEvidence {
  double median_delta;
  double min_delta;
  double p_value;
  int n_base, n_next;
};

// The verdict rule on its own (exposed for tests). `by_effect` (optional) says whether the
// verdict came from the few-samples rule rather than from the test.
Verdict DecideVerdict(const VerdictEvidence& evidence, const CompareOptions& options,
                      std::string* reason, bool* by_effect = nullptr);

}  // namespace flashscope::reports
