#include "history/history_render.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "render/render_csv.h"
#include "render/render_markdown.h"
#include "reports/json_fields.h"
#include "reports/text_safety.h"
#include "reports/text_table.h"

namespace flashscope::history {
namespace {

using reports::CsvField;
using reports::MarkdownCell;
using reports::text::SignedPct;

// A word for the shell, single-quoted: nothing inside is expanded.
std::string ShellWord(const std::string& s) {
  return absl::StrCat("'", absl::StrReplaceAll(s, {{"'", "'\\''"}}), "'");
}

// Comment lines of the script: the text may hold anything, so one line, no control characters.
std::string CommentText(const std::string& s) { return reports::text::TerminalSafe(s); }

const HistoryChange* ChangeAt(const SeriesChanges& s, size_t point) {
  for (const HistoryChange& h : s.changes) {
    if (h.point_index == static_cast<int>(point)) return &h;
  }
  return nullptr;
}

int CountRegressions(const std::vector<SeriesChanges>& all,
                     const std::vector<std::string>& revisions, int since_index) {
  int n = 0;
  for (const SeriesChanges& s : all) {
    for (const HistoryChange* h : ChangesSince(s, revisions, since_index)) n += h->regression;
  }
  return n;
}

}  // namespace

std::vector<const HistoryChange*> ChangesSince(const SeriesChanges& s,
                                               const std::vector<std::string>& revisions,
                                               int since_index) {
  std::vector<const HistoryChange*> out;
  for (const HistoryChange& h : s.changes) {
    // "After --since": the first revision after the change is later than REV.
    if (since_index < 0 || RevisionIndex(revisions, h.revision) > since_index) out.push_back(&h);
  }
  return out;
}

nlohmann::json ChangesJson(const std::vector<SeriesChanges>& all,
                           const std::vector<std::string>& revisions, int since_index,
                           const std::string& database, const std::string& since) {
  using reports::jsonio::Number;
  nlohmann::json changes = nlohmann::json::array();
  std::string method;
  for (const SeriesChanges& s : all) {
    for (const HistoryChange* h : ChangesSince(s, revisions, since_index)) {
      method = h->method;
      changes.push_back({{"kernel_id", h->key.kernel_id},
                         {"problem_key", h->key.problem_key},
                         {"gpu", h->key.gpu},
                         {"testbed", h->key.testbed},
                         {"previous_revision", h->previous_revision},
                         {"revision", h->revision},
                         {"change", Number(h->point.change)},
                         {"p_value", Number(h->point.p_value)},
                         {"test", h->point.test},
                         {"method", h->method},
                         {"before_median_ms", Number(h->point.before_median_ms)},
                         {"after_median_ms", Number(h->point.after_median_ms)},
                         {"regression", h->regression},
                         {"allowance", Number(h->allowance)},
                         {"explanation", h->explanation},
                         {"before_report", h->before_report},
                         {"after_report", h->after_report}});
    }
  }
  const int regressions = CountRegressions(all, revisions, since_index);
  return {{"schema", kHistoryChangesSchemaName},
          {"schema_version", kHistoryChangesSchemaVersion},
          {"database", database},
          {"since", since},
          {"series", all.size()},
          {"regressions", regressions},
          {"exit_code", regressions > 0 ? 1 : 0},
          {"changes", changes}};
}

std::string RenderChangesText(const std::vector<SeriesChanges>& all,
                              const std::vector<std::string>& revisions, int since_index) {
  using reports::text::TerminalSafe;
  std::string out;
  int count = 0;
  for (const SeriesChanges& s : all) {
    for (const HistoryChange* h : ChangesSince(s, revisions, since_index)) {
      ++count;
      const char* mark = h->regression ? "SLOWER" : h->point.change > 0 ? "slower" : "faster";
      absl::StrAppend(
          &out,
          absl::StrFormat("%-6s %s  %s -> %s  %s  p %.2g\n", mark, TerminalSafe(h->key.Name()),
                          TerminalSafe(h->previous_revision), TerminalSafe(h->revision),
                          SignedPct(h->point.change * 100), h->point.p_value));
      if (!h->explanation.empty()) {
        absl::StrAppend(&out, "       why: ", TerminalSafe(h->explanation), "\n");
      }
    }
  }
  const int regressions = CountRegressions(all, revisions, since_index);
  absl::StrAppend(&out, absl::StrFormat("%zu series, %d change points, %d slowdowns beyond the "
                                        "allowance (SLOWER)\n",
                                        all.size(), count, regressions));
  return out;
}

std::string RenderHistoryMarkdown(const std::vector<SeriesChanges>& all,
                                  const std::string& database) {
  std::string out = absl::StrCat("# Performance history\n\nDatabase: ", MarkdownCell(database),
                                 ". Medians per revision; **◆** marks the first revision after a "
                                 "change point.\n\n");
  if (all.empty()) return out + "No series match.\n";
  for (const SeriesChanges& s : all) {
    absl::StrAppend(&out, "## ", MarkdownCell(s.series.key.Name()), "\n\n",
                    "| revision | median ms | runs | status | change point |\n",
                    "|---|---:|---:|---|---|\n");
    for (size_t i = 0; i < s.series.points.size(); ++i) {
      const RevisionPoint& p = s.series.points[i];
      const HistoryChange* h = ChangeAt(s, i);
      std::string mark;
      if (h != nullptr) {
        mark = absl::StrCat("**◆ ", SignedPct(h->point.change * 100), "** (p ",
                            absl::StrFormat("%.2g", h->point.p_value), ")",
                            h->regression ? " slowdown beyond the allowance" : "", "<br>",
                            MarkdownCell(h->explanation));
      }
      absl::StrAppend(&out, "| ", MarkdownCell(p.revision), " | ",
                      p.Timed() ? reports::text::Ms(p.median_ms) : "-", " | ",
                      p.report_hashes.size(), " | ", MarkdownCell(p.status), " | ", mark, " |\n");
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

std::string RenderHistoryCsv(const std::vector<SeriesChanges>& all) {
  std::string out =
      "kernel_id,problem_key,gpu,testbed,revision,seq,status,runs,samples,median_ms,change_point,"
      "change,p_value\n";
  for (const SeriesChanges& s : all) {
    const SeriesKey& k = s.series.key;
    for (size_t i = 0; i < s.series.points.size(); ++i) {
      const RevisionPoint& p = s.series.points[i];
      const HistoryChange* h = ChangeAt(s, i);
      absl::StrAppend(&out, CsvField(k.kernel_id), ",", CsvField(k.problem_key), ",",
                      CsvField(k.gpu), ",", CsvField(k.testbed), ",", CsvField(p.revision), ",",
                      p.seq, ",", CsvField(p.status), ",", p.report_hashes.size(), ",",
                      p.samples_ms.size(), ",",
                      p.Timed() ? absl::StrFormat("%.6g", p.median_ms) : "", ",", h ? 1 : 0, ",",
                      h ? absl::StrFormat("%.6g", h->point.change) : "", ",",
                      h ? absl::StrFormat("%.3g", h->point.p_value) : "", "\n");
    }
  }
  return out;
}

std::string BisectScript(const HistoryChange& h, const BisectOptions& o) {
  return absl::StrCat(
      "#!/usr/bin/env bash\n", "# flashscope history bisect-range: ", CommentText(h.key.Name()),
      "\n", "# ", SignedPct(h.point.change * 100), " between ", CommentText(h.previous_revision),
      " (good) and ", CommentText(h.revision), " (bad), p ",
      absl::StrFormat("%.2g", h.point.p_value), "\n",
      "# why (correlation): ", CommentText(h.explanation), "\n",
      "# Run it in a checkout of the kernel's repository whose commits the revisions name\n"
      "# (`history add --revision $(git rev-parse HEAD)`, docs/ci.md). Each step builds the\n"
      "# commit git checked out and runs `flashscope ab` against the good build: exit 0 good,\n"
      "# 1 bad, 125 skip (does not build / cannot load), anything else stops the bisection.\n"
      "set -euo pipefail\n",
      "good=", ShellWord(h.previous_revision), " bad=", ShellWord(h.revision), "\n",
      "build=", ShellWord(o.build), "\n", "plugin=", ShellWord(o.plugin), "\n",
      "suite=", ShellWord(o.suite), "\n", "kernel=", ShellWord(h.key.kernel_id), "\n",
      "flashscope=", ShellWord(o.flashscope), "\n",
      "allowance=", absl::StrFormat("%g", h.allowance), "\n", "work=$(mktemp -d)\n",
      "export build plugin suite kernel flashscope allowance work\n",
      "# The known-good build, outside the tree: every step compares against the same file.\n",
      "git checkout --quiet \"$good\"\n", "bash -c \"$build\"\n",
      "cp \"$plugin\" \"$work/good-plugin\"\n", "cat >\"$work/step.sh\" <<'EOF'\n",
      "#!/usr/bin/env bash\n", "commit=$(git rev-parse --short HEAD)\n",
      "bash -c \"$build\" >\"$work/$commit.build.log\" 2>&1 || exit 125\n",
      "[[ $plugin == /* ]] || plugin=$PWD/$plugin\n",
      "\"$flashscope\" ab \"$suite\" --kernels \"$kernel\" --base \"$work/good-plugin\" "
      "--new \"$plugin\" \\\n",
      "  --allowed_slowdown \"$allowance\" --out-dir \"$work/$commit\" "
      "--json \"$work/$commit.verdict.json\"\n",
      "rc=$?\n", "case $rc in 0 | 1 | 125) exit $rc ;; *) exit 255 ;; esac\n", "EOF\n",
      "chmod +x \"$work/step.sh\"\n", "git bisect start ", ShellWord(h.revision), " ",
      ShellWord(h.previous_revision), "\n", "git bisect run \"$work/step.sh\"\n",
      "git bisect reset\n",
      "echo \"bisect-range: each step's reports, verdict and build log are in $work\"\n");
}

}  // namespace flashscope::history
