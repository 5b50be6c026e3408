// `flashscope merge --out FILE REPORT...`: joins the reports of a suite's shards (run --shard K/N).
#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "reports/merge.h"
#include "reports/render_terminal.h"
#include "reports/report_json.h"

namespace flashscope::cli {

int CmdMerge(const std::vector<std::string>& args) {
  const std::string out = absl::GetFlag(FLAGS_out);
  if (args.size() < 2 || out.empty()) {
    std::fprintf(stderr,
                 "usage: flashscope merge --out FILE REPORT REPORT... [--force]\n"
                 "joins the reports of one suite's shards (flashscope run --shard K/N)\n");
    return 2;
  }
  std::vector<reports::MergeInput> inputs;
  for (const auto& path : args) {
    auto report = reports::ReadReportFile(path);
    if (!report.ok()) {
      std::fprintf(stderr, "flashscope merge: %s\n",
                   std::string(report.status().message()).c_str());
      return 2;
    }
    inputs.push_back({path, *std::move(report)});
  }
  reports::MergeOptions options;
  options.force = absl::GetFlag(FLAGS_force);
  options.command_line = "flashscope merge --out " + out + (options.force ? " --force " : " ") +
                         absl::StrJoin(args, " ");
  auto merged = reports::MergeReports(inputs, options);
  if (!merged.ok()) {
    std::fprintf(stderr, "flashscope merge: %s\n", std::string(merged.status().message()).c_str());
    return 2;
  }
  for (const auto& d : merged->differences) {
    std::printf("FORCED MERGE across differing reports: %s\n", d.c_str());
  }
  if (auto s = reports::WriteReportFileAtomic(merged->report, out); !s.ok()) {
    std::fprintf(stderr, "flashscope merge: %s\n", std::string(s.message()).c_str());
    return 2;
  }
  std::printf("%s\nmerged %zu reports, %zu cases%s: %s\n",
              reports::RenderSummary(merged->report, /*color=*/false).c_str(), inputs.size(),
              merged->report.cases.size(),
              merged->report.complete ? "" : " (incomplete: an input was incomplete)", out.c_str());
  return 0;
}

}  // namespace flashscope::cli
