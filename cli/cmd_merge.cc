// `flashscope merge --out FILE REPORT...`: joins the reports of a suite's shards (run --shard K/N).
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/output.h"
#include "render/render_terminal.h"
#include "reports/merge.h"
#include "reports/report_json.h"
#include "reports/text_safety.h"

namespace flashscope::cli {
namespace {

int Merge(const Args& a) {
  const std::string& out = a.String("out");
  if (out.empty()) {
    PrintError("merge", "--out FILE is required (where the merged report goes)");
    return 2;
  }
  if (absl::Status s = reports::CheckOutputTarget(out, WriteOptionsOf(a)); !s.ok()) {
    PrintError("merge", absl::StrCat("--out ", s.message()));
    return 2;
  }
  if (absl::Status s = reports::CheckNotAnInput("--out", out, a.positional(), WriteOptionsOf(a));
      !s.ok()) {
    PrintError("merge", s.message());
    return 2;
  }
  std::vector<reports::MergeInput> inputs;
  for (const auto& path : a.positional()) {
    auto report = reports::ReadReportFile(path);
    if (!report.ok()) {
      PrintError("merge", report.status().message());
      return 2;
    }
    inputs.push_back({path, *std::move(report)});
  }
  reports::MergeOptions options;
  options.force = a.Bool("force");
  options.command_line = "flashscope merge --out " + out + (options.force ? " --force " : " ") +
                         absl::StrJoin(a.positional(), " ");
  auto merged = reports::MergeReports(inputs, options);
  if (!merged.ok()) {
    PrintError("merge", merged.status().message());
    return 2;
  }
  for (const auto& d : merged->differences) {
    Print(absl::StrCat("FORCED MERGE across differing reports: ", reports::text::TerminalSafe(d),
                       "\n"));
  }
  for (const auto& note : merged->notes) PrintError("merge", absl::StrCat("note: ", note));
  if (auto s = reports::WriteReportFileAtomic(merged->report, out, WriteOptionsOf(a)); !s.ok()) {
    PrintError("merge", s.message());
    return 2;
  }
  PrintF("%s\nmerged %zu reports, %zu cases%s: %s\n",
         reports::RenderSummary(merged->report, /*color=*/false).c_str(), inputs.size(),
         merged->report.cases.size(),
         merged->report.complete ? "" : " (INCOMPLETE: complete is false; see the notes above)",
         reports::text::TerminalSafe(out).c_str());
  return 0;
}

}  // namespace

Command MergeCommand() {
  Command c("merge", "--out FILE REPORT REPORT...",
            "join the reports of one suite's shards (flashscope run --shard K/N)", 2, SIZE_MAX,
            Merge);
  c.details =
      "Refuses (exit 2) reports of different suite files, GPUs, drivers or peaks, and a set of\n"
      "shards with some missing, naming the difference; --force merges anyway (complete: false\n"
      "when shards are missing). docs/robustness.md, \"Files and runs\".";
  c.Add(OutFlag("the merged report (required)"))
      .Add(ForceFlag("merge reports of different GPUs, drivers, suite files or peaks, or an "
                     "incomplete set of shards (the output says so; complete: false)"))
      .Add(MaxInputFlag());
  return c;
}

}  // namespace flashscope::cli
