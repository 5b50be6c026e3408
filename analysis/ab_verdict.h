// The verdicts of `flashscope ab` (docs/gating.md, "flashscope ab"): the two reports it writes,
// one per side, whose cases were timed in interleaved pairs, paired again by key; per case the
// Wilcoxon signed-rank test on the per-pair log-ratios ln(new / base) and their Hodges-Lehmann
// shift with its confidence interval (analysis/stats_paired.h); then pass or regression with
// every failure named, exit codes as the gate's.
#pragma once

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "analysis/compare.h"
#include "analysis/gate.h"
#include "reports/report.h"
#include "analysis/stats_paired.h"

namespace flashscope::reports {

inline constexpr char kAbVerdictSchemaName[] = "flashscope.ab_verdict";
inline constexpr int kAbVerdictSchemaVersion = 1;

struct AbOptions {
  double alpha = 0.01;  // significance level of the signed-rank test (two-sided)
  // The smallest relative change that counts (0.005 = 0.5 %): interleaving cancels the drift
  // that forces the gate's 2 %, so ab can afford a quarter of it.
  double min_effect = 0.005;
  double allowed_slowdown = 0.005;  // a slower case fails beyond this
  // Nothing below max(min_effect, allowed_slowdown) can fail: the effective threshold.
  double Threshold() const { return std::max(min_effect, allowed_slowdown); }
};

// The evidence of one case's interleaved pairs. Relative changes are (new / base) - 1.
struct PairedEvidence {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  int pairs = 0;
  double effect = kNaN;                  // exp(Hodges-Lehmann shift of the log-ratios) - 1
  double ci_low = kNaN, ci_high = kNaN;  // the shift's confidence interval (level 1 - alpha)
  SignedRankResult test;
  // The least and most changed single pairs: "judged by effect" needs every pair beyond the
  // minimum effect when there are too few pairs for the test.
  double min_pair_change = kNaN, max_pair_change = kNaN;
};

// From the two sides' samples of one case (same length; sample i of each side is pair i).
PairedEvidence PairedEvidenceOf(const std::vector<double>& base_ms,
                                const std::vector<double>& next_ms, double alpha);

// The verdict rule (exposed for tests), in the gate's words:
//   same:   |effect| < min_effect (significant or not: too small to matter);
//   slower / faster: p < alpha and |effect| >= min_effect; or, with too few pairs for the test to
//           reach alpha at all (fewer than 8 at alpha 0.01), every single pair changed by at least
//           min_effect the same way ("judged by effect");
//   ambiguous: |effect| >= min_effect, not confirmed.
Verdict DecidePairedVerdict(const PairedEvidence& e, const AbOptions& options, std::string* reason,
                            bool* by_effect = nullptr);

// One case of both sides.
struct AbPair {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::string key, kernel_id, problem_key;
  const CaseResult* base = nullptr;  // points into the reports given to CompareAb / JudgePair
  const CaseResult* next = nullptr;
  bool compared = false;  // both sides were timed interleaved with each other: evidence is set
  PairedEvidence evidence;
  Verdict verdict = Verdict::kNotTimed;
  bool judged_by_effect = false;
  std::string verdict_reason;
  std::string note;  // status change; why the sides were not compared
  double base_median_ms = kNaN, next_median_ms = kNaN;
};

// `base` and `next` must outlive the result.
AbPair JudgePair(const CaseResult& base, const CaseResult& next, const AbOptions& options);

// One line for ab's progress: "same  +0.12% [-0.05%, +0.30%]  p 0.41  30 pairs", or why the
// case was not compared ("error on the new side").
std::string AbPairProgressLine(const AbPair& pair);

struct AbComparison {
  std::vector<AbPair> pairs;  // in the order of the base report
  std::vector<const CaseResult*> only_base, only_next;
  AbOptions options;
  int CountVerdict(Verdict v) const;
};

// The reports must outlive the returned comparison.
AbComparison CompareAb(const Report& base, const Report& next, const AbOptions& options);

// Pass or regression. Failure rules: "slowdown" (slower by more than allowed_slowdown),
// "correctness" (the new side failed, errored or timed out where the base side did not, or was
// skipped where the base passed), "missing" (a case of the base side absent from the new side),
// "not_judged" (passed on both sides, but no pair of samples to compare).
struct AbResult {
  std::vector<GateFailure> failures;
  bool passed() const { return failures.empty(); }
  int ExitCode() const { return passed() ? 0 : 1; }
};
AbResult JudgeAb(const AbComparison& comparison);

// `flashscope ab --json FILE` (schema in docs/gating.md).
nlohmann::json AbVerdictJson(const AbComparison& comparison, const AbResult& result,
                             const std::string& base_path, const std::string& next_path);

// The table of pairs, the verdict counts, then "AB PASSED ..." or "AB FAILED: N regressions"
// with one line per failure.
std::string RenderAbTerminal(const AbComparison& comparison, const AbResult& result, bool color);

}  // namespace flashscope::reports
