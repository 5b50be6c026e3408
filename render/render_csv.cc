#include "render/render_csv.h"

#include <cmath>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/comparison_summary.h"
#include "analysis/summary.h"
#include "reports/text_safety.h"

namespace flashscope::reports {
namespace {

std::string Row(const std::vector<std::string>& fields) {
  std::vector<std::string> quoted;
  for (const std::string& f : fields) quoted.push_back(CsvField(f));
  return absl::StrCat(absl::StrJoin(quoted, ","), "\r\n");
}

}  // namespace

std::string CsvField(const std::string& s) {
  // Unsafe characters other than tab and line breaks (which a quoted field holds), and bytes that
  // are not UTF-8, become U+FFFD: a NUL ends the text for many readers, a bidi control reorders
  // the cell as a spreadsheet shows it.
  std::string clean;
  clean.reserve(s.size());
  text::ForEachStep(s, [&](const text::Utf8Step& step, absl::string_view bytes) {
    const char32_t cp = step.code_point;
    const bool line_or_tab = cp == '\t' || cp == '\n' || cp == '\r';
    if (!step.valid || (text::IsUnsafeCharacter(cp) && !line_or_tab)) {
      clean += text::kReplacementCharacter;
    } else {
      absl::StrAppend(&clean, bytes);
    }
  });
  // A spreadsheet runs a cell that starts with = + - @ (or tab, CR) as a formula (OWASP "CSV
  // injection"); a leading ' keeps it text. Numbers ("-1.5", "-inf") stay numbers.
  double number;
  if (!clean.empty() && std::strchr("=+-@\t\r", clean[0]) != nullptr &&
      !absl::SimpleAtod(clean, &number)) {
    clean.insert(0, "'");
  }
  if (clean.find_first_of(",\"\r\n") == std::string::npos) return clean;
  std::string out = "\"";
  for (char ch : clean) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
  return out;
}

// Identity columns, then every value of the summary model by its key (the union over the cases:
// a metric one case measured is a column for all), then the reason.
std::string RenderReportCsv(const Report& r) {
  const ReportSummary summary = SummarizeReport(r);
  std::vector<std::string> header = {"suite",  "gpu",         "synthetic", "kernel_id",
                                     "family", "problem_key", "status"};
  for (const ValueSpec& spec : summary.columns) header.push_back(spec.key);
  header.push_back("reason");
  std::string out = Row(header);
  for (const CaseSummary& c : summary.cases) {
    std::vector<std::string> row = {r.suite.name,
                                    r.environment.gpu_name,
                                    r.environment.synthetic ? "true" : "false",
                                    c.kernel_id,
                                    c.family,
                                    c.problem_key,
                                    CaseStatusName(c.status)};
    for (const SummaryValue& v : c.values) row.push_back(FormatValueExact(v));
    row.push_back(c.reason);
    out += Row(row);
  }
  return out;
}

std::string RenderComparisonCsv(const Comparison& c, const GateResult* gate) {
  const ComparisonSummary s = SummarizeComparison(c, gate);
  const std::string forced = c.forced ? c.ForcedBanner() : "";
  std::string out = Row({"side", "key", "kernel_id", "problem_key", "base_status", "next_status",
                         "base_median_ms", "next_median_ms", "delta_pct", "p_value", "test",
                         "verdict", "verdict_reason", "correctness_regression", "gate",
                         "gate_failures", "forced_environment"});
  for (const PairSummary* p : s.All()) {
    const bool both = p->side == PairSummary::Side::kBoth;
    const std::string side = both ? "both" : p->base != nullptr ? "base" : "next";
    const std::string gate_failures = p->gate == GateMark::kFail ? p->failure : "";
    out += Row({side, p->key, p->kernel_id, p->problem_key,
                p->base != nullptr ? CaseStatusName(p->base->status) : "",
                p->next != nullptr ? CaseStatusName(p->next->status) : "",
                FormatValueExact(p->base_median), FormatValueExact(p->next_median),
                FormatValueExact(p->delta_pct), FormatValueExact(p->p_value),
                both && p->delta->tested ? p->delta->test.Method() : "",
                both ? VerdictName(p->verdict) : "", p->verdict_reason,
                p->correctness_regression ? "true" : "false", GateMarkName(p->gate), gate_failures,
                forced});
  }
  return out;
}

}  // namespace flashscope::reports
