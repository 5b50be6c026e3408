#include "reports/render_terminal.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "reports/devices.h"
#include "reports/provenance.h"
#include "reports/render_util.h"
#include "reports/text_safety.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

using text::Cell;
using text::Paint;
using text::Table;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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

const MetricRecord* FindMetric(const CaseResult& c, absl::string_view hw_prefix,
                               std::initializer_list<absl::string_view> names) {
  if (!c.profile || !c.profile->available) return nullptr;
  for (const MetricRecord& m : c.profile->metrics) {
    if (absl::StartsWith(m.hw_name, hw_prefix)) return &m;
  }
  for (const MetricRecord& m : c.profile->metrics) {
    for (absl::string_view n : names) {
      if (m.name == n) return &m;
    }
  }
  return nullptr;
}

std::string Reason(const CaseResult& c) {
  if (c.status == CaseStatus::kFailed && c.reason.empty() && c.verification) {
    return c.verification->rule;
  }
  if (c.status == CaseStatus::kPassed) return "";
  return c.reason;
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

const MetricRecord* FindTensorPipeMetric(const CaseResult& c) {
  return FindMetric(c, "sm__pipe_tensor_op_hmma_cycles_active",
                    {"tensor_pipe_pct", "tensor_pipe", "tensor_pct"});
}

const MetricRecord* FindSharedMemoryMetric(const CaseResult& c) {
  return FindMetric(c, "l1tex__data_pipe_lsu_wavefronts_mem_shared",
                    {"shared_pct", "shared_wavefronts_pct", "smem_pct"});
}

std::string RenderCaseTable(const Report& report, bool color) {
  if (report.cases.empty()) return "(no cases)\n";
  Table t;
  using A = Table::Align;
  t.AddColumn("kernel", A::kLeft);
  t.AddColumn("problem", A::kLeft);
  t.AddColumn("status", A::kLeft);
  t.AddColumn("median ms", A::kRight);
  t.AddColumn("TFLOPS", A::kRight);
  t.AddColumn("% peak", A::kRight);
  t.AddColumn("max err", A::kRight);
  t.AddColumn("err/base", A::kRight);
  t.AddColumn("tensor %", A::kRight);
  t.AddColumn("shared %", A::kRight);
  t.AddColumn("reason", A::kLeft);
  for (const CaseResult& c : report.cases) {
    std::vector<Cell> row;
    row.push_back({c.kernel_id});
    row.push_back({c.problem_key});
    row.push_back({CaseStatusName(c.status), StatusColor(c.status)});
    row.push_back({text::Ms(c.timing ? c.timing->median_ms : kNaN)});
    row.push_back({text::Fixed(c.throughput ? c.throughput->tflops : kNaN, 1)});
    row.push_back({c.throughput ? text::Fixed(c.throughput->pct_peak_flops, 1) + "%" : "-"});
    const bool verified = c.verification && c.verification->ran;
    row.push_back({text::Sci(verified ? c.verification->stats.max_abs : kNaN)});
    // Without a baseline measurement (max_abs 0) the ratio means nothing: show "-".
    const bool has_ratio = verified && c.verification->baseline_max_abs > 0;
    row.push_back({text::Fixed(has_ratio ? c.verification->ratio_to_baseline : kNaN, 2),
                   verified && !c.verification->passed ? text::kRed : nullptr});
    const MetricRecord* tensor = FindTensorPipeMetric(c);
    const MetricRecord* shared = FindSharedMemoryMetric(c);
    row.push_back({text::Fixed(tensor ? tensor->value : kNaN, 1)});
    row.push_back({text::Fixed(shared ? shared->value : kNaN, 1)});
    row.push_back({Reason(c), c.status == CaseStatus::kPassed ? nullptr : text::kDim});
    t.AddRow(std::move(row));
  }
  // Metric columns appear only when something was profiled; the reason column only when needed.
  t.DropEmptyColumns();
  std::string out = t.Render(color);
  if (report.environment.synthetic) {
    out += Paint("SYNTHETIC report: made-up numbers for tests, not a GPU measurement\n",
                 text::kBoldRed, color);
  }
  return out;
}

std::string RenderSummary(const Report& report, bool color) {
  const Environment& e = report.environment;
  std::string out;
  if (e.synthetic) {
    out += Paint("SYNTHETIC report: made-up numbers for tests, not a GPU measurement\n",
                 text::kBoldRed, color);
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
  for (const PluginUse& u : PluginsOf(report)) {
    absl::StrAppend(&out, "kernels from ", text::TerminalSafe(DescribeProvenance(u.provenance)),
                    ": ", u.cases, u.cases == 1 ? " case\n" : " cases\n");
  }
  int counts[5] = {0, 0, 0, 0, 0};
  double case_wall = 0;
  for (const CaseResult& c : report.cases) {
    ++counts[static_cast<int>(c.status)];
    case_wall += c.wall_s;
  }
  std::vector<std::string> status_parts;
  for (CaseStatus s : {CaseStatus::kPassed, CaseStatus::kFailed, CaseStatus::kSkipped,
                       CaseStatus::kError, CaseStatus::kTimeout}) {
    int n = counts[static_cast<int>(s)];
    std::string part = absl::StrCat(n, " ", CaseStatusName(s));
    status_parts.push_back(n > 0 ? Paint(part, StatusColor(s), color) : part);
  }
  std::string wall;
  if (std::optional<absl::Duration> span = RunSpan(e); span) {
    wall = absl::StrFormat("wall %.1f s", absl::ToDoubleSeconds(*span));
  } else {
    wall = absl::StrFormat("wall %.1f s (sum of case times)", case_wall);
  }
  absl::StrAppend(
      &out, "suite ", report.suite.name.empty() ? "?" : text::TerminalSafe(report.suite.name), ": ",
      report.cases.size(), " cases: ", absl::StrJoin(status_parts, ", "), "; ", wall, "\n");
  if (!report.complete) {
    out += Paint(
        "INCOMPLETE: the run did not finish (report recovered from its journal or interrupted)\n",
        text::kYellow, color);
  }
  if (report.unreadable_journal_lines > 0) {
    out += Paint(render::UnreadableJournalLines(report) + "\n", text::kBoldRed, color);
  }
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
