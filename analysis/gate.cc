#include "analysis/gate.h"
#include "analysis/gate_override.h"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/file_util.h"
#include "reports/json_fields.h"
#include "reports/text_safety.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

using jsonio::Json;

bool Glob(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

const MetricRecord* FindMetric(const CaseResult& c, const std::string& metric) {
  if (!c.profile || !c.profile->available) return nullptr;
  for (const MetricRecord& m : c.profile->metrics) {
    if (m.name == metric || m.hw_name == metric) return &m;
  }
  return nullptr;
}

class Judge {
 public:
  Judge(const GatePolicy& policy, GateResult* out) : policy_(policy), out_(out) {}

  // Verification and metric floors of a case of the new report; `base` may be null (new case).
  void CheckNextCase(const CaseResult& next, const CaseResult* base, const KernelOverride* o) {
    const bool required =
        o && o->verification_required ? *o->verification_required : policy_.verification_required;
    const std::string key = next.Key();
    const bool regression = base != nullptr && base->status == CaseStatus::kPassed &&
                            next.status != CaseStatus::kPassed;
    if (regression) {
      Fail(key, "correctness",
           absl::StrCat("passed -> ", CaseStatusName(next.status), Reason(next)));
    } else if (required && next.status != CaseStatus::kSkipped &&
               next.status != CaseStatus::kPassed) {
      Fail(key, "verification",
           absl::StrCat(
               CaseStatusName(next.status), Reason(next),
               base ? absl::StrCat(" (base: ", CaseStatusName(base->status), ")") : " (new case)"));
    } else if (required && next.status == CaseStatus::kPassed &&
               (!next.verification || !next.verification->ran)) {
      Fail(key, "verification", "passed without verification, but the policy requires it");
    }
    if (next.status != CaseStatus::kPassed) return;
    for (const MetricFloor& f : policy_.metric_floors) {
      if (!Glob(f.kernels, next.kernel_id)) continue;
      const MetricRecord* m = FindMetric(next, f.metric);
      if (m == nullptr) {
        if (f.fail_when_missing) {
          Fail(key, "metric_floor",
               absl::StrCat(f.metric,
                            " not measured (run with --metrics basic, or set "
                            "\"fail_when_missing\": false)"));
        }
      } else if (!(m->value >= f.min)) {
        Fail(key, "metric_floor",
             absl::StrFormat("%s %.4g < floor %.4g", f.metric, m->value, f.min));
      }
    }
  }

  void CheckTiming(const CaseDelta& d, const KernelOverride* o) {
    if (d.verdict == Verdict::kNotTimed) return CheckNotJudged(d);
    const double allowed =
        o && o->allowed_slowdown ? *o->allowed_slowdown : policy_.allowed_slowdown;
    // Judged by effect (few samples), the slowdown is the smaller of the median's and the
    // fastest sample's: both must exceed the allowance.
    const double slowdown =
        d.judged_by_effect ? std::min(d.delta_pct, d.min_delta_pct) / 100 : d.delta_pct / 100;
    if (std::isnan(slowdown) || slowdown <= allowed) return;
    const std::string effect =
        d.judged_by_effect
            ? absl::StrFormat("%+.1f%%, min %+.1f%%, both > allowed %+.1f%%", d.delta_pct,
                              d.min_delta_pct, allowed * 100)
            : absl::StrFormat("%+.1f%% > allowed %+.1f%%", d.delta_pct, allowed * 100);
    const std::string text =
        absl::StrFormat("median %s -> %s ms (%s): %s", text::Ms(d.base_median_ms),
                        text::Ms(d.next_median_ms), effect, d.verdict_reason);
    if (d.verdict == Verdict::kSlower) Fail(d.key, "slowdown", text);
    if (d.verdict == Verdict::kAmbiguous) {
      if (policy_.fail_on_ambiguous) {
        Fail(d.key, "ambiguous", text);
      } else {
        ++out_->ambiguous_passed;
      }
    }
  }

  // A pair that passed on both sides must have been timed on both: otherwise nothing was judged,
  // and only the policy may let it pass, by name.
  void CheckNotJudged(const CaseDelta& d) {
    if (d.base->status != CaseStatus::kPassed || d.next->status != CaseStatus::kPassed) return;
    ++out_->not_judged;
    for (const std::string& pattern : policy_.allow_not_judged) {
      if (Glob(pattern, d.key)) {
        ++out_->not_judged_allowed;
        return;
      }
    }
    Fail(d.key, "not_judged",
         absl::StrCat("passed on both sides but not judged: ", d.note,
                      " (list the case in the policy's \"allow_not_judged\" to accept this)"));
  }

  void Fail(const std::string& key, const std::string& rule, const std::string& message) {
    out_->failures.push_back({key, rule, message});
    out_->passed = false;
  }

 private:
  static std::string Reason(const CaseResult& c) {
    std::string why = c.reason;
    if (why.empty() && c.verification && !c.verification->rule.empty()) why = c.verification->rule;
    return why.empty() ? "" : absl::StrCat(" (", why, ")");
  }

  const GatePolicy& policy_;
  GateResult* out_;
};

}  // namespace

const KernelOverride* FindKernelOverride(const GatePolicy& p, const std::string& kernel_id) {
  for (const KernelOverride& o : p.overrides) {
    if (Glob(o.kernels, kernel_id)) return &o;
  }
  return nullptr;
}

absl::Status CheckGateable(const Report& report, const std::string& path) {
  if (report.cases.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": the report holds no cases: there is nothing to gate against or to judge (a run "
        "filtered to nothing, or the wrong file?)"));
  }
  std::map<std::string, std::vector<size_t>> where;
  for (size_t i = 0; i < report.cases.size(); ++i) where[report.cases[i].Key()].push_back(i);
  for (const auto& [key, indices] : where) {
    if (indices.size() < 2) continue;
    std::vector<std::string> at;
    for (size_t i : indices) at.push_back(absl::StrCat("cases[", i, "]"));
    return absl::InvalidArgumentError(absl::StrCat(
        // The key is the report's (a plugin's kernel id): shown inert, its line breaks included.
        path, ": case key \"", reports::text::TerminalSafe(key), "\" appears ", indices.size(),
        " times (", absl::StrJoin(at, ", "),
        "): a report holds each case once, and the gate will not guess which copy counts "
        "(merged twice? `flashscope merge` refuses repeated cases)"));
  }
  return absl::OkStatus();
}

GateResult ApplyGate(const Comparison& cmp, const GatePolicy& policy) {
  GateResult out;
  out.policy_source = policy.source;
  out.forced_banner = cmp.ForcedBanner();
  Judge judge(policy, &out);
  for (const CaseDelta& d : cmp.paired) {
    const KernelOverride* o = FindKernelOverride(policy, d.kernel_id);
    if (o && o->ignore) {
      out.ignored.push_back(d.key);
      continue;
    }
    ++out.cases_gated;
    judge.CheckNextCase(*d.next, d.base, o);
    judge.CheckTiming(d, o);
  }
  for (const CaseResult* c : cmp.only_next) {
    const KernelOverride* o = FindKernelOverride(policy, c->kernel_id);
    if (o && o->ignore) {
      out.ignored.push_back(c->Key());
      continue;
    }
    ++out.cases_gated;
    judge.CheckNextCase(*c, nullptr, o);
  }
  for (const CaseResult* c : cmp.only_base) {
    const KernelOverride* o = FindKernelOverride(policy, c->kernel_id);
    if (o && o->ignore) {
      out.ignored.push_back(c->Key());
      continue;
    }
    ++out.cases_gated;
    if (policy.fail_on_missing) {
      judge.Fail(
          c->Key(), "missing",
          absl::StrCat("in the base report (", CaseStatusName(c->status),
                       ") but not in the new one (set \"fail_on_missing\": false to allow)"));
    }
  }
  return out;
}

Json GateVerdictJson(const Comparison& cmp, const GateResult& gate, const GatePolicy& policy,
                     const std::string& base_path, const std::string& next_path) {
  Json j;
  j["schema"] = kGateVerdictSchemaName;
  j["schema_version"] = kGateVerdictSchemaVersion;
  j["passed"] = gate.passed;
  j["exit_code"] = gate.ExitCode();
  j["base"] = base_path;
  j["next"] = next_path;
  j["forced"] = cmp.forced;
  j["environment_note"] = cmp.environment_note;
  j["policy"] = {{"source", policy.source},
                 {"alpha", policy.alpha},
                 {"min_effect", policy.min_effect},
                 {"allowed_slowdown", policy.allowed_slowdown},
                 {"verification_required", policy.verification_required},
                 {"fail_on_missing", policy.fail_on_missing},
                 {"fail_on_ambiguous", policy.fail_on_ambiguous},
                 {"min_samples", policy.min_samples},
                 {"allow_not_judged", policy.allow_not_judged}};
  j["counts"] = {{"faster", cmp.CountVerdict(Verdict::kFaster)},
                 {"slower", cmp.CountVerdict(Verdict::kSlower)},
                 {"same", cmp.CountVerdict(Verdict::kSame)},
                 {"ambiguous", cmp.CountVerdict(Verdict::kAmbiguous)},
                 {"not_timed", cmp.CountVerdict(Verdict::kNotTimed)},
                 {"correctness_regressions", cmp.CorrectnessRegressions()},
                 {"only_base", cmp.only_base.size()},
                 {"only_next", cmp.only_next.size()},
                 {"not_judged", gate.not_judged},
                 {"not_judged_allowed", gate.not_judged_allowed},
                 {"ambiguous_passed", gate.ambiguous_passed},
                 {"gated", gate.cases_gated},
                 {"ignored", gate.ignored.size()},
                 {"failures", gate.failures.size()}};
  Json failures = Json::array();
  for (const GateFailure& f : gate.failures) {
    failures.push_back({{"key", f.key}, {"rule", f.rule}, {"message", f.message}});
  }
  j["failures"] = failures;
  j["ignored"] = gate.ignored;
  Json cases = Json::array();
  for (const CaseDelta& d : cmp.paired) {
    cases.push_back({{"key", d.key},
                     {"kernel_id", d.kernel_id},
                     {"problem_key", d.problem_key},
                     {"base_status", CaseStatusName(d.base->status)},
                     {"next_status", CaseStatusName(d.next->status)},
                     {"base_median_ms", jsonio::Number(d.base_median_ms)},
                     {"next_median_ms", jsonio::Number(d.next_median_ms)},
                     {"delta_pct", jsonio::Number(d.delta_pct)},
                     {"min_delta_pct", jsonio::Number(d.min_delta_pct)},
                     {"samples", {d.base_samples, d.next_samples}},
                     {"p_value", jsonio::Number(d.PValue())},
                     {"verdict", VerdictName(d.verdict)},
                     {"judged_by", d.verdict == Verdict::kNotTimed ? "nothing"
                                   : d.judged_by_effect            ? "effect"
                                                                   : "test"},
                     {"note", d.note},
                     {"verdict_reason", d.verdict_reason}});
  }
  j["cases"] = cases;
  return j;
}

}  // namespace flashscope::reports
