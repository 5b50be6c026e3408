// The terminal rendering of a comparison (`flashscope compare`): environment, status changes,
// the table of pairs with their verdicts, the kernels measured from another plugin build, the cases
// on one side only, the geomean and the counts.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/compare.h"
#include "reports/provenance.h"
#include "reports/text_safety.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

using text::Paint;
using text::TerminalSafe;

void AppendEnvironment(const Comparison& cmp, bool color, std::string* out) {
  if (cmp.forced) {
    absl::StrAppend(out, Paint(TerminalSafe(cmp.ForcedBanner()), text::kBoldRed, color), "\n");
  }
  if (cmp.different_gpu) {
    absl::StrAppend(out, Paint("DIFFERENT GPUs: timings are not comparable", text::kBoldRed, color),
                    " (", TerminalSafe(cmp.environment_note), ")\n");
  } else if (!cmp.environment_note.empty()) {
    absl::StrAppend(out, Paint("environment differs: ", text::kYellow, color),
                    TerminalSafe(cmp.environment_note), "\n");
  }
}

void AppendStatusChanges(const Comparison& cmp, bool color, std::string* out) {
  std::vector<const CaseDelta*> changed;
  for (const CaseDelta& d : cmp.paired) {
    if (d.StatusChanged()) changed.push_back(&d);
  }
  if (changed.empty()) return;
  absl::StrAppend(
      out, Paint(absl::StrCat("STATUS CHANGES (", changed.size(), "):"), text::kBold, color), "\n");
  for (const CaseDelta* d : changed) {
    const bool regression = d->IsCorrectnessRegression();
    std::string line =
        absl::StrCat(regression ? "  !! " : "     ", d->key, ": ", CaseStatusName(d->base->status),
                     " -> ", CaseStatusName(d->next->status));
    std::string why = d->next->reason;
    if (why.empty() && d->next->verification) why = d->next->verification->rule;
    if (!why.empty()) absl::StrAppend(&line, " (", why, ")");
    absl::StrAppend(
        out, Paint(TerminalSafe(line), regression ? text::kBoldRed : text::kGreen, color), "\n");
  }
  *out += "\n";
}

std::vector<text::Cell> PairRow(const CaseDelta& d, double band_pct) {
  std::string status = d.StatusChanged() ? absl::StrCat(CaseStatusName(d.base->status), "->",
                                                        CaseStatusName(d.next->status))
                                         : CaseStatusName(d.next->status);
  // The delta is painted by size alone (inside min_effect it stays neutral); whether it is
  // significant is the verdict's colour.
  const char* delta_color = nullptr;
  if (d.delta_pct > band_pct) delta_color = text::kRed;
  if (d.delta_pct < -band_pct) delta_color = text::kGreen;
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
  return {{d.kernel_id},
          {d.problem_key},
          {status, d.IsCorrectnessRegression() ? text::kBoldRed : nullptr},
          {text::Ms(d.base_median_ms)},
          {text::Ms(d.next_median_ms)},
          {text::SignedPct(d.delta_pct), delta_color},
          {last, verdict_color}};
}

std::string PairTable(const Comparison& cmp, bool color) {
  text::Table t;
  using A = text::Table::Align;
  t.AddColumn("kernel", A::kLeft);
  t.AddColumn("problem", A::kLeft);
  t.AddColumn("status", A::kLeft);
  t.AddColumn("base ms", A::kRight);
  t.AddColumn("next ms", A::kRight);
  t.AddColumn("delta", A::kRight);
  t.AddColumn("verdict / note", A::kLeft);
  for (const CaseDelta& d : cmp.paired) t.AddRow(PairRow(d, cmp.options.min_effect * 100));
  return t.Render(color);
}

void AppendOneSide(const char* title, const std::vector<const CaseResult*>& cases, bool color,
                   std::string* out) {
  if (cases.empty()) return;
  absl::StrAppend(out, "\n",
                  Paint(absl::StrCat(title, " (", cases.size(), "):"), text::kBold, color), "\n");
  for (const CaseResult* c : cases) {
    absl::StrAppend(out, "  ", TerminalSafe(c->Key()), " [", CaseStatusName(c->status), "]\n");
  }
}

void AppendTotals(const Comparison& cmp, std::string* out) {
  double log_sum = 0;
  int timed = 0;
  for (const CaseDelta& d : cmp.paired) {
    if (std::isnan(d.delta_pct)) continue;
    log_sum += std::log(d.next_median_ms / d.base_median_ms);
    ++timed;
  }
  if (timed > 0) {
    double geomean = std::exp(log_sum / timed);
    absl::StrAppend(out, "\n",
                    absl::StrFormat("geomean next/base median: %.3f (%s) over %d timed pairs\n",
                                    geomean, text::SignedPct((geomean - 1) * 100), timed));
  }
  if (!cmp.paired.empty()) {
    absl::StrAppend(
        out, absl::StrFormat(
                 "verdicts (Mann-Whitney U, alpha %g, min effect %g%%): %d faster, %d slower, %d "
                 "same, %d ambiguous, %d not timed; %d correctness regressions\n",
                 cmp.options.alpha, cmp.options.min_effect * 100,
                 cmp.CountVerdict(Verdict::kFaster), cmp.CountVerdict(Verdict::kSlower),
                 cmp.CountVerdict(Verdict::kSame), cmp.CountVerdict(Verdict::kAmbiguous),
                 cmp.CountVerdict(Verdict::kNotTimed), cmp.CorrectnessRegressions()));
  }
  if (cmp.duplicate_keys > 0) {
    absl::StrAppend(out, "note: ", cmp.duplicate_keys,
                    " cases repeat a key within one report; the first of each was compared\n");
  }
}

// Kernels measured from another build of their plugin on each side: the deltas compare builds.
void AppendRebuiltKernels(const Comparison& cmp, bool color, std::string* out) {
  std::vector<std::string> lines;
  for (const CaseDelta& d : cmp.paired) {
    const std::string change = ProvenanceChange(*d.base, *d.next);
    std::string line = TerminalSafe(absl::StrCat("  ", d.kernel_id, ": ", change)) + "\n";
    if (!change.empty() && std::find(lines.begin(), lines.end(), line) == lines.end()) {
      lines.push_back(std::move(line));
    }
  }
  if (lines.empty()) return;
  absl::StrAppend(out, "\n", Paint("kernels from another build:", text::kBold, color), "\n",
                  absl::StrJoin(lines, ""));
}

}  // namespace

std::string RenderComparison(const Comparison& cmp, bool color) {
  std::string out;
  AppendEnvironment(cmp, color, &out);
  AppendStatusChanges(cmp, color, &out);
  if (!cmp.paired.empty()) out += PairTable(cmp, color);
  AppendRebuiltKernels(cmp, color, &out);
  AppendOneSide("only in base", cmp.only_base, color, &out);
  AppendOneSide("only in next", cmp.only_next, color, &out);
  AppendTotals(cmp, &out);
  if (out.empty()) out = "(both reports are empty)\n";
  return out;
}

}  // namespace flashscope::reports
