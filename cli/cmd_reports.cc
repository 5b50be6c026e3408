// `show` and `metrics`: commands that read reports and catalogues; they need no GPU.
#include <fnmatch.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/output.h"
#include "cli/worker_command.h"
#include "render/render_terminal.h"
#include "reports/report_json.h"

namespace flashscope::cli {
namespace {

// --status LIST and --kernels GLOBS of `show`: which cases the table keeps.
struct CaseFilter {
  std::vector<reports::CaseStatus> statuses;  // empty: any
  std::vector<std::string> globs;             // empty: any

  bool Keeps(const reports::CaseResult& c) const {
    bool status_ok = statuses.empty();
    for (reports::CaseStatus s : statuses) status_ok = status_ok || c.status == s;
    bool kernel_ok = globs.empty();
    for (const std::string& g : globs) {
      kernel_ok = kernel_ok || fnmatch(g.c_str(), c.kernel_id.c_str(), 0) == 0;
    }
    return status_ok && kernel_ok;
  }
};

// Returns "" or what is wrong with --status.
std::string ReadFilter(const Args& a, CaseFilter* f) {
  const std::vector<std::string> names = {"passed", "failed", "skipped", "error", "timeout"};
  for (absl::string_view part : absl::StrSplit(a.String("status"), ',', absl::SkipEmpty())) {
    std::optional<reports::CaseStatus> s = reports::ParseCaseStatus(std::string(part));
    if (!s) {
      std::string hint = DidYouMean(std::string(part), names);
      return absl::StrCat("--status: unknown status '", part,
                          "' (statuses: ", absl::StrJoin(names, ", "), ")",
                          hint.empty() ? "" : absl::StrCat("; did you mean ", hint, "?"));
    }
    f->statuses.push_back(*s);
  }
  for (absl::string_view g : absl::StrSplit(a.String("kernels"), ',', absl::SkipEmpty())) {
    f->globs.emplace_back(g);
  }
  return "";
}

int Show(const Args& a) {
  CaseFilter filter;
  if (std::string e = ReadFilter(a, &filter); !e.empty()) {
    PrintError("show", e);
    return 2;
  }
  auto report = reports::ReadReportFile(a.positional()[0]);
  if (!report.ok()) {
    PrintError("show", report.status().message());
    return 2;
  }
  const bool color = UseColor(a);
  // One summary model: its counts are the whole report's, its table rows what the filter keeps.
  reports::ReportSummary summary = reports::SummarizeReport(*report);
  std::string text = reports::RenderSummary(summary, color) + "\n";
  const size_t total = summary.cases.size();
  std::vector<reports::CaseSummary> kept;
  for (reports::CaseSummary& c : summary.cases) {
    if (filter.Keeps(*c.source)) kept.push_back(std::move(c));
  }
  summary.cases = std::move(kept);
  const bool filtered = !filter.statuses.empty() || !filter.globs.empty();
  if (filtered && summary.cases.empty()) {
    absl::StrAppend(&text, "no case of ", total, " matches the filter\n");
  } else {
    text += reports::RenderCaseTable(summary, color);
  }
  if (filtered && !summary.cases.empty()) {
    absl::StrAppend(&text, "(", summary.cases.size(), " of ", total, " cases shown)\n");
  }
  Print(text);
  return 0;
}

// The catalogue is the profiler's: a worker prints it (this process links no profiler).
int Metrics(const Args& a) {
  suites::protocol::WorkerRequest request;
  request.command = suites::protocol::Command::kMetrics;
  request.cc = a.Int("cc");
  return RunWorkerCommand("metrics", request);
}

std::string ComputeCapabilityProblem(double v) {
  return v == 0 || (v >= 50 && v < 200) ? "" : "not a compute capability x10 (e.g. 80, 90)";
}

}  // namespace

Command ShowCommand() {
  Command c("show", "REPORT", "summary and case table of a report (or of a run's .journal.jsonl)",
            1, 1, Show);
  c.details = absl::StrCat("REPORT ", kReportInput, ".");
  c.Add(Flag::String("status", "LIST",
                     "only cases of these statuses, a comma list (passed, failed, skipped, "
                     "error, timeout), e.g. failed,error"))
      .Add(Flag::String("kernels", "GLOB", "only cases of these kernels (comma list of globs)"))
      .Add(MaxInputFlag())
      .Add(ColorFlag());
  return c;
}

Command MetricsCommand() {
  Command c("metrics", "", "the hardware-metric catalogue (for run --metrics)", 0, 0, Metrics);
  c.Add(Flag::Int("cc", "CC", "compute capability x10 to show (0: the GPU's, else 90)", 0)
            .Check(ComputeCapabilityProblem));
  return c;
}

}  // namespace flashscope::cli
