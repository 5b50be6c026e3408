// What a comparison shows, derived once: per pair of cases the statuses, the median change, the
// test, the verdict and the rule that decided it, the gate's decision when there is one, and one
// tone that every printer and the viewer colour it by; per comparison the warnings, the method,
// the verdict counts and the geometric mean. The printers (reports/render_*.cc) and the viewer's
// compare view render this and decide nothing themselves.
#pragma once

#include <string>
#include <vector>

#include "analysis/compare.h"
#include "analysis/gate.h"
#include "analysis/summary.h"

namespace flashscope::reports {

// How a pair reads, strongest first: a correctness regression or a gate failure; slower; an
// unconfirmed change (ambiguous); faster; nothing to say.
enum class Tone { kFailure, kSlower, kUnsure, kFaster, kNeutral };
const char* ToneName(Tone t);  // "failure", "slower", "unsure", "faster", "neutral"

// Where the gate stands on a case; kNotGated when the comparison was not gated.
enum class GateMark { kNotGated, kPass, kFail, kIgnored };
const char* GateMarkName(GateMark m);  // "", "pass", "fail", "ignored"

struct PairSummary {
  enum class Side { kBoth, kBase, kNext };
  Side side = Side::kBoth;
  std::string key, kernel_id, problem_key;
  const CaseResult* base = nullptr;  // null for a case found in the next report only
  const CaseResult* next = nullptr;  // null for a case found in the base report only
  const CaseDelta* delta = nullptr;  // the pairing's evidence; null on one side only

  bool status_changed = false;
  bool correctness_regression = false;  // passed -> not passed, or -> failed/error/timeout
  // A median, the median change and the test, as values of the summary model.
  SummaryValue base_median, next_median, delta_pct, p_value;
  Verdict verdict = Verdict::kNotTimed;
  std::string verdict_reason;  // the rule that decided, with its numbers
  std::string judged_by;       // "test", "effect" (too few samples) or "nothing"
  std::string note;            // status change, missing timing

  GateMark gate = GateMark::kNotGated;
  std::vector<const GateFailure*> gate_failures;
  // Why the pair fails: the gate's failures ("rule: message; ..."); without a gate, a correctness
  // regression or a confirmed slowdown. "" when it does not fail.
  std::string failure;
  Tone tone = Tone::kNeutral;

  // "passed" or "passed" + arrow + "failed" when the status changed; "only in base (passed)".
  std::string StatusText(const char* arrow) const;
};

struct VerdictCounts {
  int faster = 0, slower = 0, same = 0, ambiguous = 0, not_timed = 0;
  int correctness_regressions = 0;
  int Of(Verdict v) const;
};

struct ComparisonSummary {
  const Comparison* source = nullptr;
  const GateResult* gate = nullptr;  // null when not gated
  std::vector<Warning> warnings;     // forced, environment differences
  // "Mann-Whitney U on raw samples, alpha 0.01, minimum effect 2%"
  std::string method;
  VerdictCounts counts;
  std::vector<PairSummary> pairs;  // paired, in the order of the base report
  std::vector<PairSummary> only_base, only_next;
  // Kernels measured from another build of their plugin on each side (the deltas compare builds):
  // kernel id and what changed, each once.
  std::vector<std::pair<std::string, std::string>> rebuilt;
  double geomean = 0;  // of next/base medians over the timed pairs; NaN when none
  int geomean_pairs = 0;

  // The pairs, then the cases on one side only: every case a per-case output lists.
  std::vector<const PairSummary*> All() const;
};

// `gate` may be null (compare); it must come from `comparison`.
ComparisonSummary SummarizeComparison(const Comparison& comparison, const GateResult* gate);

// "GATE PASSED: 12 cases gated" or "GATE FAILED: 2 failures in 12 cases gated".
std::string GateHeadline(const GateResult& gate);
// What passed without a full judgement, for the decision's line: ", 1 ignored, 2 not judged
// (allowed by the policy), ..." ("" when nothing).
std::string GateNotes(const GateResult& gate);

}  // namespace flashscope::reports
