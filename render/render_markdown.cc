#include "render/render_markdown.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analysis/comparison_summary.h"
#include "analysis/summary.h"
#include "reports/text_safety.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

// Room kept at the end of a section for the "N more ... not shown" note and what must follow.
constexpr size_t kNoteRoom = 400;

// Cells are clipped: one string of a hostile or runaway report must not fill a comment alone.
std::string Clip(const std::string& s) {
  constexpr size_t kMaxCell = 300;
  return s.size() <= kMaxCell ? s : s.substr(0, kMaxCell) + "...";
}

void AppendWarnings(std::string* out, const std::vector<Warning>& warnings) {
  for (const Warning& w : warnings) {
    absl::StrAppend(out, "> **", MarkdownCell(Clip(w.text)), "**\n\n");
  }
}

std::string PairRow(const PairSummary& p) {
  std::string status = p.StatusText(" → ");
  if (p.correctness_regression) status = absl::StrCat("**", status, "**");
  std::string gate;
  for (const GateFailure* f : p.gate_failures) {
    absl::StrAppend(&gate, gate.empty() ? "" : "; ", "❌ ", f->rule);
  }
  return absl::StrCat("| ", MarkdownCode(Clip(p.kernel_id)), " | ",
                      MarkdownCell(Clip(p.problem_key)), " | ", status, " | ",
                      FormatValue(p.base_median), " | ", FormatValue(p.next_median), " | ",
                      text::SignedPct(p.delta_pct.value), " | ", FormatValue(p.p_value), " | ",
                      VerdictName(p.verdict), " | ", gate, " |\n");
}

constexpr char kPairHeader[] =
    "| kernel | problem | status | base ms | next ms | delta | p | verdict | gate |\n"
    "|---|---|---|--:|--:|--:|--:|---|---|\n";

}  // namespace

namespace {

// Calls `emit(code_point, bytes)` for each character of `s`, with line breaks and tabs as spaces
// and the other unsafe characters (text::IsUnsafeCharacter) and bytes that are not UTF-8 as U+FFFD.
template <typename Emit>
void ForEachShownCharacter(const std::string& s, Emit emit) {
  text::ForEachStep(s, [&](const text::Utf8Step& step, absl::string_view bytes) {
    const char32_t cp = step.code_point;
    if (cp == '\n' || cp == '\r' || cp == '\t') {
      emit(U' ', absl::string_view(" "));
    } else if (!step.valid || text::IsUnsafeCharacter(cp)) {
      emit(U'\xfffd', absl::string_view(text::kReplacementCharacter));
    } else {
      emit(cp, bytes);
    }
  });
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

namespace {

std::string ReportRow(const CaseSummary& c, const std::vector<size_t>& columns) {
  std::string status = CaseStatusName(c.status);
  if (c.bad) status = absl::StrCat("**", status, "**");
  std::string row = absl::StrCat("| ", MarkdownCode(Clip(c.kernel_id)), " | ",
                                 MarkdownCell(Clip(c.problem_key)), " | ", status, " | ");
  for (size_t k : columns) absl::StrAppend(&row, FormatValue(c.values[k]), " | ");
  absl::StrAppend(&row, MarkdownCell(Clip(c.reason)), " |\n");
  return row;
}

// Appends `rows` to *out while the text stays `reserve` characters under kMarkdownLimit, so that
// what must follow still fits; returns how many rows were left out.
size_t AppendWhileFits(std::string* out, const std::vector<std::string>& rows, size_t reserve) {
  for (size_t i = 0; i < rows.size(); ++i) {
    if (out->size() + rows[i].size() + reserve >= kMarkdownLimit) return rows.size() - i;
    *out += rows[i];
  }
  return 0;
}

std::string NotShown(size_t n, const char* what) {
  if (n == 0) return "";
  return absl::StrCat("\n_", n, " more ", what,
                      " not shown (a pull-request comment holds 65,536 characters; the html and "
                      "csv formats hold them all)._\n");
}

}  // namespace

std::string RenderReportMarkdown(const Report& r) {
  const ReportSummary summary = SummarizeReport(r);
  std::string out =
      absl::StrCat("## flashscope report: ", MarkdownCell(Clip(r.suite.name)), "\n\n");
  AppendWarnings(&out, summary.warnings);
  const StatusCounts& n = summary.counts;
  absl::StrAppend(&out, MarkdownCell(Clip(summary.environment_line)), "\n\n", "**", n.total(),
                  " cases**: ", n.passed, " passed, ", n.failed, " failed, ", n.error, " error, ",
                  n.timeout, " timeout, ", n.skipped, " skipped\n\n");
  if (r.cases.empty()) return out;
  const std::vector<size_t> columns = HeadlineColumns(summary);
  std::string header = "| kernel | problem | status | ";
  std::string rule = "|---|---|---|";
  for (size_t k : columns) {
    absl::StrAppend(&header, MarkdownCell(summary.columns[k].label), " | ");
    rule += "--:|";
  }
  absl::StrAppend(&out, header, "reason |\n", rule, "---|\n");
  std::vector<const CaseSummary*> order;
  size_t total = out.size();
  for (const CaseSummary& c : summary.cases) {
    order.push_back(&c);
    total += ReportRow(c, columns).size();
  }
  if (total + kNoteRoom >= kMarkdownLimit) {
    // Not everything fits: the cases that failed come first, so that they are never left out.
    std::stable_partition(order.begin(), order.end(), [](const CaseSummary* c) { return c->bad; });
  }
  std::vector<std::string> rows;
  for (const CaseSummary* c : order) rows.push_back(ReportRow(*c, columns));
  out += NotShown(AppendWhileFits(&out, rows, kNoteRoom), "cases");
  return out;
}

std::string RenderComparisonMarkdown(const Comparison& c, const GateResult* gate) {
  const ComparisonSummary s = SummarizeComparison(c, gate);
  std::string out = gate ? "## flashscope gate\n\n" : "## flashscope compare\n\n";
  AppendWarnings(&out, s.warnings);
  if (gate != nullptr) {
    if (gate->passed) {
      absl::StrAppend(&out, "✅ **GATE PASSED**: ", gate->cases_gated, " cases gated");
    } else {
      absl::StrAppend(&out, "❌ **GATE FAILED**: ", gate->failures.size(), " failures in ",
                      gate->cases_gated, " cases gated");
    }
    absl::StrAppend(&out, MarkdownCell(GateNotes(*gate)),
                    " (policy: ", MarkdownCode(gate->policy_source), ")\n\n");
    std::vector<std::string> lines;
    for (const GateFailure& f : gate->failures) {
      lines.push_back(absl::StrCat("- **", f.rule, "** ", MarkdownCode(Clip(f.key)), ": ",
                                   MarkdownCell(Clip(f.message)), "\n"));
    }
    // Room stays for the counts and the notes below even when every case failed.
    out += NotShown(AppendWhileFits(&out, lines, 4 * kNoteRoom), "failures");
    if (!gate->failures.empty()) out += "\n";
  }
  absl::StrAppend(
      &out, "Verdicts (", s.method, "): ",
      absl::StrFormat("**%d slower**, %d faster, %d same, %d ambiguous, %d not timed; "
                      "**%d correctness regressions**; %d only in base, %d only in "
                      "next.\n\n",
                      s.counts.slower, s.counts.faster, s.counts.same, s.counts.ambiguous,
                      s.counts.not_timed, s.counts.correctness_regressions, s.only_base.size(),
                      s.only_next.size()));
  std::vector<std::string> changed;
  for (const PairSummary& p : s.pairs) {
    if (p.status_changed || p.tone != Tone::kNeutral) changed.push_back(PairRow(p));
  }
  if (!changed.empty()) {
    absl::StrAppend(&out, "### Changes (", changed.size(), ")\n\n", kPairHeader);
    out += NotShown(AppendWhileFits(&out, changed, 3 * kNoteRoom), "changed cases");
    out += "\n";
  }
  auto one_side = [&](const char* title, const std::vector<PairSummary>& cases) {
    if (cases.empty()) return;
    absl::StrAppend(&out, "### ", title, " (", cases.size(), ")\n\n");
    std::vector<std::string> lines;
    for (const PairSummary& x : cases) {
      const CaseResult* one = x.base != nullptr ? x.base : x.next;
      lines.push_back(
          absl::StrCat("- ", MarkdownCode(Clip(x.key)), " (", CaseStatusName(one->status), ")\n"));
    }
    out += NotShown(AppendWhileFits(&out, lines, 2 * kNoteRoom), "cases");
    out += "\n";
  };
  one_side("Only in base", s.only_base);
  one_side("Only in next", s.only_next);
  if (!s.pairs.empty()) {
    std::vector<std::string> all;
    for (const PairSummary& p : s.pairs) all.push_back(PairRow(p));
    absl::StrAppend(&out, "<details><summary>All ", s.pairs.size(), " paired cases</summary>\n\n",
                    kPairHeader);
    out += NotShown(AppendWhileFits(&out, all, kNoteRoom), "paired cases");
    out += "\n</details>\n";
  }
  return out;
}

}  // namespace flashscope::reports
