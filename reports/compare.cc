#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/provenance.h"
#include "reports/text_safety.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// "" when `c` has a timing the comparison can use, else why not, e.g. "no timing in next
// (skipped)", "base median -0.5 ms is not a positive time".
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
  return "";
}

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
  for (const std::string& p : {base_problem, next_problem}) {
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
  }
  for (const CaseResult& c : next.cases) {
    if (next_by_key[c.Key()] != &c) continue;
    if (base_by_key.count(c.Key()) == 0) out.only_next.push_back(&c);
  }
  return out;
}

namespace {

// Kernels measured from another build of their plugin on each side: the deltas compare builds.
std::string RenderRebuiltKernels(const Comparison& cmp, bool color) {
  std::vector<std::string> lines;
  for (const CaseDelta& d : cmp.paired) {
    const std::string change = ProvenanceChange(*d.base, *d.next);
    std::string line = text::TerminalSafe(absl::StrCat("  ", d.kernel_id, ": ", change)) + "\n";
    if (!change.empty() && std::find(lines.begin(), lines.end(), line) == lines.end()) {
      lines.push_back(std::move(line));
    }
  }
  if (lines.empty()) return "";
  return absl::StrCat("\n", text::Paint("kernels from another build:", text::kBold, color), "\n",
                      absl::StrJoin(lines, ""));
}

}  // namespace

std::string RenderComparison(const Comparison& cmp, bool color) {
  using text::Paint;
  std::string out;
  using text::TerminalSafe;
  if (cmp.forced) {
    absl::StrAppend(&out, Paint(TerminalSafe(cmp.ForcedBanner()), text::kBoldRed, color), "\n");
  }
  if (cmp.different_gpu) {
    absl::StrAppend(&out,
                    Paint("DIFFERENT GPUs: timings are not comparable", text::kBoldRed, color),
                    " (", TerminalSafe(cmp.environment_note), ")\n");
  } else if (!cmp.environment_note.empty()) {
    absl::StrAppend(&out, Paint("environment differs: ", text::kYellow, color),
                    TerminalSafe(cmp.environment_note), "\n");
  }
  std::vector<const CaseDelta*> changed;
  for (const CaseDelta& d : cmp.paired) {
    if (d.StatusChanged()) changed.push_back(&d);
  }
  if (!changed.empty()) {
    absl::StrAppend(
        &out, Paint(absl::StrCat("STATUS CHANGES (", changed.size(), "):"), text::kBold, color),
        "\n");
    for (const CaseDelta* d : changed) {
      const bool regression = d->IsCorrectnessRegression();
      std::string line =
          absl::StrCat(regression ? "  !! " : "     ", d->key, ": ",
                       CaseStatusName(d->base->status), " -> ", CaseStatusName(d->next->status));
      std::string why = d->next->reason;
      if (why.empty() && d->next->verification) why = d->next->verification->rule;
      if (!why.empty()) absl::StrAppend(&line, " (", why, ")");
      absl::StrAppend(
          &out, Paint(TerminalSafe(line), regression ? text::kBoldRed : text::kGreen, color), "\n");
    }
    out += "\n";
  }
  if (!cmp.paired.empty()) {
    text::Table t;
    using A = text::Table::Align;
    t.AddColumn("kernel", A::kLeft);
    t.AddColumn("problem", A::kLeft);
    t.AddColumn("status", A::kLeft);
    t.AddColumn("base ms", A::kRight);
    t.AddColumn("next ms", A::kRight);
    t.AddColumn("delta", A::kRight);
    t.AddColumn("verdict / note", A::kLeft);
    for (const CaseDelta& d : cmp.paired) {
      std::string status = d.StatusChanged() ? absl::StrCat(CaseStatusName(d.base->status), "->",
                                                            CaseStatusName(d.next->status))
                                             : CaseStatusName(d.next->status);
      const char* delta_color = nullptr;
      // The delta is painted by size alone (inside min_effect it stays neutral); whether it is
      // significant is the verdict's colour.
      const double band = cmp.options.min_effect * 100;
      if (d.delta_pct > band) delta_color = text::kRed;
      if (d.delta_pct < -band) delta_color = text::kGreen;
      // The note (status change, missing timing) first, then the statistical verdict.
      std::string verdict = d.verdict == Verdict::kNotTimed
                                ? ""
                                : absl::StrCat(VerdictName(d.verdict), " (", d.verdict_reason, ")");
      const char* verdict_color = nullptr;
      if (d.verdict == Verdict::kSlower) verdict_color = text::kRed;
      if (d.verdict == Verdict::kFaster) verdict_color = text::kGreen;
      if (d.verdict == Verdict::kAmbiguous) verdict_color = text::kYellow;
      if (d.IsCorrectnessRegression()) verdict_color = text::kBoldRed;
      std::string last = d.note.empty()    ? verdict
                         : verdict.empty() ? d.note
                                           : absl::StrCat(d.note, "; ", verdict);
      t.AddRow({{d.kernel_id},
                {d.problem_key},
                {status, d.IsCorrectnessRegression() ? text::kBoldRed : nullptr},
                {text::Ms(d.base_median_ms)},
                {text::Ms(d.next_median_ms)},
                {text::SignedPct(d.delta_pct), delta_color},
                {last, verdict_color}});
    }
    out += t.Render(color);
  }
  out += RenderRebuiltKernels(cmp, color);
  auto one_side = [&](const char* title, const std::vector<const CaseResult*>& cases) {
    if (cases.empty()) return;
    absl::StrAppend(&out, "\n",
                    Paint(absl::StrCat(title, " (", cases.size(), "):"), text::kBold, color), "\n");
    for (const CaseResult* c : cases) {
      absl::StrAppend(&out, "  ", TerminalSafe(c->Key()), " [", CaseStatusName(c->status), "]\n");
    }
  };
  one_side("only in base", cmp.only_base);
  one_side("only in next", cmp.only_next);
  double log_sum = 0;
  int timed = 0;
  for (const CaseDelta& d : cmp.paired) {
    if (std::isnan(d.delta_pct)) continue;
    log_sum += std::log(d.next_median_ms / d.base_median_ms);
    ++timed;
  }
  if (timed > 0) {
    double geomean = std::exp(log_sum / timed);
    absl::StrAppend(&out, "\n",
                    absl::StrFormat("geomean next/base median: %.3f (%s) over %d timed pairs\n",
                                    geomean, text::SignedPct((geomean - 1) * 100), timed));
  }
  if (!cmp.paired.empty()) {
    absl::StrAppend(
        &out,
        absl::StrFormat("verdicts (Mann-Whitney U, alpha %g, min effect %g%%): %d faster, %d "
                        "slower, %d same, %d ambiguous, %d not timed; %d correctness "
                        "regressions\n",
                        cmp.options.alpha, cmp.options.min_effect * 100,
                        cmp.CountVerdict(Verdict::kFaster), cmp.CountVerdict(Verdict::kSlower),
                        cmp.CountVerdict(Verdict::kSame), cmp.CountVerdict(Verdict::kAmbiguous),
                        cmp.CountVerdict(Verdict::kNotTimed), cmp.CorrectnessRegressions()));
  }
  if (cmp.duplicate_keys > 0) {
    absl::StrAppend(&out, "note: ", cmp.duplicate_keys,
                    " cases repeat a key within one report; the first of each was compared\n");
  }
  if (out.empty()) out = "(both reports are empty)\n";
  return out;
}

}  // namespace flashscope::reports
