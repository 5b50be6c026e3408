#include "analysis/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/report_checks.h"

namespace flashscope::reports {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

std::string TimingProblem(const char* side, const CaseResult& c) {
  if (!c.timing || c.status == CaseStatus::kSkipped) {
    return absl::StrCat("no timing in ", side, " (", CaseStatusName(c.status), ")");
  }
  const double median = c.timing->median_ms;
  if (!(std::isfinite(median) && median > 0)) {
    return absl::StrFormat("%s median %g ms is not a positive time", side, median);
  }
  for (double x : c.timing->samples_ms) {
    if (!(std::isfinite(x) && x > 0)) {
      return absl::StrFormat("%s samples hold a value that is not a positive time (%g)", side, x);
    }
  }
  // Without raw samples nothing can be tested and the fastest sample is unknown: the median alone
  // is a claim, not evidence (a report stripped of samples_ms must not pass a 10x slowdown).
  if (c.timing->samples_ms.empty()) {
    return absl::StrCat(side, " has no raw samples (timing.samples_ms is empty)");
  }
  if (std::string why = TimingContradiction(*c.timing); !why.empty()) {
    return absl::StrCat(side, " ", why);
  }
  return "";
}

namespace {

// The fastest sample; timing.min_ms without raw samples; NaN when neither is usable.
double FastestMs(const TimingRecord& t) {
  if (!t.samples_ms.empty()) return *std::min_element(t.samples_ms.begin(), t.samples_ms.end());
  return std::isfinite(t.min_ms) && t.min_ms > 0 ? t.min_ms : kNaN;
}

void AddEnvDifference(std::vector<std::string>* notes, const char* what, const std::string& a,
                      const std::string& b) {
  if (a != b) {
    notes->push_back(
        absl::StrCat(what, " \"", a.empty() ? "?" : a, "\" vs \"", b.empty() ? "?" : b, "\""));
  }
}

// "device 1 (GPU-0aaee1ea)": the GPU a case ran on, its UUID cut to the part people recognise.
std::string DeviceName(const CaseResult& c) {
  const std::string uuid = c.device_uuid.substr(0, std::min<size_t>(c.device_uuid.size(), 12));
  return c.device ? absl::StrCat("device ", *c.device, " (", uuid, ")") : uuid;
}

// Two GPUs of one model are still two chips: on one 2 x H200 host the same ladder case ran up to
// 4.8 % faster on the other GPU (docs/devices.md). False when both sides name the same GPU, or
// either names none (reports written before --devices).
bool OnDifferentGpus(const CaseResult& c, const CaseResult& n) {
  return !c.device_uuid.empty() && !n.device_uuid.empty() && c.device_uuid != n.device_uuid;
}

// The pair's note naming both GPUs, or "".
std::string GpuDifference(const CaseResult& c, const CaseResult& n) {
  if (!OnDifferentGpus(c, n)) return "";
  return absl::StrCat("ran on different GPUs: base on ", DeviceName(c), ", next on ",
                      DeviceName(n));
}

// key -> first case with that key; counts repeats.
std::map<std::string, const CaseResult*> Index(const Report& r, int* duplicates) {
  std::map<std::string, const CaseResult*> by_key;
  for (const CaseResult& c : r.cases) {
    if (!by_key.emplace(c.Key(), &c).second) ++*duplicates;
  }
  return by_key;
}

// Metrics of a case's profile, when it was collected.
const std::vector<MetricRecord>* MetricsOf(const CaseResult& c) {
  if (!c.profile || !c.profile->available) return nullptr;
  return &c.profile->metrics;
}

std::vector<MetricDelta> MetricDeltas(const CaseResult& base, const CaseResult& next) {
  std::vector<MetricDelta> out;
  const auto* a = MetricsOf(base);
  const auto* b = MetricsOf(next);
  if (a == nullptr || b == nullptr) return out;
  for (const MetricRecord& m : *a) {
    for (const MetricRecord& n : *b) {
      const bool same = !m.hw_name.empty() ? m.hw_name == n.hw_name : m.name == n.name;
      if (!same) continue;
      out.push_back({m.name.empty() ? m.hw_name : m.name, m.unit, m.value, n.value});
      break;
    }
  }
  return out;
}

std::string EffectText(double fraction) { return absl::StrFormat("%+.1f%%", fraction * 100); }

// One pair: usable timings, deltas of the median and of the fastest sample, the test, the verdict.
CaseDelta Pair(const std::string& key, const CaseResult& c, const CaseResult& n,
               const CompareOptions& options) {
  CaseDelta d{key, c.kernel_id, c.problem_key, &c, &n, kNaN, kNaN, kNaN, kNaN};
  std::vector<std::string> why;
  if (c.status != n.status) {
    why.push_back(
        absl::StrCat("status ", CaseStatusName(c.status), " -> ", CaseStatusName(n.status)));
  }
  const std::string base_problem = TimingProblem("base", c);
  const std::string next_problem = TimingProblem("next", n);
  for (const std::string& p : {base_problem, next_problem, GpuDifference(c, n)}) {
    if (!p.empty()) why.push_back(p);
  }
  if (base_problem.empty() && next_problem.empty()) {
    d.base_median_ms = c.timing->median_ms;
    d.next_median_ms = n.timing->median_ms;
    d.delta_pct = (d.next_median_ms - d.base_median_ms) / d.base_median_ms * 100.0;
    d.min_delta_pct = (FastestMs(*n.timing) / FastestMs(*c.timing) - 1) * 100.0;
    d.base_samples = static_cast<int>(c.timing->samples_ms.size());
    d.next_samples = static_cast<int>(n.timing->samples_ms.size());
    if (d.base_samples > 0 && d.next_samples > 0) {
      d.test = MannWhitneyU(c.timing->samples_ms, n.timing->samples_ms);
      d.tested = true;
    }
  }
  d.note = absl::StrJoin(why, "; ");
  d.verdict = DecideVerdict(
      {d.delta_pct / 100.0, d.min_delta_pct / 100.0, d.PValue(), d.base_samples, d.next_samples},
      options, &d.verdict_reason, &d.judged_by_effect);
  if (d.verdict == Verdict::kAmbiguous && d.tested && !d.judged_by_effect &&
      MannWhitneyMinP(d.test.n_a, d.test.n_b) >= options.alpha) {
    absl::StrAppend(&d.verdict_reason, "; ", d.test.n_a, " vs ", d.test.n_b,
                    " samples cannot reach p < ", absl::StrFormat("%g", options.alpha));
  }
  d.metrics = MetricDeltas(c, n);
  return d;
}

}  // namespace

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSlower:
      return "slower";
    case Verdict::kSame:
      return "same";
    case Verdict::kAmbiguous:
      return "ambiguous";
    case Verdict::kNotTimed:
      return "not timed";
  }
  return "?";
}

Verdict DecideVerdict(const VerdictEvidence& e, const CompareOptions& o, std::string* reason,
                      bool* by_effect) {
  std::string why;
  Verdict v;
  bool effect_rule = false;
  const std::string min_effect = absl::StrFormat("%g%%", o.min_effect * 100);
  const bool few = std::min(e.n_base, e.n_next) < o.min_samples;
  const Verdict direction = e.median_delta > 0 ? Verdict::kSlower : Verdict::kFaster;
  if (std::isnan(e.median_delta)) {
    v = Verdict::kNotTimed;
    why = "no usable median on one side";
  } else if (std::fabs(e.median_delta) < o.min_effect) {
    v = Verdict::kSame;
    why = absl::StrCat("|", EffectText(e.median_delta), "| < ", min_effect);
  } else if (!std::isnan(e.p_value) && e.p_value < o.alpha) {
    v = direction;
    why = absl::StrFormat("p %.2g < %g, |%s| >= %s", e.p_value, o.alpha, EffectText(e.median_delta),
                          min_effect);
  } else if (few) {
    // The test cannot speak (or did not confirm with too little power): the change must show in
    // the median and in the fastest sample alike, so that one slow sample is not a slowdown.
    const std::string prefix = absl::StrCat(
        e.n_base, " vs ", e.n_next, " samples (< ", o.min_samples, "): ",
        std::isnan(e.p_value) ? "no test"
                              : absl::StrFormat("too few for the test (p %.2g)", e.p_value));
    const bool min_agrees = !std::isnan(e.min_delta) && (e.min_delta > 0) == (e.median_delta > 0) &&
                            std::fabs(e.min_delta) >= o.min_effect;
    if (min_agrees) {
      v = direction;
      effect_rule = true;
      why = absl::StrCat(prefix, ", judged by effect: median ", EffectText(e.median_delta),
                         ", min ", EffectText(e.min_delta), ", both >= ", min_effect);
    } else {
      v = Verdict::kAmbiguous;
      why = absl::StrCat(prefix, ", median ", EffectText(e.median_delta), " but min ",
                         std::isnan(e.min_delta) ? "unknown" : EffectText(e.min_delta));
    }
  } else {
    v = Verdict::kAmbiguous;
    why = absl::StrFormat("%s but p %.2g >= %g", EffectText(e.median_delta), e.p_value, o.alpha);
  }
  if (reason != nullptr) *reason = why;
  if (by_effect != nullptr) *by_effect = effect_rule;
  return v;
}

double CaseDelta::PValue() const { return tested ? test.p_value : kNaN; }

std::string Comparison::ForcedBanner() const {
  if (!forced) return "";
  return absl::StrCat("FORCED comparison across different environments (", environment_note,
                      "): timings may not be comparable");
}

std::string Comparison::DifferentGpusNote() const {
  if (on_different_gpus == 0) return "";
  return absl::StrCat(on_different_gpus, " of ", paired.size(),
                      " pairs ran on different GPUs of the same model (their notes name both): two "
                      "chips can differ by a few percent on one case (docs/devices.md, \"Two chips "
                      "are two chips\"); to compare code, run both sides on one GPU (--devices N)");
}

int Comparison::CountVerdict(Verdict v) const {
  int n = 0;
  for (const CaseDelta& d : paired) n += d.verdict == v;
  return n;
}

int Comparison::CorrectnessRegressions() const {
  int n = 0;
  for (const CaseDelta& d : paired) n += d.IsCorrectnessRegression();
  return n;
}

bool CaseDelta::IsCorrectnessRegression() const {
  if (base->status == next->status) return false;
  if (base->status == CaseStatus::kPassed) return true;
  return next->status == CaseStatus::kFailed || next->status == CaseStatus::kError ||
         next->status == CaseStatus::kTimeout;
}

Comparison Compare(const Report& base, const Report& next, const CompareOptions& options) {
  Comparison out;
  out.options = options;
  const Environment& a = base.environment;
  const Environment& b = next.environment;
  out.different_gpu = a.gpu_name != b.gpu_name || a.compute_capability != b.compute_capability ||
                      a.sm_count != b.sm_count;
  std::vector<std::string> notes;
  AddEnvDifference(&notes, "GPU", a.gpu_name, b.gpu_name);
  if (a.compute_capability != b.compute_capability) {
    notes.push_back(
        absl::StrCat("architecture sm_", a.compute_capability, " vs sm_", b.compute_capability));
  }
  if (a.sm_count != b.sm_count) {
    notes.push_back(absl::StrCat("SM count ", a.sm_count, " vs ", b.sm_count));
  }
  out.different_driver =
      a.driver_version != b.driver_version || a.cuda_runtime_version != b.cuda_runtime_version;
  out.forced = options.forced && out.EnvironmentMismatch();
  AddEnvDifference(&notes, "driver", a.driver_version, b.driver_version);
  AddEnvDifference(&notes, "CUDA", a.cuda_runtime_version, b.cuda_runtime_version);
  if (a.synthetic || b.synthetic) {
    notes.push_back(absl::StrCat(a.synthetic ? "base" : "next", " is a SYNTHETIC report"));
  }
  out.environment_note = absl::StrJoin(notes, "; ");

  std::map<std::string, const CaseResult*> next_by_key = Index(next, &out.duplicate_keys);
  std::map<std::string, const CaseResult*> base_by_key = Index(base, &out.duplicate_keys);
  for (const CaseResult& c : base.cases) {
    const std::string key = c.Key();
    if (base_by_key[key] != &c) continue;  // a repeated key: the first one speaks for it
    auto it = next_by_key.find(key);
    if (it == next_by_key.end()) {
      out.only_base.push_back(&c);
      continue;
    }
    const CaseResult& n = *it->second;
    out.paired.push_back(Pair(key, c, n, options));
    out.on_different_gpus += OnDifferentGpus(c, n);
  }
  for (const CaseResult& c : next.cases) {
    if (next_by_key[c.Key()] != &c) continue;
    if (base_by_key.count(c.Key()) == 0) out.only_next.push_back(&c);
  }
  return out;
}

}  // namespace flashscope::reports
