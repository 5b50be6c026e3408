// `flashscope run` (the supervisor) and the hidden `__worker` it starts.
#include <unistd.h>

#include <climits>
#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "reports/render_terminal.h"
#include "suites/suite.h"
#include "suites/supervisor.h"
#include "suites/worker.h"

namespace flashscope::cli {
namespace {

std::string SelfPath() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace

int CmdRun(const std::vector<std::string>& args, const std::string& command_line) {
  if (args.size() != 1) {
    std::fprintf(stderr,
                 "usage: flashscope run SUITE [--kernels GLOB] [--out FILE] [--dump DIR] "
                 "[--metrics SET] [--resume JOURNAL] [--sanitize[=TOOL]]\n");
    return 2;
  }
  auto path = suites::ResolveSuitePath(args[0], SuitesDir());
  if (!path.ok()) {
    std::fprintf(stderr, "flashscope run: %s\n", std::string(path.status().message()).c_str());
    return 2;
  }
  suites::SuperviseArgs sa;
  sa.suite_path = *path;
  sa.kernels_filter = absl::GetFlag(FLAGS_kernels);
  sa.out_path = absl::GetFlag(FLAGS_out);
  sa.resume_journal = absl::GetFlag(FLAGS_resume);
  sa.metrics = absl::GetFlag(FLAGS_metrics);
  sa.dump_dir = absl::GetFlag(FLAGS_dump);
  sa.case_timeout_s = absl::GetFlag(FLAGS_case_timeout_s);
  sa.deadline_s = absl::GetFlag(FLAGS_deadline_s);
  sa.shard = absl::GetFlag(FLAGS_shard);
  sa.sanitize_tool = absl::GetFlag(FLAGS_sanitize);
  sa.worker_exe = SelfPath();
  sa.command_line = command_line;
  sa.quiet = absl::GetFlag(FLAGS_quiet);
  suites::SuperviseResult r = suites::Supervise(sa);
  if (r.report_path.empty()) return r.exit_code;
  const bool color = absl::GetFlag(FLAGS_color) && reports::StdoutIsTty();
  std::printf("%s\n%s", reports::RenderSummary(r.report, color).c_str(),
              reports::RenderCaseTable(r.report, color).c_str());
  std::printf("\nreport: %s\n", r.report_path.c_str());
  return r.exit_code;
}

int CmdWorker(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::fprintf(stderr,
                 "flashscope __worker is started by `flashscope run`; it takes flags only\n");
    return suites::kWorkerExitFatal;
  }
  suites::WorkerArgs wa;
  wa.suite_path = absl::GetFlag(FLAGS_suite);
  wa.kernels_filter = absl::GetFlag(FLAGS_kernels);
  wa.journal_path = absl::GetFlag(FLAGS_journal);
  wa.metrics = absl::GetFlag(FLAGS_metrics);
  wa.dump_dir = absl::GetFlag(FLAGS_dump);
  wa.progress_fd = absl::GetFlag(FLAGS_progress_fd);
  wa.shard = absl::GetFlag(FLAGS_shard);
  wa.sanitize_rerun = absl::GetFlag(FLAGS_sanitize_rerun);
  for (absl::string_view part :
       absl::StrSplit(absl::GetFlag(FLAGS_only_cases), ',', absl::SkipEmpty())) {
    int index = -1;
    if (!absl::SimpleAtoi(part, &index) || index < 0) {
      std::fprintf(stderr, "flashscope __worker: --only_cases: '%s' is not a case index\n",
                   std::string(part).c_str());
      return suites::kWorkerExitFatal;
    }
    wa.only_cases.insert(index);
  }
  return suites::RunWorker(wa);
}

}  // namespace flashscope::cli
