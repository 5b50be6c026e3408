// The terminal rendering of a comparison (`flashscope compare`) and of the gate's decision, from
// the comparison's summary model (analysis/comparison_summary.h): environment, status changes, the
// table of pairs with their verdicts, the kernels measured from another plugin build, the cases on
// one side only, the geomean and the counts.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/comparison_summary.h"
#include "render/render_terminal.h"
#include "reports/text_safety.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

using text::Paint;
using text::TerminalSafe;

const char* ToneColor(Tone t) {
  switch (t) {
    case Tone::kFailure:
      return text::kBoldRed;
    case Tone::kSlower:
      return text::kRed;
    case Tone::kFaster:
      return text::kGreen;
    case Tone::kUnsure:
      return text::kYellow;
    case Tone::kNeutral:
      break;
  }
  return nullptr;
}

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
  if (cmp.on_different_gpus > 0) {
    absl::StrAppend(out, Paint(TerminalSafe(cmp.DifferentGpusNote()), text::kYellow, color), "\n");
  }
}

void AppendStatusChanges(const ComparisonSummary& s, bool color, std::string* out) {
  std::vector<const PairSummary*> changed;
  for (const PairSummary& p : s.pairs) {
    if (p.status_changed) changed.push_back(&p);
  }
  if (changed.empty()) return;
  absl::StrAppend(
      out, Paint(absl::StrCat("STATUS CHANGES (", changed.size(), "):"), text::kBold, color), "\n");
  for (const PairSummary* p : changed) {
    std::string line = absl::StrCat(p->correctness_regression ? "  !! " : "     ", p->key, ": ",
                                    p->StatusText(" -> "));
    // A passed side says which rule it passed by.
    std::string why = p->next->reason;
    if (why.empty() && p->next->verification) why = p->next->verification->rule;
    if (!why.empty()) absl::StrAppend(&line, " (", why, ")");
    absl::StrAppend(
        out,
        Paint(TerminalSafe(line), p->correctness_regression ? text::kBoldRed : text::kGreen, color),
        "\n");
  }
  *out += "\n";
}

std::vector<text::Cell> PairRow(const PairSummary& p, double band_pct) {
  // The delta is painted by size alone (inside min_effect it stays neutral); whether it is
  // significant is the verdict's colour.
  const double delta = p.delta_pct.value;
  const char* delta_color = nullptr;
  if (delta > band_pct) delta_color = text::kRed;
  if (delta < -band_pct) delta_color = text::kGreen;
  // The note (status change, missing timing) first, then the statistical verdict.
  const std::string verdict =
      p.verdict == Verdict::kNotTimed
          ? ""
          : absl::StrCat(VerdictName(p.verdict), " (", p.verdict_reason, ")");
  const std::string last = p.note.empty()    ? verdict
                           : verdict.empty() ? p.note
                                             : absl::StrCat(p.note, "; ", verdict);
  return {{p.kernel_id},
          {p.problem_key},
          {p.StatusText("->"), p.correctness_regression ? text::kBoldRed : nullptr},
          {FormatValue(p.base_median)},
          {FormatValue(p.next_median)},
          {text::SignedPct(delta), delta_color},
          {last, ToneColor(p.tone)}};
}

std::string PairTable(const ComparisonSummary& s, bool color) {
  text::Table t;
  using A = text::Table::Align;
  t.AddColumn("kernel", A::kLeft);
  t.AddColumn("problem", A::kLeft);
  t.AddColumn("status", A::kLeft);
  t.AddColumn("base ms", A::kRight);
  t.AddColumn("next ms", A::kRight);
  t.AddColumn("delta", A::kRight);
  t.AddColumn("verdict / note", A::kLeft);
  for (const PairSummary& p : s.pairs) {
    t.AddRow(PairRow(p, s.source->options.min_effect * 100));
  }
  return t.Render(color);
}

void AppendOneSide(const char* title, const std::vector<PairSummary>& cases, bool color,
                   std::string* out) {
  if (cases.empty()) return;
  absl::StrAppend(out, "\n",
                  Paint(absl::StrCat(title, " (", cases.size(), "):"), text::kBold, color), "\n");
  for (const PairSummary& p : cases) {
    const CaseResult* c = p.base != nullptr ? p.base : p.next;
    absl::StrAppend(out, "  ", TerminalSafe(p.key), " [", CaseStatusName(c->status), "]\n");
  }
}

void AppendTotals(const ComparisonSummary& s, std::string* out) {
  const Comparison& cmp = *s.source;
  if (s.geomean_pairs > 0) {
    absl::StrAppend(
        out, "\n",
        absl::StrFormat("geomean next/base median: %.3f (%s) over %d timed pairs\n", s.geomean,
                        text::SignedPct((s.geomean - 1) * 100), s.geomean_pairs));
  }
  if (!s.pairs.empty()) {
    absl::StrAppend(
        out, absl::StrFormat(
                 "verdicts (Mann-Whitney U, alpha %g, min effect %g%%): %d faster, %d slower, %d "
                 "same, %d ambiguous, %d not timed; %d correctness regressions\n",
                 cmp.options.alpha, cmp.options.min_effect * 100, s.counts.faster, s.counts.slower,
                 s.counts.same, s.counts.ambiguous, s.counts.not_timed,
                 s.counts.correctness_regressions));
  }
  if (cmp.duplicate_keys > 0) {
    absl::StrAppend(out, "note: ", cmp.duplicate_keys,
                    " cases repeat a key within one report; the first of each was compared\n");
  }
}

// Kernels measured from another build of their plugin on each side: the deltas compare builds.
void AppendRebuiltKernels(const ComparisonSummary& s, bool color, std::string* out) {
  if (s.rebuilt.empty()) return;
  absl::StrAppend(out, "\n", Paint("kernels from another build:", text::kBold, color), "\n");
  for (const auto& [kernel, change] : s.rebuilt) {
    absl::StrAppend(out, TerminalSafe(absl::StrCat("  ", kernel, ": ", change)), "\n");
  }
}

}  // namespace

std::string RenderComparison(const Comparison& cmp, bool color) {
  const ComparisonSummary s = SummarizeComparison(cmp, nullptr);
  std::string out;
  AppendEnvironment(cmp, color, &out);
  AppendStatusChanges(s, color, &out);
  if (!s.pairs.empty()) out += PairTable(s, color);
  AppendRebuiltKernels(s, color, &out);
  AppendOneSide("only in base", s.only_base, color, &out);
  AppendOneSide("only in next", s.only_next, color, &out);
  AppendTotals(s, &out);
  if (out.empty()) out = "(both reports are empty)\n";
  return out;
}

std::string RenderGateTerminal(const GateResult& gate, bool color) {
  std::string out;
  if (!gate.forced_banner.empty()) {
    absl::StrAppend(&out, Paint(TerminalSafe(gate.forced_banner), text::kBoldRed, color), "\n");
  }
  // What passed without a full judgement is said on the verdict's own line, never left out.
  absl::StrAppend(&out,
                  Paint(GateHeadline(gate), gate.passed ? text::kGreen : text::kBoldRed, color),
                  GateNotes(gate), " (policy: ", TerminalSafe(gate.policy_source), ")\n");
  for (const GateFailure& f : gate.failures) {
    absl::StrAppend(&out, "  [", f.rule, "] ", TerminalSafe(f.key), ": ", TerminalSafe(f.message),
                    "\n");
  }
  return out;
}

}  // namespace flashscope::reports
