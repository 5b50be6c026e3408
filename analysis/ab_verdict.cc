#include "analysis/ab_verdict.h"

#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace flashscope::reports {
namespace {

std::string Pct(double fraction) { return absl::StrFormat("%+.2f%%", fraction * 100); }
std::string Threshold(double fraction) { return absl::StrFormat("%g%%", fraction * 100); }

std::string Interval(const PairedEvidence& e) {
  if (!std::isfinite(e.ci_low) || !std::isfinite(e.ci_high)) return "[no interval]";
  return absl::StrCat("[", Pct(e.ci_low), ", ", Pct(e.ci_high), "]");
}

bool Bad(CaseStatus s) {
  return s == CaseStatus::kFailed || s == CaseStatus::kError || s == CaseStatus::kTimeout;
}

// "" when the two sides' samples form one set of pairs, else why not.
std::string PairingProblem(const TimingRecord& b, const TimingRecord& n) {
  if (!b.interleaved && !n.interleaved) return "neither side was timed interleaved";
  if (!b.interleaved || !n.interleaved) {
    return absl::StrCat("the ", b.interleaved ? "new" : "base",
                        " side was timed alone, not interleaved with the other");
  }
  if (b.interleaved->side != "base" || n.interleaved->side != "new") {
    return absl::StrCat("the reports' sides are \"", b.interleaved->side, "\" and \"",
                        n.interleaved->side, "\", not \"base\" and \"new\"");
  }
  if (b.interleaved->order != n.interleaved->order || b.samples_ms.size() != n.samples_ms.size() ||
      b.samples_ms.empty()) {
    return absl::StrCat("the sides' samples are not one set of pairs (", b.samples_ms.size(),
                        " vs ", n.samples_ms.size(), " samples, orders differ)");
  }
  return "";
}

}  // namespace

PairedEvidence PairedEvidenceOf(const std::vector<double>& base_ms,
                                const std::vector<double>& next_ms, double alpha) {
  PairedEvidence e;
  std::vector<double> log_ratios;
  for (size_t i = 0; i < base_ms.size() && i < next_ms.size(); ++i) {
    if (!(base_ms[i] > 0) || !(next_ms[i] > 0)) continue;  // TimingProblem refuses such reports
    log_ratios.push_back(std::log(next_ms[i] / base_ms[i]));
  }
  e.pairs = static_cast<int>(log_ratios.size());
  if (log_ratios.empty()) return e;
  e.test = WilcoxonSignedRank(log_ratios);
  const ShiftEstimate shift = HodgesLehmann(log_ratios, alpha);
  e.effect = std::expm1(shift.estimate);
  e.ci_low = std::expm1(shift.low);
  e.ci_high = std::expm1(shift.high);
  const auto [lo, hi] = std::minmax_element(log_ratios.begin(), log_ratios.end());
  e.min_pair_change = std::expm1(*lo);
  e.max_pair_change = std::expm1(*hi);
  return e;
}

Verdict DecidePairedVerdict(const PairedEvidence& e, const AbOptions& o, std::string* reason,
                            bool* by_effect) {
  auto say = [&](Verdict v, std::string why, bool effect_rule) {
    if (reason != nullptr) *reason = std::move(why);
    if (by_effect != nullptr) *by_effect = effect_rule;
    return v;
  };
  if (e.pairs == 0 || std::isnan(e.effect)) return say(Verdict::kNotTimed, "no pairs", false);
  const double m = o.min_effect;
  const std::string p = absl::StrFormat("p %.2g", e.test.p_value);
  if (SignedRankMinP(e.test.n) >= o.alpha) {
    // Too few pairs for the test to reach alpha at all: only a unanimous change counts.
    const std::string head =
        absl::StrCat(e.pairs, " pairs: too few for the test (", p, ", the least it can give is ",
                     absl::StrFormat("%.2g", SignedRankMinP(e.test.n)), "), judged by effect: ");
    if (e.min_pair_change >= m) {
      return say(Verdict::kSlower,
                 absl::StrCat(head, "every pair slower by >= ", Threshold(m), " (least ",
                              Pct(e.min_pair_change), ")"),
                 true);
    }
    if (e.max_pair_change <= -m) {
      return say(Verdict::kFaster,
                 absl::StrCat(head, "every pair faster by >= ", Threshold(m), " (least ",
                              Pct(e.max_pair_change), ")"),
                 true);
    }
    if (std::fabs(e.effect) < m) {
      return say(Verdict::kSame, absl::StrCat(head, Pct(e.effect), " < ", Threshold(m)), true);
    }
    return say(Verdict::kAmbiguous,
               absl::StrCat(head, Pct(e.effect), " but the pairs do not all agree (",
                            Pct(e.min_pair_change), " to ", Pct(e.max_pair_change), ")"),
               true);
  }
  if (std::fabs(e.effect) < m) {
    return say(Verdict::kSame,
               absl::StrCat(Pct(e.effect), " ", Interval(e), " < ", Threshold(m), " (", p, ")"),
               false);
  }
  if (e.test.p_value < o.alpha) {
    return say(e.effect > 0 ? Verdict::kSlower : Verdict::kFaster,
               absl::StrCat(p, " < ", absl::StrFormat("%g", o.alpha), ", ", Pct(e.effect), " ",
                            Interval(e), " >= ", Threshold(m)),
               false);
  }
  return say(Verdict::kAmbiguous,
             absl::StrCat(Pct(e.effect), " ", Interval(e), " >= ", Threshold(m), " but ", p,
                          " >= ", absl::StrFormat("%g", o.alpha)),
             false);
}

AbPair JudgePair(const CaseResult& b, const CaseResult& n, const AbOptions& options) {
  AbPair p;
  p.key = b.Key();
  p.kernel_id = b.kernel_id;
  p.problem_key = b.problem_key;
  p.base = &b;
  p.next = &n;
  std::vector<std::string> why;
  if (b.status != n.status) {
    why.push_back(
        absl::StrCat("status ", CaseStatusName(b.status), " -> ", CaseStatusName(n.status)));
  }
  const std::string base_problem = TimingProblem("base", b);
  const std::string next_problem = TimingProblem("new", n);
  for (const std::string& s : {base_problem, next_problem}) {
    if (!s.empty()) why.push_back(s);
  }
  if (base_problem.empty() && next_problem.empty()) {
    p.base_median_ms = b.timing->median_ms;
    p.next_median_ms = n.timing->median_ms;
    if (std::string problem = PairingProblem(*b.timing, *n.timing); !problem.empty()) {
      why.push_back(problem);
    } else {
      p.compared = true;
      p.evidence = PairedEvidenceOf(b.timing->samples_ms, n.timing->samples_ms, options.alpha);
    }
  }
  p.note = absl::StrJoin(why, "; ");
  if (p.compared) {
    p.verdict = DecidePairedVerdict(p.evidence, options, &p.verdict_reason, &p.judged_by_effect);
  } else {
    p.verdict_reason = "not compared";
  }
  return p;
}

std::string AbPairProgressLine(const AbPair& p) {
  if (!p.compared) {
    return absl::StrCat(CaseStatusName(p.base->status), "/", CaseStatusName(p.next->status),
                        ", not compared", p.note.empty() ? "" : ": ", p.note);
  }
  const PairedEvidence& e = p.evidence;
  return absl::StrCat(VerdictName(p.verdict), "  ", Pct(e.effect), " ", Interval(e), "  ",
                      absl::StrFormat("p %.2g", e.test.p_value), "  ", e.pairs, " pairs",
                      p.base->status == CaseStatus::kPassed && p.next->status == CaseStatus::kPassed
                          ? ""
                          : absl::StrCat("  (", CaseStatusName(p.base->status), "/",
                                         CaseStatusName(p.next->status), ")"));
}

int AbComparison::CountVerdict(Verdict v) const {
  int n = 0;
  for (const AbPair& p : pairs) n += p.verdict == v;
  return n;
}

AbComparison CompareAb(const Report& base, const Report& next, const AbOptions& options) {
  AbComparison c;
  c.options = options;
  std::map<std::string, const CaseResult*> next_by_key;
  for (const CaseResult& n : next.cases) next_by_key.emplace(n.Key(), &n);
  std::map<std::string, bool> seen;
  for (const CaseResult& b : base.cases) {
    if (!seen.emplace(b.Key(), true).second) continue;  // CheckGateable refuses such reports
    auto it = next_by_key.find(b.Key());
    if (it == next_by_key.end()) {
      c.only_base.push_back(&b);
      continue;
    }
    c.pairs.push_back(JudgePair(b, *it->second, options));
  }
  for (const CaseResult& n : next.cases) {
    if (!seen.count(n.Key())) c.only_next.push_back(&n);
  }
  return c;
}

AbResult JudgeAb(const AbComparison& c) {
  AbResult r;
  const AbOptions& o = c.options;
  for (const AbPair& p : c.pairs) {
    const CaseResult& b = *p.base;
    const CaseResult& n = *p.next;
    if (Bad(n.status) && !Bad(b.status)) {
      const std::string what = n.status == CaseStatus::kFailed && n.verification
                                   ? absl::StrCat("failed verification: ", n.verification->rule)
                                   : absl::StrCat(CaseStatusName(n.status), ": ", n.reason);
      r.failures.push_back(
          {p.key, "correctness",
           absl::StrCat("the new side ", what, " (the base side ", CaseStatusName(b.status), ")")});
    } else if (b.status == CaseStatus::kPassed && n.status == CaseStatus::kSkipped) {
      r.failures.push_back(
          {p.key, "correctness",
           absl::StrCat("the new side was skipped where the base side passed: ", n.reason)});
    }
    if (p.verdict == Verdict::kNotTimed && b.status == CaseStatus::kPassed &&
        n.status == CaseStatus::kPassed) {
      // Both sides passed but no pair of samples was taken: nothing was judged, so it cannot
      // pass as "same" (the gate's not_judged rule; ab has no policy to allow it by name).
      r.failures.push_back({p.key, "not_judged",
                            absl::StrCat("passed on both sides but not compared: ",
                                         p.note.empty() ? "no pairs of samples" : p.note)});
    }
    if (p.verdict != Verdict::kSlower) continue;
    const double change = p.judged_by_effect ? p.evidence.min_pair_change : p.evidence.effect;
    if (change > o.allowed_slowdown) {
      r.failures.push_back(
          {p.key, "slowdown",
           absl::StrCat(Pct(p.evidence.effect), " ", Interval(p.evidence), " > ",
                        Threshold(o.allowed_slowdown), " allowed (", p.verdict_reason, ")")});
    }
  }
  for (const CaseResult* b : c.only_base) {
    r.failures.push_back(
        {b->Key(), "missing", "in the base side only: the new side has no such case"});
  }
  return r;
}

}  // namespace flashscope::reports
