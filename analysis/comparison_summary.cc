#include "analysis/comparison_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/provenance.h"

namespace flashscope::reports {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const ValueSpec& BaseMedianSpec() {
  static const ValueSpec kSpec{"base_median_ms", "base ms", "ms", Hint::kDuration,
                               "Median time of the case in the base report"};
  return kSpec;
}
const ValueSpec& NextMedianSpec() {
  static const ValueSpec kSpec{"next_median_ms", "next ms", "ms", Hint::kDuration,
                               "Median time of the case in the new report"};
  return kSpec;
}
const ValueSpec& DeltaSpec() {
  static const ValueSpec kSpec{"delta_pct", "delta", "%", Hint::kPercent,
                               "Change of the median, (next - base) / base, in percent"};
  return kSpec;
}
const ValueSpec& PValueSpec() {
  static const ValueSpec kSpec{
      "p_value", "p", "", Hint::kProbability,
      "Mann-Whitney U p-value of the raw samples: how likely a difference this large is by chance"};
  return kSpec;
}

using FailuresByKey = std::map<std::string, std::vector<const GateFailure*>>;

void ApplyGateMarks(const GateResult* gate, const FailuresByKey& failures, PairSummary* p) {
  if (gate == nullptr) return;
  for (const std::string& k : gate->ignored) {
    if (k == p->key) {
      p->gate = GateMark::kIgnored;
      return;
    }
  }
  auto it = failures.find(p->key);
  if (it == failures.end()) {
    p->gate = GateMark::kPass;
    return;
  }
  p->gate = GateMark::kFail;
  p->gate_failures = it->second;
  std::vector<std::string> parts;
  for (const GateFailure* f : it->second) parts.push_back(absl::StrCat(f->rule, ": ", f->message));
  p->failure = absl::StrJoin(parts, "; ");
}

Tone ToneOf(const PairSummary& p) {
  if (p.correctness_regression || p.gate == GateMark::kFail) return Tone::kFailure;
  switch (p.verdict) {
    case Verdict::kSlower:
      return Tone::kSlower;
    case Verdict::kAmbiguous:
      return Tone::kUnsure;
    case Verdict::kFaster:
      return Tone::kFaster;
    default:
      return Tone::kNeutral;
  }
}

PairSummary Paired(const CaseDelta& d, const GateResult* gate, const FailuresByKey& failures) {
  PairSummary p;
  p.key = d.key;
  p.kernel_id = d.kernel_id;
  p.problem_key = d.problem_key;
  p.base = d.base;
  p.next = d.next;
  p.delta = &d;
  p.status_changed = d.StatusChanged();
  p.correctness_regression = d.IsCorrectnessRegression();
  p.base_median = {BaseMedianSpec(), d.base_median_ms};
  p.next_median = {NextMedianSpec(), d.next_median_ms};
  p.delta_pct = {DeltaSpec(), d.delta_pct};
  p.p_value = {PValueSpec(), d.PValue()};
  p.verdict = d.verdict;
  p.verdict_reason = d.verdict_reason;
  p.judged_by = d.verdict == Verdict::kNotTimed ? "nothing"
                : d.judged_by_effect            ? "effect"
                                                : "test";
  p.note = d.note;
  ApplyGateMarks(gate, failures, &p);
  if (gate == nullptr && p.correctness_regression) {
    p.failure = absl::StrCat("correctness: ", CaseStatusName(d.base->status), " -> ",
                             CaseStatusName(d.next->status));
  } else if (gate == nullptr && d.verdict == Verdict::kSlower) {
    p.failure = absl::StrCat("slower: ", d.verdict_reason);
  }
  p.tone = ToneOf(p);
  return p;
}

PairSummary OneSide(const CaseResult& c, bool base, const GateResult* gate,
                    const FailuresByKey& failures) {
  PairSummary p;
  p.side = base ? PairSummary::Side::kBase : PairSummary::Side::kNext;
  p.key = c.Key();
  p.kernel_id = c.kernel_id;
  p.problem_key = c.problem_key;
  (base ? p.base : p.next) = &c;
  const SummaryValue median = *SummarizeCase(c).Find("median_ms");
  p.base_median = {BaseMedianSpec(), base ? median.value : kNaN};
  p.next_median = {NextMedianSpec(), base ? kNaN : median.value};
  p.delta_pct = {DeltaSpec(), kNaN};
  p.p_value = {PValueSpec(), kNaN};
  p.judged_by = "nothing";
  p.note = absl::StrCat("only in ", base ? "base" : "next");
  ApplyGateMarks(gate, failures, &p);
  p.tone = ToneOf(p);
  return p;
}

}  // namespace

const char* ToneName(Tone t) {
  switch (t) {
    case Tone::kFailure:
      return "failure";
    case Tone::kSlower:
      return "slower";
    case Tone::kUnsure:
      return "unsure";
    case Tone::kFaster:
      return "faster";
    case Tone::kNeutral:
      return "neutral";
  }
  return "?";
}

const char* GateMarkName(GateMark m) {
  switch (m) {
    case GateMark::kNotGated:
      return "";
    case GateMark::kPass:
      return "pass";
    case GateMark::kFail:
      return "fail";
    case GateMark::kIgnored:
      return "ignored";
  }
  return "?";
}

std::string PairSummary::StatusText(const char* arrow) const {
  if (side != Side::kBoth) {
    const CaseResult* c = base != nullptr ? base : next;
    return absl::StrCat("only in ", base != nullptr ? "base" : "next", " (",
                        CaseStatusName(c->status), ")");
  }
  if (!status_changed) return CaseStatusName(next->status);
  return absl::StrCat(CaseStatusName(base->status), arrow, CaseStatusName(next->status));
}

int VerdictCounts::Of(Verdict v) const {
  switch (v) {
    case Verdict::kFaster:
      return faster;
    case Verdict::kSlower:
      return slower;
    case Verdict::kSame:
      return same;
    case Verdict::kAmbiguous:
      return ambiguous;
    case Verdict::kNotTimed:
      return not_timed;
  }
  return 0;
}

std::vector<const PairSummary*> ComparisonSummary::All() const {
  std::vector<const PairSummary*> out;
  for (const auto* list : {&pairs, &only_base, &only_next}) {
    for (const PairSummary& p : *list) out.push_back(&p);
  }
  return out;
}

ComparisonSummary SummarizeComparison(const Comparison& c, const GateResult* gate) {
  ComparisonSummary out;
  out.source = &c;
  out.gate = gate;
  if (c.forced) out.warnings.push_back({c.ForcedBanner()});
  if (!c.forced && !c.environment_note.empty()) {
    out.warnings.push_back({absl::StrCat("environment differs: ", c.environment_note), false});
  }
  if (c.on_different_gpus > 0) out.warnings.push_back({c.DifferentGpusNote(), false});
  out.method = absl::StrFormat("Mann-Whitney U on raw samples, alpha %g, minimum effect %g%%",
                               c.options.alpha, c.options.min_effect * 100);
  FailuresByKey failures;
  if (gate != nullptr) {
    for (const GateFailure& f : gate->failures) failures[f.key].push_back(&f);
  }
  double log_sum = 0;
  for (const CaseDelta& d : c.paired) {
    out.pairs.push_back(Paired(d, gate, failures));
    int* count[] = {&out.counts.faster, &out.counts.slower, &out.counts.same, &out.counts.ambiguous,
                    &out.counts.not_timed};
    ++*count[static_cast<int>(d.verdict)];
    out.counts.correctness_regressions += d.IsCorrectnessRegression();
    const std::pair<std::string, std::string> rebuilt(d.kernel_id,
                                                      ProvenanceChange(*d.base, *d.next));
    if (!rebuilt.second.empty() &&
        std::find(out.rebuilt.begin(), out.rebuilt.end(), rebuilt) == out.rebuilt.end()) {
      out.rebuilt.push_back(rebuilt);
    }
    if (std::isnan(d.delta_pct)) continue;
    log_sum += std::log(d.next_median_ms / d.base_median_ms);
    ++out.geomean_pairs;
  }
  out.geomean = out.geomean_pairs > 0 ? std::exp(log_sum / out.geomean_pairs) : kNaN;
  for (const CaseResult* x : c.only_base)
    out.only_base.push_back(OneSide(*x, true, gate, failures));
  for (const CaseResult* x : c.only_next) {
    out.only_next.push_back(OneSide(*x, false, gate, failures));
  }
  return out;
}

std::string GateHeadline(const GateResult& gate) {
  if (gate.passed) return absl::StrCat("GATE PASSED: ", gate.cases_gated, " cases gated");
  return absl::StrCat("GATE FAILED: ", gate.failures.size(), " failure",
                      gate.failures.size() == 1 ? "" : "s", " in ", gate.cases_gated,
                      " cases gated");
}

std::string GateNotes(const GateResult& gate) {
  std::string notes;
  if (!gate.ignored.empty()) absl::StrAppend(&notes, ", ", gate.ignored.size(), " ignored");
  if (gate.not_judged > 0) {
    absl::StrAppend(&notes, ", ", gate.not_judged, " not judged",
                    gate.not_judged == gate.not_judged_allowed ? " (allowed by the policy)" : "");
  }
  if (gate.ambiguous_passed > 0) {
    absl::StrAppend(&notes, ", ", gate.ambiguous_passed,
                    " ambiguous beyond the allowance (too noisy to tell; passed: "
                    "fail_on_ambiguous is off)");
  }
  return notes;
}

}  // namespace flashscope::reports
