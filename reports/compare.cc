#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/provenance.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double MedianOrNaN(const CaseResult& c) {
  if (!c.timing || c.status == CaseStatus::kSkipped) return kNaN;
  return c.timing->median_ms;
}

std::string MissingTimingNote(const char* side, const CaseResult& c) {
  return absl::StrCat("no timing in ", side, " (", CaseStatusName(c.status), ")");
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

Verdict DecideVerdict(double delta_fraction, double p_value, const CompareOptions& o,
                      std::string* reason) {
  std::string why;
  Verdict v;
  const double effect = std::fabs(delta_fraction);
  const std::string min_effect = absl::StrFormat("%g%%", o.min_effect * 100);
  if (std::isnan(delta_fraction)) {
    v = Verdict::kNotTimed;
    why = "no median on one side";
  } else if (effect < o.min_effect) {
    v = Verdict::kSame;
    why = absl::StrCat("|", EffectText(delta_fraction), "| < ", min_effect);
  } else if (std::isnan(p_value)) {
    // A median change without raw samples to test it (an old or hand-made report).
    v = Verdict::kAmbiguous;
    why = absl::StrCat(EffectText(delta_fraction), " but no raw samples to test");
  } else if (p_value < o.alpha) {
    v = delta_fraction > 0 ? Verdict::kSlower : Verdict::kFaster;
    why = absl::StrFormat("p %.2g < %g, |%s| >= %s", p_value, o.alpha, EffectText(delta_fraction),
                          min_effect);
  } else {
    v = Verdict::kAmbiguous;
    why = absl::StrFormat("%s but p %.2g >= %g", EffectText(delta_fraction), p_value, o.alpha);
  }
  if (reason != nullptr) *reason = why;
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
    CaseDelta d{key, c.kernel_id, c.problem_key, &c, &n, MedianOrNaN(c), MedianOrNaN(n), kNaN, ""};
    std::vector<std::string> why;
    if (c.status != n.status) {
      why.push_back(
          absl::StrCat("status ", CaseStatusName(c.status), " -> ", CaseStatusName(n.status)));
    }
    if (std::isnan(d.base_median_ms)) why.push_back(MissingTimingNote("base", c));
    if (std::isnan(d.next_median_ms)) why.push_back(MissingTimingNote("next", n));
    if (!std::isnan(d.base_median_ms) && !std::isnan(d.next_median_ms)) {
      if (d.base_median_ms > 0) {
        d.delta_pct = (d.next_median_ms - d.base_median_ms) / d.base_median_ms * 100.0;
      } else {
        why.push_back("base median is 0 ms");
      }
    }
    d.note = absl::StrJoin(why, "; ");
    if (!std::isnan(d.delta_pct) && c.timing && n.timing && !c.timing->samples_ms.empty() &&
        !n.timing->samples_ms.empty()) {
      d.test = MannWhitneyU(c.timing->samples_ms, n.timing->samples_ms);
      d.tested = true;
    }
    d.verdict = DecideVerdict(d.delta_pct / 100.0, d.PValue(), options, &d.verdict_reason);
    if (d.verdict == Verdict::kAmbiguous && d.tested &&
        MannWhitneyMinP(d.test.n_a, d.test.n_b) >= options.alpha) {
      absl::StrAppend(&d.verdict_reason, "; ", d.test.n_a, " vs ", d.test.n_b,
                      " samples cannot reach p < ", absl::StrFormat("%g", options.alpha));
    }
    d.metrics = MetricDeltas(c, n);
    out.paired.push_back(std::move(d));
  }
  for (const CaseResult& c : next.cases) {
    if (next_by_key[c.Key()] != &c) continue;
    if (base_by_key.count(c.Key()) == 0) out.only_next.push_back(&c);
  }
  return out;
}

std::string RenderComparison(const Comparison& cmp, bool color) {
  using text::Paint;
  std::string out;
  if (cmp.forced) absl::StrAppend(&out, Paint(cmp.ForcedBanner(), text::kBoldRed, color), "\n");
  if (cmp.different_gpu) {
    absl::StrAppend(&out,
                    Paint("DIFFERENT GPUs: timings are not comparable", text::kBoldRed, color),
                    " (", cmp.environment_note, ")\n");
  } else if (!cmp.environment_note.empty()) {
    absl::StrAppend(&out, Paint("environment differs: ", text::kYellow, color),
                    cmp.environment_note, "\n");
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
      absl::StrAppend(&out, Paint(line, regression ? text::kBoldRed : text::kGreen, color), "\n");
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
  // A kernel measured from another build of its plugin: the numbers above compare two builds.
  std::vector<std::string> rebuilt;
  for (const CaseDelta& d : cmp.paired) {
    std::string change = ProvenanceChange(*d.base, *d.next);
    std::string line = absl::StrCat("  ", d.kernel_id, ": ", change, "\n");
    if (!change.empty() && std::find(rebuilt.begin(), rebuilt.end(), line) == rebuilt.end()) {
      rebuilt.push_back(line);
    }
  }
  if (!rebuilt.empty()) {
    absl::StrAppend(&out, "\n", Paint("kernels from another build:", text::kBold, color), "\n",
                    absl::StrJoin(rebuilt, ""));
  }
  auto one_side = [&](const char* title, const std::vector<const CaseResult*>& cases) {
    if (cases.empty()) return;
    absl::StrAppend(&out, "\n",
                    Paint(absl::StrCat(title, " (", cases.size(), "):"), text::kBold, color), "\n");
    for (const CaseResult* c : cases) {
      absl::StrAppend(&out, "  ", c->Key(), " [", CaseStatusName(c->status), "]\n");
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
