// Reading the gate policy file (docs/gating.md): strict about keys, types and ranges, so that a
// typo never becomes a silent default.
#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analysis/gate.h"
#include "reports/file_util.h"
#include "reports/input_file.h"
#include "reports/json_fields.h"
#include "reports/json_strict.h"

namespace flashscope::reports {
namespace {

using jsonio::Json;

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

std::string MinSamplesProblem(double v) {
  return v >= 1 && v <= 100000 && v == std::floor(v)
             ? ""
             : "out of range: an integer in [1, 100000] (raw samples per side)";
}

namespace {

// One entry of "overrides"; errors go to *status (naming the JSON path).
KernelOverride ReadOverride(const Json& e, const std::string& at, absl::Status* status) {
  KernelOverride o;
  if (absl::Status s = CheckKeys(
          e, at, {"kernels", "allowed_slowdown", "verification_required", "ignore", "note"});
      !s.ok()) {
    *status = s;
    return o;
  }
  jsonio::Fields g(e, at, status);
  g.RefuseNonFinite();
  g.Get("kernels", &o.kernels, jsonio::Need::kRequired);
  g.Get("ignore", &o.ignore);
  if (e.contains("allowed_slowdown")) {
    double v = 0;
    g.Get("allowed_slowdown", &v);
    o.allowed_slowdown = v;
    if (status->ok()) *status = CheckRange(v, g.PathOf("allowed_slowdown"), AllowedSlowdownProblem);
  }
  if (e.contains("verification_required")) {
    bool v = true;
    g.Get("verification_required", &v);
    o.verification_required = v;
  }
  return o;
}

// One entry of "metric_floors".
MetricFloor ReadMetricFloor(const Json& e, const std::string& at, absl::Status* status) {
  MetricFloor m;
  if (absl::Status s = CheckKeys(e, at, {"kernels", "metric", "min", "fail_when_missing", "note"});
      !s.ok()) {
    *status = s;
    return m;
  }
  jsonio::Fields g(e, at, status);
  g.RefuseNonFinite();
  g.Get("kernels", &m.kernels);
  g.Get("metric", &m.metric, jsonio::Need::kRequired);
  g.Get("min", &m.min, jsonio::Need::kRequired);
  g.Get("fail_when_missing", &m.fail_when_missing);
  // A floor beyond any double (1e999 is refused by the parser) or absurdly large is a typo.
  if (status->ok() && !(std::fabs(m.min) <= 1e15)) {
    g.Fail(g.PathOf("min"), absl::StrCat(m.min, " is out of range [-1e15, 1e15] (a metric floor)"));
  }
  return m;
}

// The lists of the policy: overrides, metric floors, and the keys allowed to pass unjudged.
void ReadLists(jsonio::Fields& f, GatePolicy* p, absl::Status* status) {
  if (const Json* arr = f.Array("overrides")) {
    for (size_t i = 0; i < arr->size() && status->ok(); ++i) {
      p->overrides.push_back(ReadOverride((*arr)[i], jsonio::IndexPath("overrides", i), status));
    }
  }
  if (const Json* arr = f.Array("metric_floors")) {
    for (size_t i = 0; i < arr->size() && status->ok(); ++i) {
      p->metric_floors.push_back(
          ReadMetricFloor((*arr)[i], jsonio::IndexPath("metric_floors", i), status));
    }
  }
  if (const Json* arr = f.Array("allow_not_judged")) {
    for (size_t i = 0; i < arr->size() && status->ok(); ++i) {
      const Json& e = (*arr)[i];
      if (!e.is_string()) {
        f.Fail(jsonio::IndexPath("allow_not_judged", i),
               absl::StrCat("expected string (a case key glob), got ", jsonio::TypeName(e)));
        break;
      }
      p->allow_not_judged.push_back(e.get<std::string>());
    }
  }
}

}  // namespace

absl::StatusOr<GatePolicy> GatePolicyFromJson(const Json& j, const std::string& path) {
  GatePolicy p;
  p.source = path;
  auto bad = [&](const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", s.message()));
  };
  if (absl::Status s =
          CheckKeys(j, "",
                    {"schema", "description", "alpha", "min_effect", "allowed_slowdown",
                     "verification_required", "fail_on_missing", "fail_on_ambiguous", "min_samples",
                     "allow_not_judged", "overrides", "metric_floors"});
      !s.ok()) {
    return bad(s);
  }
  absl::Status status;
  jsonio::Fields f(j, "", &status);
  f.RefuseNonFinite();
  std::string schema;
  double min_samples = p.min_samples;  // read as a number so that 2.5 is named, not truncated
  f.Get("schema", &schema);
  f.Get("alpha", &p.alpha);
  f.Get("min_effect", &p.min_effect);
  f.Get("allowed_slowdown", &p.allowed_slowdown);
  f.Get("verification_required", &p.verification_required);
  f.Get("fail_on_missing", &p.fail_on_missing);
  f.Get("fail_on_ambiguous", &p.fail_on_ambiguous);
  f.Get("min_samples", &min_samples);
  if (!status.ok()) return bad(status);
  if (!schema.empty() && schema != kGatePolicySchemaName) {
    return bad(absl::InvalidArgumentError(
        absl::StrCat("schema \"", schema, "\" is not \"", kGatePolicySchemaName, "\"")));
  }
  for (absl::Status s : {CheckRange(p.alpha, "alpha", AlphaProblem),
                         CheckRange(p.min_effect, "min_effect", MinEffectProblem),
                         CheckRange(p.allowed_slowdown, "allowed_slowdown", AllowedSlowdownProblem),
                         CheckRange(min_samples, "min_samples", MinSamplesProblem)}) {
    if (!s.ok()) return bad(s);
  }
  p.min_samples = static_cast<int>(min_samples);
  ReadLists(f, &p, &status);
  if (!status.ok()) return bad(status);
  return p;
}

absl::StatusOr<GatePolicy> ReadGatePolicyFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadInputFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<Json> j =
      jsonio::ParseStrict(*text, path, "a gate policy file, see docs/gating.md");
  if (!j.ok()) return j.status();
  return GatePolicyFromJson(*j, path);
}
}  // namespace flashscope::reports
