#include "render/render_junit.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "analysis/comparison_summary.h"
#include "analysis/summary.h"
#include "reports/text_safety.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

std::string Attr(const char* name, const std::string& value) {
  return absl::StrCat(" ", name, "=\"", XmlEscape(value), "\"");
}

// Warnings as <property> lines and a <system-out>, so that a CI page shows them.
std::string Properties(const std::vector<Warning>& warnings, const std::string& env) {
  std::string out = "    <properties>\n";
  absl::StrAppend(&out, "      <property", Attr("name", "environment"), Attr("value", env), "/>\n");
  for (const Warning& w : warnings) {
    absl::StrAppend(&out, "      <property", Attr("name", "warning"), Attr("value", w.text),
                    "/>\n");
  }
  out += "    </properties>\n";
  return out;
}

// The warnings again at the end of the suite, where a CI page shows the suite's output.
std::string WarningsOut(const std::vector<Warning>& warnings) {
  if (warnings.empty()) return "";
  std::vector<std::string> lines;
  for (const Warning& w : warnings) lines.push_back(w.text);
  return absl::StrCat("    <system-out>", XmlEscape(absl::StrJoin(lines, "\n")), "</system-out>\n");
}

// What a passed case measured, in words: its headline values that it has ("median ms 0.0123,
// TFLOPS 45.1, ...").
std::string Measured(const CaseSummary& c) {
  std::vector<std::string> parts;
  for (const SummaryValue& v : c.values) {
    if (v.spec.headline && v.Has())
      parts.push_back(absl::StrCat(v.spec.label, " ", FormatValue(v)));
  }
  return absl::StrJoin(parts, ", ");
}

std::string CaseBody(const CaseSummary& c) {
  switch (c.status) {
    case CaseStatus::kPassed: {
      const std::string measured = Measured(c);
      if (measured.empty()) return "";
      return absl::StrCat("      <system-out>", XmlEscape(measured), "</system-out>\n");
    }
    case CaseStatus::kFailed:
      return absl::StrCat("      <failure", Attr("type", "verification"),
                          Attr("message", c.reason.empty() ? "verification failed" : c.reason),
                          "/>\n");
    case CaseStatus::kSkipped:
      return absl::StrCat("      <skipped", Attr("message", c.reason), "/>\n");
    case CaseStatus::kError:
    case CaseStatus::kTimeout:
      return absl::StrCat("      <error", Attr("type", CaseStatusName(c.status)),
                          Attr("message", c.reason), "/>\n");
  }
  return "";
}

}  // namespace

namespace {

// XML 1.0's Char production (what an XML document may hold at all).
bool XmlAllows(char32_t cp) {
  return cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
         (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}

}  // namespace

std::string XmlEscape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  text::ForEachStep(s, [&](const text::Utf8Step& step, absl::string_view bytes) {
    const char32_t cp = step.code_point;
    const bool line_or_tab = cp == '\n' || cp == '\r' || cp == '\t';
    if (!step.valid || !XmlAllows(cp) || (text::IsUnsafeCharacter(cp) && !line_or_tab)) {
      out += text::kReplacementCharacter;  // shown, not dropped: the reader sees something was
    } else if (cp == '&') {
      out += "&amp;";
    } else if (cp == '<') {
      out += "&lt;";
    } else if (cp == '>') {
      out += "&gt;";
    } else if (cp == '"') {
      out += "&quot;";
    } else if (cp == '\'') {
      out += "&apos;";
    } else if (line_or_tab) {
      // As references, so that an attribute keeps them (a parser turns raw ones into spaces).
      absl::StrAppend(&out, "&#", static_cast<int>(cp), ";");
    } else {
      absl::StrAppend(&out, bytes);
    }
  });
  return out;
}

std::string RenderReportJunit(const Report& r) {
  const ReportSummary summary = SummarizeReport(r);
  const StatusCounts& n = summary.counts;
  double total_s = 0;
  for (const CaseResult& c : r.cases) total_s += c.wall_s;
  const std::string suite = absl::StrCat("flashscope.", r.suite.name);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string counts =
      absl::StrFormat(" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\"",
                      n.total(), n.failed, n.error + n.timeout, n.skipped, total_s);
  absl::StrAppend(&out, "<testsuites", Attr("name", suite), counts, ">\n");
  absl::StrAppend(&out, "  <testsuite", Attr("name", suite), counts,
                  Attr("timestamp", r.environment.started_at), ">\n");
  out += Properties(summary.warnings, summary.environment_line);
  for (const CaseSummary& c : summary.cases) {
    absl::StrAppend(&out, "    <testcase", Attr("classname", c.kernel_id),
                    Attr("name", c.problem_key),
                    absl::StrFormat(" time=\"%.3f\"", c.source->wall_s));
    const std::string body = CaseBody(c);
    if (body.empty()) {
      out += "/>\n";
    } else {
      absl::StrAppend(&out, ">\n", body, "    </testcase>\n");
    }
  }
  out += WarningsOut(summary.warnings);
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

// One <testcase> per pair and per case on one side only; the model says which fail and why.
std::string RenderComparisonJunit(const Comparison& c, const GateResult* gate) {
  const ComparisonSummary s = SummarizeComparison(c, gate);
  const std::vector<const PairSummary*> rows = s.All();
  int n_failed = 0;
  for (const PairSummary* p : rows) n_failed += !p->failure.empty();
  const std::string suite = gate ? "flashscope.gate" : "flashscope.compare";
  const std::string counts = absl::StrFormat(
      " tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\"", rows.size(), n_failed);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  absl::StrAppend(&out, "<testsuites", Attr("name", suite), counts, ">\n");
  absl::StrAppend(&out, "  <testsuite", Attr("name", suite), counts, ">\n");
  out += Properties(s.warnings, absl::StrFormat("alpha %g, min effect %g%%", c.options.alpha,
                                                c.options.min_effect * 100));
  for (const PairSummary* p : rows) {
    absl::StrAppend(&out, "    <testcase", Attr("classname", p->kernel_id),
                    Attr("name", p->problem_key), ">\n");
    if (!p->failure.empty()) {
      absl::StrAppend(&out, "      <failure", Attr("type", "regression"),
                      Attr("message", p->failure), "/>\n");
    }
    const std::string said =
        p->side != PairSummary::Side::kBoth
            ? p->StatusText("")
            : absl::StrCat(CaseStatusName(p->base->status), " -> ", CaseStatusName(p->next->status),
                           ", median ", FormatValue(p->base_median), " -> ",
                           FormatValue(p->next_median), " ms (",
                           text::SignedPct(p->delta_pct.value), "), ", VerdictName(p->verdict),
                           p->verdict_reason.empty() ? "" : ": " + p->verdict_reason);
    absl::StrAppend(&out, "      <system-out>", XmlEscape(said), "</system-out>\n",
                    "    </testcase>\n");
  }
  out += WarningsOut(s.warnings);
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace flashscope::reports
