// Commands that read reports and catalogues; they need no GPU.
#include <cstdio>

#include "absl/flags/flag.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "profiler/metric_catalogue.h"
#include "reports/render_terminal.h"
#include "reports/report_json.h"

#if defined(FLASHSCOPE_HAVE_CUDA)
#include "profiler/device_info.h"
#endif

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

int CmdMetrics(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::fprintf(stderr, "usage: flashscope metrics [--cc 90]\n");
    return 2;
  }
  int cc = absl::GetFlag(FLAGS_cc);
  std::string source = "--cc";
#if defined(FLASHSCOPE_HAVE_CUDA)
  if (cc == 0) {
    if (auto d = profiler::QueryDevice(0); d.ok()) {
      cc = d->cc;
      source = d->name;
    }
  }
#endif
  if (cc == 0) {
    cc = 90;
    source = "no GPU here; showing sm_90 (use --cc 80 for Ampere)";
  }
  std::printf(
      "hardware metrics for sm_%d (%s)\nsets: basic, full; any raw metric name with '__' "
      "is accepted too\n\n",
      cc, source.c_str());
  for (const auto& m : profiler::MetricCatalogue(cc)) {
    std::printf("  %-24s %-6s %s\n      %s\n", m.name.c_str(), m.unit.c_str(),
                m.description.c_str(), m.hw_name.c_str());
  }
  return 0;
}

#if !defined(FLASHSCOPE_HAVE_CUDA)
int CmdRun(const std::vector<std::string>&, const std::string&) {
  std::fprintf(stderr,
               "flashscope run: this flashscope was built without CUDA (no nvcc, or "
               "-DFLASHSCOPE_CUDA=OFF), so it cannot run kernels. Rebuild with the CUDA toolkit "
               "on a machine with a GPU; `flashscope show` reads committed reports meanwhile.\n");
  return 2;
}
int CmdWorker(const std::vector<std::string>& args) { return CmdRun(args, ""); }
#endif

}  // namespace flashscope::cli
