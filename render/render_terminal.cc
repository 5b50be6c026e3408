#include "render/render_terminal.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "analysis/summary.h"
#include "reports/devices.h"
#include "reports/provenance.h"
#include "reports/text_safety.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

using text::Cell;
using text::Paint;
using text::Table;

const char* StatusColor(CaseStatus s) {
  switch (s) {
    case CaseStatus::kPassed:
      return text::kGreen;
    case CaseStatus::kFailed:
      return text::kBoldRed;
    case CaseStatus::kSkipped:
      return text::kYellow;
    case CaseStatus::kError:
    case CaseStatus::kTimeout:
      return text::kMagenta;
  }
  return nullptr;
}

std::optional<absl::Duration> RunSpan(const Environment& e) {
  absl::Time start, end;
  std::string err;
  if (e.started_at.empty() || e.finished_at.empty()) return std::nullopt;
  if (!absl::ParseTime(absl::RFC3339_full, e.started_at, &start, &err) ||
      !absl::ParseTime(absl::RFC3339_full, e.finished_at, &end, &err)) {
    return std::nullopt;
  }
  return end - start;
}

}  // namespace

std::string RenderCaseTable(const ReportSummary& summary, bool color) {
  if (summary.cases.empty()) return "(no cases)\n";
  Table t;
  using A = Table::Align;
  t.AddColumn("kernel", A::kLeft);
  t.AddColumn("problem", A::kLeft);
  t.AddColumn("status", A::kLeft);
  for (const ValueSpec& spec : summary.columns) {
    if (spec.headline) t.AddColumn(spec.label, A::kRight);
  }
  t.AddColumn("reason", A::kLeft);
  for (const CaseSummary& c : summary.cases) {
    std::vector<Cell> row = {
        {c.kernel_id}, {c.problem_key}, {CaseStatusName(c.status), StatusColor(c.status)}};
    for (const SummaryValue& v : c.values) {
      if (v.spec.headline) row.push_back({FormatValue(v), v.alarm ? text::kRed : nullptr});
    }
    const bool passed = c.status == CaseStatus::kPassed;
    row.push_back({passed ? "" : c.reason, passed ? nullptr : text::kDim});
    t.AddRow(std::move(row));
  }
  // Metric columns appear only when something was profiled; the reason column only when needed.
  t.DropEmptyColumns();
  std::string out = t.Render(color);
  // After a long table the synthetic warning is said again, where the eye ends.
  if (summary.source != nullptr && summary.source->environment.synthetic) {
    out += Paint(text::TerminalSafe(summary.warnings.front().text) + "\n", text::kBoldRed, color);
  }
  return out;
}

std::string RenderCaseTable(const Report& report, bool color) {
  return RenderCaseTable(SummarizeReport(report), color);
}

std::string RenderSummary(const Report& report, bool color) {
  return RenderSummary(SummarizeReport(report), color);
}

std::string RenderReportTerminal(const Report& report, bool color) {
  const ReportSummary summary = SummarizeReport(report);  // once for both parts
  return RenderSummary(summary, color) + "\n" + RenderCaseTable(summary, color);
}

std::string RenderSummary(const ReportSummary& summary, bool color) {
  const Report& report = *summary.source;
  const Environment& e = report.environment;
  std::string out;
  for (const Warning& w : summary.warnings) {
    out +=
        Paint(text::TerminalSafe(w.text) + "\n", w.severe ? text::kBoldRed : text::kYellow, color);
  }
  if (e.gpu_name.empty()) {
    out += "GPU: none recorded\n";
  } else {
    std::vector<std::string> parts;
    if (e.sm_count > 0) parts.push_back(absl::StrCat(e.sm_count, " SMs"));
    if (e.compute_capability > 0) parts.push_back(absl::StrCat("sm_", e.compute_capability));
    if (e.sm_clock_mhz > 0) parts.push_back(absl::StrCat(e.sm_clock_mhz, " MHz"));
    if (e.l2_bytes > 0) parts.push_back(absl::StrFormat("L2 %.0f MiB", e.l2_bytes / 1048576.0));
    if (e.memory_bytes > 0) {
      parts.push_back(absl::StrFormat("%.0f GiB", e.memory_bytes / 1073741824.0));
    }
    if (!e.driver_version.empty()) parts.push_back("driver " + e.driver_version);
    if (!e.cuda_runtime_version.empty()) parts.push_back("CUDA " + e.cuda_runtime_version);
    absl::StrAppend(&out, "GPU: ", Paint(text::TerminalSafe(e.gpu_name), text::kBold, color), " (",
                    text::TerminalSafe(absl::StrJoin(parts, ", ")), ")\n");
    absl::StrAppend(
        &out,
        absl::StrFormat("measured peaks: fp16 %.1f TFLOPS, bf16 %.1f TFLOPS, copy "
                        "%.0f GB/s\n",
                        e.peaks.matmul_fp16_tflops, e.peaks.matmul_bf16_tflops, e.peaks.copy_gbps));
  }
  if (!e.devices.empty()) {
    std::vector<std::string> devices;
    for (const DeviceRecord& d : e.devices) devices.push_back(DeviceText(d));
    absl::StrAppend(&out, "ran on ", e.devices.size(), e.devices.size() == 1 ? " GPU: " : " GPUs: ",
                    text::TerminalSafe(absl::StrJoin(devices, "; ")), "\n");
  }
  if (!e.git_revision.empty() || !e.started_at.empty()) {
    absl::StrAppend(
        &out,
        text::TerminalSafe(absl::StrCat("revision ", e.git_revision.empty() ? "?" : e.git_revision,
                                        ", started ", e.started_at.empty() ? "?" : e.started_at,
                                        e.host.empty() ? "" : " on " + e.host)),
        "\n");
  }
  for (const PluginUse& u : summary.plugins) {
    absl::StrAppend(&out, "kernels from ", text::TerminalSafe(DescribeProvenance(u.provenance)),
                    ": ", u.cases, u.cases == 1 ? " case\n" : " cases\n");
  }
  double case_wall = 0;
  for (const CaseResult& c : report.cases) case_wall += c.wall_s;
  std::vector<std::string> status_parts;
  for (CaseStatus s : {CaseStatus::kPassed, CaseStatus::kFailed, CaseStatus::kSkipped,
                       CaseStatus::kError, CaseStatus::kTimeout}) {
    const int n = summary.counts.Of(s);
    std::string part = absl::StrCat(n, " ", CaseStatusName(s));
    status_parts.push_back(n > 0 ? Paint(part, StatusColor(s), color) : part);
  }
  std::string wall;
  if (e.active_s > 0) {  // the sessions' sum: a resumed run's pause left out
    wall = absl::StrFormat("wall %.1f s", e.active_s);
  } else if (std::optional<absl::Duration> span = RunSpan(e); span) {
    wall = absl::StrFormat("wall %.1f s", absl::ToDoubleSeconds(*span));
  } else {
    wall = absl::StrFormat("wall %.1f s (sum of case times)", case_wall);
  }
  absl::StrAppend(
      &out, "suite ", report.suite.name.empty() ? "?" : text::TerminalSafe(report.suite.name), ": ",
      report.cases.size(), " cases: ", absl::StrJoin(status_parts, ", "), "; ", wall, "\n");
  return out;
}

bool StdoutIsTty() { return ::isatty(STDOUT_FILENO) == 1; }

bool UseColorByDefault() {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::strcmp(term, "dumb") == 0) return false;
  return StdoutIsTty();
}

}  // namespace flashscope::reports
