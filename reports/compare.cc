#include "reports/compare.h"

#include <cmath>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Deltas inside this band are painted neutral: below it, run-to-run noise dominates (issue 5
// replaces this with a significance test).
constexpr double kColorBandPct = 2.0;

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

}  // namespace

bool CaseDelta::IsCorrectnessRegression() const {
  if (base->status == next->status) return false;
  if (base->status == CaseStatus::kPassed) return true;
  return next->status == CaseStatus::kFailed || next->status == CaseStatus::kError ||
         next->status == CaseStatus::kTimeout;
}

Comparison Compare(const Report& base, const Report& next) {
  Comparison out;
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
    t.AddColumn("note", A::kLeft);
    for (const CaseDelta& d : cmp.paired) {
      std::string status = d.StatusChanged() ? absl::StrCat(CaseStatusName(d.base->status), "->",
                                                            CaseStatusName(d.next->status))
                                             : CaseStatusName(d.next->status);
      const char* delta_color = nullptr;
      if (d.delta_pct > kColorBandPct) delta_color = text::kRed;
      if (d.delta_pct < -kColorBandPct) delta_color = text::kGreen;
      t.AddRow({{d.kernel_id},
                {d.problem_key},
                {status, d.IsCorrectnessRegression() ? text::kBoldRed : nullptr},
                {text::Ms(d.base_median_ms)},
                {text::Ms(d.next_median_ms)},
                {text::SignedPct(d.delta_pct), delta_color},
                {d.note}});
    }
    out += t.Render(color);
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
  if (cmp.duplicate_keys > 0) {
    absl::StrAppend(&out, "note: ", cmp.duplicate_keys,
                    " cases repeat a key within one report; the first of each was compared\n");
  }
  if (out.empty()) out = "(both reports are empty)\n";
  return out;
}

}  // namespace flashscope::reports
