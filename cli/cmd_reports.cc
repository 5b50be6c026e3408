// Commands that read reports; they need no GPU.
#include <cstdio>

#include "absl/flags/flag.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "reports/render_terminal.h"
#include "reports/report_json.h"

namespace flashscope::cli {
namespace {

bool UseColor() { return absl::GetFlag(FLAGS_color) && reports::StdoutIsTty(); }

}  // namespace

int CmdShow(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    std::fprintf(stderr,
                 "usage: flashscope show REPORT (a report .json or a run's .journal.jsonl)\n");
    return 2;
  }
  auto report = reports::ReadReportFile(args[0]);
  if (!report.ok()) {
    std::fprintf(stderr, "flashscope show: %s\n", std::string(report.status().message()).c_str());
    return 2;
  }
  const bool color = UseColor();
  std::printf("%s\n%s", reports::RenderSummary(*report, color).c_str(),
              reports::RenderCaseTable(*report, color).c_str());
  return 0;
}

}  // namespace flashscope::cli
