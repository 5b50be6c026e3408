// The outputs of flashscope ab's verdicts (analysis/ab_verdict.h): the terminal table and verdict,
// and the machine-readable JSON.
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/ab_verdict.h"
#include "analysis/change_explanation.h"
#include "reports/json_fields.h"
#include "reports/provenance.h"
#include "reports/text_safety.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

using jsonio::Json;
using jsonio::Number;

const char* JudgedBy(const AbPair& p) {
  if (!p.compared) return "nothing";
  return p.judged_by_effect ? "effect" : "test";
}

const char* VerdictColor(Verdict v) {
  switch (v) {
    case Verdict::kSlower:
      return text::kBoldRed;
    case Verdict::kFaster:
      return text::kGreen;
    case Verdict::kAmbiguous:
      return text::kYellow;
    default:
      return nullptr;
  }
}

// Why a slower or faster case moved, from the counters and resources of its two sides
// (analysis/change_explanation.h); "" for any other verdict.
std::string Explanation(const AbPair& p) {
  if (!p.compared || (p.verdict != Verdict::kSlower && p.verdict != Verdict::kFaster)) return "";
  return ExplainChange(*p.base, *p.next, p.evidence.effect).Line();
}

std::string Provenance(const CaseResult& c) {
  return c.provenance ? DescribeProvenance(*c.provenance) : "";
}

}  // namespace

Json AbVerdictJson(const AbComparison& c, const AbResult& r, const std::string& base_path,
                   const std::string& next_path) {
  Json j;
  j["schema"] = kAbVerdictSchemaName;
  j["schema_version"] = kAbVerdictSchemaVersion;
  j["passed"] = r.passed();
  j["exit_code"] = r.ExitCode();
  j["base"] = base_path;
  j["new"] = next_path;
  j["options"] = {{"alpha", c.options.alpha},
                  {"min_effect", c.options.min_effect},
                  {"allowed_slowdown", c.options.allowed_slowdown},
                  {"test", "wilcoxon signed-rank on per-pair log-ratios ln(new/base)"},
                  {"effect", "hodges-lehmann shift, exp(shift) - 1"}};
  int correctness = 0;
  for (const GateFailure& f : r.failures) correctness += f.rule == "correctness";
  j["counts"] = {{"cases", c.pairs.size()},
                 {"faster", c.CountVerdict(Verdict::kFaster)},
                 {"slower", c.CountVerdict(Verdict::kSlower)},
                 {"same", c.CountVerdict(Verdict::kSame)},
                 {"ambiguous", c.CountVerdict(Verdict::kAmbiguous)},
                 {"not_compared", c.CountVerdict(Verdict::kNotTimed)},
                 {"correctness_regressions", correctness},
                 {"only_base", c.only_base.size()},
                 {"only_new", c.only_next.size()},
                 {"failures", r.failures.size()}};
  Json failures = Json::array();
  for (const GateFailure& f : r.failures) {
    failures.push_back({{"key", f.key}, {"rule", f.rule}, {"message", f.message}});
  }
  j["failures"] = failures;
  Json cases = Json::array();
  for (const AbPair& p : c.pairs) {
    const PairedEvidence& e = p.evidence;
    cases.push_back({{"key", p.key},
                     {"kernel_id", p.kernel_id},
                     {"problem_key", p.problem_key},
                     {"base_status", CaseStatusName(p.base->status)},
                     {"new_status", CaseStatusName(p.next->status)},
                     {"base_median_ms", Number(p.base_median_ms)},
                     {"new_median_ms", Number(p.next_median_ms)},
                     {"pairs", e.pairs},
                     {"effect_pct", Number(e.effect * 100)},
                     {"ci_low_pct", Number(e.ci_low * 100)},
                     {"ci_high_pct", Number(e.ci_high * 100)},
                     {"p_value", Number(p.compared ? e.test.p_value : AbPair::kNaN)},
                     {"test", p.compared ? e.test.Method() : ""},
                     {"verdict", p.compared ? VerdictName(p.verdict) : "not compared"},
                     {"judged_by", JudgedBy(p)},
                     {"note", p.note},
                     {"verdict_reason", p.verdict_reason},
                     {"explanation", Explanation(p)},
                     {"base_plugin", Provenance(*p.base)},
                     {"new_plugin", Provenance(*p.next)}});
  }
  j["cases"] = cases;
  Json only_base = Json::array(), only_new = Json::array();
  for (const CaseResult* b : c.only_base) only_base.push_back(b->Key());
  for (const CaseResult* n : c.only_next) only_new.push_back(n->Key());
  j["only_base"] = only_base;
  j["only_new"] = only_new;
  return j;
}

std::string RenderAbTerminal(const AbComparison& c, const AbResult& r, bool color) {
  using text::Cell;
  text::Table t;
  t.AddColumn("case", text::Table::Align::kLeft);
  t.AddColumn("base ms", text::Table::Align::kRight);
  t.AddColumn("new ms", text::Table::Align::kRight);
  t.AddColumn("change", text::Table::Align::kRight);
  t.AddColumn(absl::StrFormat("%g%% interval", 100 * (1 - c.options.alpha)),
              text::Table::Align::kLeft);
  t.AddColumn("p", text::Table::Align::kRight);
  t.AddColumn("pairs", text::Table::Align::kRight);
  t.AddColumn("verdict", text::Table::Align::kLeft);
  t.AddColumn("note", text::Table::Align::kLeft);
  for (const AbPair& p : c.pairs) {
    const PairedEvidence& e = p.evidence;
    const bool ci = std::isfinite(e.ci_low) && std::isfinite(e.ci_high);
    t.AddRow({{p.key},
              {text::Ms(p.base_median_ms)},
              {text::Ms(p.next_median_ms)},
              {p.compared ? text::SignedPct(e.effect * 100) : "-"},
              {ci ? absl::StrCat(text::SignedPct(e.ci_low * 100), " .. ",
                                 text::SignedPct(e.ci_high * 100))
                  : "-"},
              {p.compared ? absl::StrFormat("%.2g", e.test.p_value) : "-"},
              {p.compared ? absl::StrCat(e.pairs) : "-"},
              {p.compared ? VerdictName(p.verdict) : "not compared", VerdictColor(p.verdict)},
              {p.note}});
  }
  std::string out = t.Render(color);
  for (const AbPair& p : c.pairs) {
    if (const std::string why = Explanation(p); !why.empty()) {
      absl::StrAppend(&out, "why ", text::TerminalSafe(p.key), ": ", text::TerminalSafe(why), "\n");
    }
  }
  for (const CaseResult* b : c.only_base) {
    absl::StrAppend(&out, "only in base: ", text::TerminalSafe(b->Key()), "\n");
  }
  for (const CaseResult* n : c.only_next) {
    absl::StrAppend(&out, "only in new:  ", text::TerminalSafe(n->Key()), "\n");
  }
  absl::StrAppendFormat(
      &out,
      "%d cases: %d slower, %d faster, %d same, %d ambiguous, %d not compared; %zu only in base, "
      "%zu only in new\n",
      static_cast<int>(c.pairs.size()), c.CountVerdict(Verdict::kSlower),
      c.CountVerdict(Verdict::kFaster), c.CountVerdict(Verdict::kSame),
      c.CountVerdict(Verdict::kAmbiguous), c.CountVerdict(Verdict::kNotTimed), c.only_base.size(),
      c.only_next.size());
  const std::string rule = absl::StrFormat(
      "(a case fails when slower by > %g%% with p < %g on the signed-rank test of its per-pair "
      "log-ratios, or when the new side fails where the base did not)",
      c.options.allowed_slowdown * 100, c.options.alpha);
  if (r.passed()) {
    absl::StrAppend(&out, text::Paint("AB PASSED: no regression", text::kGreen, color), " ", rule,
                    "\n");
    return out;
  }
  absl::StrAppend(&out,
                  text::Paint(absl::StrCat("AB FAILED: ", r.failures.size(), " regression",
                                           r.failures.size() == 1 ? "" : "s"),
                              text::kBoldRed, color),
                  " ", rule, "\n");
  for (const GateFailure& f : r.failures) {
    absl::StrAppend(&out, "  [", f.rule, "] ", text::TerminalSafe(f.key), ": ",
                    text::TerminalSafe(f.message), "\n");
  }
  return out;
}

}  // namespace flashscope::reports
