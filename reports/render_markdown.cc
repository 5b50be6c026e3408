#include "reports/render_markdown.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/render_util.h"
#include "reports/text_safety.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

void AppendWarnings(std::string* out, const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) absl::StrAppend(out, "> **", MarkdownCell(w), "**\n\n");
}

std::string PValue(double p) { return std::isnan(p) ? "-" : absl::StrFormat("%.2g", p); }

void AppendPairRow(std::string* out, const CaseDelta& d,
                   const std::map<std::string, std::vector<const GateFailure*>>& failures) {
  std::string status = d.StatusChanged() ? absl::StrCat(CaseStatusName(d.base->status), " → ",
                                                        CaseStatusName(d.next->status))
                                         : CaseStatusName(d.next->status);
  if (d.IsCorrectnessRegression()) status = absl::StrCat("**", status, "**");
  std::string gate;
  auto it = failures.find(d.key);
  if (it != failures.end()) {
    for (const GateFailure* f : it->second)
      absl::StrAppend(&gate, gate.empty() ? "" : "; ", "❌ ", f->rule);
  }
  absl::StrAppend(out, "| ", MarkdownCode(d.kernel_id), " | ", MarkdownCell(d.problem_key), " | ",
                  status, " | ", text::Ms(d.base_median_ms), " | ", text::Ms(d.next_median_ms),
                  " | ", text::SignedPct(d.delta_pct), " | ", PValue(d.PValue()), " | ",
                  VerdictName(d.verdict), " | ", gate, " |\n");
}

constexpr char kPairHeader[] =
    "| kernel | problem | status | base ms | next ms | delta | p | verdict | gate |\n"
    "|---|---|---|--:|--:|--:|--:|---|---|\n";

}  // namespace

namespace {

// Calls `emit(code_point, bytes)` for each character of `s`, with line breaks as spaces and
// controls, bidi overrides and bytes that are not UTF-8 as U+FFFD.
template <typename Emit>
void ForEachShownCharacter(const std::string& s, Emit emit) {
  for (size_t i = 0; i < s.size();) {
    const text::Utf8Step step = text::DecodeUtf8(s, i);
    const char32_t cp = step.code_point;
    if (cp == '\n' || cp == '\r' || cp == '\t') {
      emit(U' ', absl::string_view(" "));
    } else if (!step.valid || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
               (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) {
      emit(U'\xfffd', absl::string_view(text::kReplacementCharacter));
    } else {
      emit(cp, absl::string_view(s.data() + i, step.length));
    }
    i += step.length;
  }
}

}  // namespace

std::string MarkdownCell(const std::string& s) {
  std::string out;
  ForEachShownCharacter(s, [&](char32_t cp, absl::string_view bytes) {
    if (cp == '<') {
      out += "&lt;";
    } else if (cp == '>') {
      out += "&gt;";
    } else if (cp == '&') {
      out += "&amp;";
    } else if (cp < 0x80 && std::strchr("\\`*_[]!~|@#", static_cast<char>(cp)) != nullptr) {
      // Emphasis, code, links and images, strikethrough, table cells, mentions and references.
      absl::StrAppend(&out, "\\", bytes);
    } else {
      absl::StrAppend(&out, bytes);
    }
  });
  return out;
}

std::string MarkdownCode(const std::string& s) {
  std::string body;
  size_t run = 0, longest = 0;
  ForEachShownCharacter(s, [&](char32_t cp, absl::string_view bytes) {
    run = cp == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    // Inside code only '|' needs escaping: GFM splits table cells before it parses code.
    absl::StrAppend(&body, cp == '|' ? "\\|" : bytes);
  });
  const std::string fence(longest + 1, '`');
  // A code span that starts or ends with a backtick needs a space inside its fence.
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return absl::StrCat(fence, pad ? " " : "", body, pad ? " " : "", fence);
}

std::string RenderReportMarkdown(const Report& r) {
  std::string out = absl::StrCat("## flashscope report: ", MarkdownCell(r.suite.name), "\n\n");
  AppendWarnings(&out, render::ReportWarnings(r));
  const render::StatusCounts n = render::CountStatuses(r);
  absl::StrAppend(&out, MarkdownCell(render::EnvironmentLine(r.environment)), "\n\n", "**",
                  n.total(), " cases**: ", n.passed, " passed, ", n.failed, " failed, ", n.error,
                  " error, ", n.timeout, " timeout, ", n.skipped, " skipped\n\n");
  if (r.cases.empty()) return out;
  absl::StrAppend(&out,
                  "| kernel | problem | status | median ms | TFLOPS | % peak | max err | "
                  "tensor % | reason |\n|---|---|---|--:|--:|--:|--:|--:|---|\n");
  for (const CaseResult& c : r.cases) {
    const bool bad = c.status == CaseStatus::kFailed || c.status == CaseStatus::kError ||
                     c.status == CaseStatus::kTimeout;
    std::string status = CaseStatusName(c.status);
    if (bad) status = absl::StrCat("**", status, "**");
    absl::StrAppend(
        &out, "| ", MarkdownCode(c.kernel_id), " | ", MarkdownCell(c.problem_key), " | ", status,
        " | ", text::Ms(render::MedianMs(c)), " | ",
        c.throughput ? text::Fixed(c.throughput->tflops, 1) : "-", " | ",
        c.throughput ? text::Fixed(c.throughput->pct_peak_flops, 1) : "-", " | ",
        c.verification && c.verification->ran ? text::Sci(c.verification->stats.max_abs) : "-",
        " | ", text::Fixed(render::TensorPct(c), 1), " | ", MarkdownCell(render::CaseReason(c)),
        " |\n");
  }
  return out;
}

std::string RenderComparisonMarkdown(const Comparison& c, const GateResult* gate) {
  std::string out = gate ? "## flashscope gate\n\n" : "## flashscope compare\n\n";
  AppendWarnings(&out, render::ComparisonWarnings(c));
  if (gate != nullptr) {
    if (gate->passed) {
      absl::StrAppend(&out, "✅ **GATE PASSED**: ", gate->cases_gated, " cases gated");
    } else {
      absl::StrAppend(&out, "❌ **GATE FAILED**: ", gate->failures.size(), " failures in ",
                      gate->cases_gated, " cases gated");
    }
    absl::StrAppend(
        &out, gate->ignored.empty() ? "" : absl::StrCat(", ", gate->ignored.size(), " ignored"),
        " (policy: ", MarkdownCode(gate->policy_source), ")\n\n");
    for (const GateFailure& f : gate->failures) {
      absl::StrAppend(&out, "- **", f.rule, "** ", MarkdownCode(f.key), ": ",
                      MarkdownCell(f.message), "\n");
    }
    if (!gate->failures.empty()) out += "\n";
  }
  absl::StrAppend(
      &out,
      absl::StrFormat("Verdicts (Mann-Whitney U on raw samples, alpha %g, minimum effect %g%%): "
                      "**%d slower**, %d faster, %d same, %d ambiguous, %d not timed; **%d "
                      "correctness regressions**; %d only in base, %d only in next.\n\n",
                      c.options.alpha, c.options.min_effect * 100, c.CountVerdict(Verdict::kSlower),
                      c.CountVerdict(Verdict::kFaster), c.CountVerdict(Verdict::kSame),
                      c.CountVerdict(Verdict::kAmbiguous), c.CountVerdict(Verdict::kNotTimed),
                      c.CorrectnessRegressions(), c.only_base.size(), c.only_next.size()));
  const auto failures = render::FailuresByKey(gate);
  std::string changed;
  int n_changed = 0;
  for (const CaseDelta& d : c.paired) {
    const bool notable = d.StatusChanged() || d.verdict == Verdict::kSlower ||
                         d.verdict == Verdict::kFaster || d.verdict == Verdict::kAmbiguous ||
                         failures.count(d.key) > 0;
    if (!notable) continue;
    AppendPairRow(&changed, d, failures);
    ++n_changed;
  }
  if (n_changed > 0)
    absl::StrAppend(&out, "### Changes (", n_changed, ")\n\n", kPairHeader, changed, "\n");
  auto one_side = [&](const char* title, const std::vector<const CaseResult*>& cases) {
    if (cases.empty()) return;
    absl::StrAppend(&out, "### ", title, " (", cases.size(), ")\n\n");
    for (const CaseResult* x : cases) {
      absl::StrAppend(&out, "- ", MarkdownCode(x->Key()), " (", CaseStatusName(x->status), ")\n");
    }
    out += "\n";
  };
  one_side("Only in base", c.only_base);
  one_side("Only in next", c.only_next);
  if (!c.paired.empty()) {
    absl::StrAppend(&out, "<details><summary>All ", c.paired.size(), " paired cases</summary>\n\n",
                    kPairHeader);
    for (const CaseDelta& d : c.paired) AppendPairRow(&out, d, failures);
    out += "\n</details>\n";
  }
  return out;
}

}  // namespace flashscope::reports
