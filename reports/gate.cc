#include "reports/gate.h"

#include <fnmatch.h>

#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/file_util.h"
#include "reports/json_fields.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

using jsonio::Json;

bool Glob(const std::string& pattern, const std::string& text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

// Unknown keys are errors here (unlike reports, whose readers must accept newer fields): a
// misspelt "allowed_slowdwn" would otherwise leave the gate at its default without a word.
absl::Status CheckKeys(const Json& j, const std::string& path, const std::set<std::string>& known) {
  if (!j.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path.empty() ? "policy" : path,
                                                   ": expected object, got ", jsonio::TypeName(j)));
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (known.count(it.key()) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(jsonio::JoinPath(path, it.key()),
                       ": unknown key; known keys: ", absl::StrJoin(known, ", ")));
    }
  }
  return absl::OkStatus();
}

// `problem` is one of the *Problem functions of gate.h.
absl::Status CheckRange(double v, const std::string& path, std::string (*problem)(double)) {
  if (std::string p = problem(v); !p.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", v, " is ", p));
  }
  return absl::OkStatus();
}

const MetricRecord* FindMetric(const CaseResult& c, const std::string& metric) {
  if (!c.profile || !c.profile->available) return nullptr;
  for (const MetricRecord& m : c.profile->metrics) {
    if (m.name == metric || m.hw_name == metric) return &m;
  }
  return nullptr;
}

const KernelOverride* FindOverride(const GatePolicy& p, const std::string& kernel_id) {
  for (const KernelOverride& o : p.overrides) {
    if (Glob(o.kernels, kernel_id)) return &o;
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
    const double allowed =
        o && o->allowed_slowdown ? *o->allowed_slowdown : policy_.allowed_slowdown;
    const double slowdown = d.delta_pct / 100;
    if (std::isnan(slowdown) || slowdown <= allowed) return;
    const std::string text = absl::StrFormat("median %s -> %s ms (%+.1f%% > allowed %+.1f%%): %s",
                                             text::Ms(d.base_median_ms), text::Ms(d.next_median_ms),
                                             d.delta_pct, allowed * 100, d.verdict_reason);
    if (d.verdict == Verdict::kSlower) Fail(d.key, "slowdown", text);
    if (d.verdict == Verdict::kAmbiguous && policy_.fail_on_ambiguous) {
      Fail(d.key, "ambiguous", text);
    }
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

std::string AlphaProblem(double v) {
  return v > 0 && v < 1 ? "" : "out of range (0, 1) (a significance level, e.g. 0.01)";
}

std::string MinEffectProblem(double v) {
  return v >= 0 && v < 1 ? "" : "out of range [0, 1) (a relative change: 0.02 = 2 %)";
}

std::string AllowedSlowdownProblem(double v) {
  return v >= 0 && v <= 100 ? "" : "out of range [0, 100] (a fraction: 0.05 = 5 %)";
}

absl::StatusOr<GatePolicy> GatePolicyFromJson(const Json& j, const std::string& path) {
  GatePolicy p;
  p.source = path;
  auto where = [&](const std::string& s) { return absl::StrCat(path, ": ", s); };
  if (absl::Status s = CheckKeys(j, "",
                                 {"schema", "description", "alpha", "min_effect",
                                  "allowed_slowdown", "verification_required", "fail_on_missing",
                                  "fail_on_ambiguous", "overrides", "metric_floors"});
      !s.ok()) {
    return absl::InvalidArgumentError(where(std::string(s.message())));
  }
  absl::Status status;
  jsonio::Fields f(j, "", &status);
  std::string schema;
  f.Get("schema", &schema);
  f.Get("alpha", &p.alpha);
  f.Get("min_effect", &p.min_effect);
  f.Get("allowed_slowdown", &p.allowed_slowdown);
  f.Get("verification_required", &p.verification_required);
  f.Get("fail_on_missing", &p.fail_on_missing);
  f.Get("fail_on_ambiguous", &p.fail_on_ambiguous);
  if (!status.ok()) return absl::InvalidArgumentError(where(std::string(status.message())));
  if (!schema.empty() && schema != kGatePolicySchemaName) {
    return absl::InvalidArgumentError(
        where(absl::StrCat("schema \"", schema, "\" is not \"", kGatePolicySchemaName, "\"")));
  }
  for (absl::Status s :
       {CheckRange(p.alpha, "alpha", AlphaProblem),
        CheckRange(p.min_effect, "min_effect", MinEffectProblem),
        CheckRange(p.allowed_slowdown, "allowed_slowdown", AllowedSlowdownProblem)}) {
    if (!s.ok()) return absl::InvalidArgumentError(where(std::string(s.message())));
  }

  if (const Json* arr = f.Array("overrides")) {
    for (size_t i = 0; i < arr->size(); ++i) {
      const std::string at = jsonio::IndexPath("overrides", i);
      const Json& e = (*arr)[i];
      if (absl::Status s = CheckKeys(
              e, at, {"kernels", "allowed_slowdown", "verification_required", "ignore", "note"});
          !s.ok()) {
        return absl::InvalidArgumentError(where(std::string(s.message())));
      }
      KernelOverride o;
      jsonio::Fields g(e, at, &status);
      g.Get("kernels", &o.kernels, jsonio::Need::kRequired);
      g.Get("ignore", &o.ignore);
      if (e.contains("allowed_slowdown")) {
        double v = 0;
        g.Get("allowed_slowdown", &v);
        o.allowed_slowdown = v;
        if (absl::Status s = CheckRange(v, g.PathOf("allowed_slowdown"), AllowedSlowdownProblem);
            !s.ok()) {
          return absl::InvalidArgumentError(where(std::string(s.message())));
        }
      }
      if (e.contains("verification_required")) {
        bool v = true;
        g.Get("verification_required", &v);
        o.verification_required = v;
      }
      if (!status.ok()) return absl::InvalidArgumentError(where(std::string(status.message())));
      p.overrides.push_back(o);
    }
  }
  if (const Json* arr = f.Array("metric_floors")) {
    for (size_t i = 0; i < arr->size(); ++i) {
      const std::string at = jsonio::IndexPath("metric_floors", i);
      const Json& e = (*arr)[i];
      if (absl::Status s =
              CheckKeys(e, at, {"kernels", "metric", "min", "fail_when_missing", "note"});
          !s.ok()) {
        return absl::InvalidArgumentError(where(std::string(s.message())));
      }
      MetricFloor m;
      jsonio::Fields g(e, at, &status);
      g.Get("kernels", &m.kernels);
      g.Get("metric", &m.metric, jsonio::Need::kRequired);
      g.Get("min", &m.min, jsonio::Need::kRequired);
      g.Get("fail_when_missing", &m.fail_when_missing);
      if (!status.ok()) return absl::InvalidArgumentError(where(std::string(status.message())));
      p.metric_floors.push_back(m);
    }
  }
  if (!status.ok()) return absl::InvalidArgumentError(where(std::string(status.message())));
  return p;
}

absl::StatusOr<GatePolicy> ReadGatePolicyFile(const std::string& path) {
  auto text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  Json j = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not valid JSON (a gate policy file, see docs/gating.md)"));
  }
  return GatePolicyFromJson(j, path);
}

GateResult ApplyGate(const Comparison& cmp, const GatePolicy& policy) {
  GateResult out;
  out.policy_source = policy.source;
  out.forced_banner = cmp.ForcedBanner();
  Judge judge(policy, &out);
  for (const CaseDelta& d : cmp.paired) {
    const KernelOverride* o = FindOverride(policy, d.kernel_id);
    if (o && o->ignore) {
      out.ignored.push_back(d.key);
      continue;
    }
    ++out.cases_gated;
    judge.CheckNextCase(*d.next, d.base, o);
    judge.CheckTiming(d, o);
  }
  for (const CaseResult* c : cmp.only_next) {
    const KernelOverride* o = FindOverride(policy, c->kernel_id);
    if (o && o->ignore) {
      out.ignored.push_back(c->Key());
      continue;
    }
    ++out.cases_gated;
    judge.CheckNextCase(*c, nullptr, o);
  }
  for (const CaseResult* c : cmp.only_base) {
    const KernelOverride* o = FindOverride(policy, c->kernel_id);
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
                 {"fail_on_ambiguous", policy.fail_on_ambiguous}};
  j["counts"] = {{"faster", cmp.CountVerdict(Verdict::kFaster)},
                 {"slower", cmp.CountVerdict(Verdict::kSlower)},
                 {"same", cmp.CountVerdict(Verdict::kSame)},
                 {"ambiguous", cmp.CountVerdict(Verdict::kAmbiguous)},
                 {"not_timed", cmp.CountVerdict(Verdict::kNotTimed)},
                 {"correctness_regressions", cmp.CorrectnessRegressions()},
                 {"only_base", cmp.only_base.size()},
                 {"only_next", cmp.only_next.size()},
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
                     {"p_value", jsonio::Number(d.PValue())},
                     {"verdict", VerdictName(d.verdict)},
                     {"verdict_reason", d.verdict_reason}});
  }
  j["cases"] = cases;
  return j;
}

std::string RenderGateTerminal(const GateResult& gate, bool color) {
  std::string out;
  if (!gate.forced_banner.empty()) {
    absl::StrAppend(&out, text::Paint(gate.forced_banner, text::kBoldRed, color), "\n");
  }
  if (gate.passed) {
    absl::StrAppend(&out,
                    text::Paint(absl::StrCat("GATE PASSED: ", gate.cases_gated, " cases gated"),
                                text::kGreen, color),
                    gate.ignored.empty() ? "" : absl::StrCat(", ", gate.ignored.size(), " ignored"),
                    " (policy: ", gate.policy_source, ")\n");
    return out;
  }
  absl::StrAppend(&out,
                  text::Paint(absl::StrCat("GATE FAILED: ", gate.failures.size(), " failure",
                                           gate.failures.size() == 1 ? "" : "s", " in ",
                                           gate.cases_gated, " cases gated"),
                              text::kBoldRed, color),
                  " (policy: ", gate.policy_source, ")\n");
  for (const GateFailure& f : gate.failures) {
    absl::StrAppend(&out, "  [", f.rule, "] ", f.key, ": ", f.message, "\n");
  }
  return out;
}

}  // namespace flashscope::reports
