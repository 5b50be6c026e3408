#include "reports/render_junit.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/render_util.h"
#include "reports/text_safety.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

std::string Attr(const char* name, const std::string& value) {
  return absl::StrCat(" ", name, "=\"", XmlEscape(value), "\"");
}

// Warnings as <property> lines and a <system-out>, so that a CI page shows them.
std::string Properties(const std::vector<std::string>& warnings, const std::string& env) {
  std::string out = "    <properties>\n";
  absl::StrAppend(&out, "      <property", Attr("name", "environment"), Attr("value", env), "/>\n");
  for (const std::string& w : warnings) {
    absl::StrAppend(&out, "      <property", Attr("name", "warning"), Attr("value", w), "/>\n");
  }
  out += "    </properties>\n";
  return out;
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
  for (size_t i = 0; i < s.size();) {
    const text::Utf8Step step = text::DecodeUtf8(s, i);
    const char32_t cp = step.code_point;
    if (!step.valid || !XmlAllows(cp)) {
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
    } else if (cp == '\n' || cp == '\r' || cp == '\t') {
      // As references, so that an attribute keeps them (a parser turns raw ones into spaces).
      absl::StrAppend(&out, "&#", static_cast<int>(cp), ";");
    } else {
      out.append(s, i, step.length);
    }
    i += step.length;
  }
  return out;
}

std::string RenderReportJunit(const Report& r) {
  const render::StatusCounts n = render::CountStatuses(r);
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
  const std::vector<std::string> warnings = render::ReportWarnings(r);
  out += Properties(warnings, render::EnvironmentLine(r.environment));
  for (const CaseResult& c : r.cases) {
    absl::StrAppend(&out, "    <testcase", Attr("classname", c.kernel_id),
                    Attr("name", c.problem_key), absl::StrFormat(" time=\"%.3f\"", c.wall_s));
    const std::string reason = render::CaseReason(c);
    std::string body;
    switch (c.status) {
      case CaseStatus::kPassed:
        if (c.timing) {
          body = absl::StrCat(
              "      <system-out>",
              XmlEscape(absl::StrCat(
                  "median ", text::Ms(c.timing->median_ms), " ms",
                  c.throughput ? absl::StrCat(", ", text::Fixed(c.throughput->tflops, 2), " TFLOPS")
                               : "")),
              "</system-out>\n");
        }
        break;
      case CaseStatus::kFailed:
        body =
            absl::StrCat("      <failure", Attr("type", "verification"),
                         Attr("message", reason.empty() ? "verification failed" : reason), "/>\n");
        break;
      case CaseStatus::kSkipped:
        body = absl::StrCat("      <skipped", Attr("message", reason), "/>\n");
        break;
      case CaseStatus::kError:
      case CaseStatus::kTimeout:
        body = absl::StrCat("      <error", Attr("type", CaseStatusName(c.status)),
                            Attr("message", reason), "/>\n");
        break;
    }
    if (body.empty()) {
      out += "/>\n";
    } else {
      absl::StrAppend(&out, ">\n", body, "    </testcase>\n");
    }
  }
  if (!warnings.empty()) {
    absl::StrAppend(&out, "    <system-out>", XmlEscape(absl::StrJoin(warnings, "\n")),
                    "</system-out>\n");
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

std::string RenderComparisonJunit(const Comparison& c, const GateResult* gate) {
  const auto failures = render::FailuresByKey(gate);
  struct Row {
    std::string classname, name, failure, out;
  };
  std::vector<Row> rows;
  for (const CaseDelta& d : c.paired) {
    Row row{d.kernel_id, d.problem_key, "", ""};
    row.out =
        absl::StrCat(CaseStatusName(d.base->status), " -> ", CaseStatusName(d.next->status),
                     ", median ", text::Ms(d.base_median_ms), " -> ", text::Ms(d.next_median_ms),
                     " ms (", text::SignedPct(d.delta_pct), "), ", VerdictName(d.verdict),
                     d.verdict_reason.empty() ? "" : absl::StrCat(": ", d.verdict_reason));
    if (gate != nullptr) {
      auto it = failures.find(d.key);
      if (it != failures.end()) {
        std::vector<std::string> parts;
        for (const GateFailure* f : it->second)
          parts.push_back(absl::StrCat(f->rule, ": ", f->message));
        row.failure = absl::StrJoin(parts, "; ");
      }
    } else if (d.IsCorrectnessRegression()) {
      row.failure = absl::StrCat("correctness: ", CaseStatusName(d.base->status), " -> ",
                                 CaseStatusName(d.next->status));
    } else if (d.verdict == Verdict::kSlower) {
      row.failure = absl::StrCat("slower: ", d.verdict_reason);
    }
    rows.push_back(std::move(row));
  }
  auto one_side = [&](const std::vector<const CaseResult*>& cases, const char* side) {
    for (const CaseResult* x : cases) {
      Row row{x->kernel_id, x->problem_key, "",
              absl::StrCat("only in ", side, " (", CaseStatusName(x->status), ")")};
      auto it = failures.find(x->Key());
      if (it != failures.end()) {
        std::vector<std::string> parts;
        for (const GateFailure* f : it->second)
          parts.push_back(absl::StrCat(f->rule, ": ", f->message));
        row.failure = absl::StrJoin(parts, "; ");
      }
      rows.push_back(std::move(row));
    }
  };
  one_side(c.only_base, "base");
  one_side(c.only_next, "next");
  int n_failed = 0;
  for (const Row& row : rows) n_failed += !row.failure.empty();
  const std::string suite = gate ? "flashscope.gate" : "flashscope.compare";
  const std::string counts = absl::StrFormat(
      " tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\"", rows.size(), n_failed);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  absl::StrAppend(&out, "<testsuites", Attr("name", suite), counts, ">\n");
  absl::StrAppend(&out, "  <testsuite", Attr("name", suite), counts, ">\n");
  std::vector<std::string> warnings = render::ComparisonWarnings(c);
  out += Properties(warnings, absl::StrFormat("alpha %g, min effect %g%%", c.options.alpha,
                                              c.options.min_effect * 100));
  for (const Row& row : rows) {
    absl::StrAppend(&out, "    <testcase", Attr("classname", row.classname), Attr("name", row.name),
                    ">\n");
    if (!row.failure.empty()) {
      absl::StrAppend(&out, "      <failure", Attr("type", "regression"),
                      Attr("message", row.failure), "/>\n");
    }
    absl::StrAppend(&out, "      <system-out>", XmlEscape(row.out), "</system-out>\n",
                    "    </testcase>\n");
  }
  if (!warnings.empty()) {
    absl::StrAppend(&out, "    <system-out>", XmlEscape(absl::StrJoin(warnings, "\n")),
                    "</system-out>\n");
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace flashscope::reports
