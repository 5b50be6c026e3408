// `flashscope run`: the supervisor (suites/supervisor.h). Kernels run in flashscope-worker
// processes; this process never touches CUDA nor loads a plugin.
#include <cstdio>
#include <cstring>

#include "absl/flags/flag.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "reports/render_terminal.h"
#include "suites/suite.h"
#include "suites/supervisor.h"
#include "suites/worker_process.h"

ABSL_FLAG(bool, dry_run, false,
          "run: print the plan (cases, and where each kernel comes from) and stop; needs no GPU "
          "and writes no journal");

namespace flashscope::cli {
namespace {

std::vector<std::string>& PluginFlagStore() {
  static std::vector<std::string> plugins;
  return plugins;
}

}  // namespace

// Abseil keeps the last value of a repeated flag; --plugin accumulates, so it is taken out of
// argv before Abseil parses the rest.
void TakePluginFlags(int* argc, char** argv) {
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    const char* a = argv[i];
    for (const char* prefix : {"--plugin=", "-plugin="}) {
      if (std::strncmp(a, prefix, std::strlen(prefix)) == 0) {
        PluginFlagStore().push_back(a + std::strlen(prefix));
        a = nullptr;
        break;
      }
    }
    if (a != nullptr && (std::strcmp(a, "--plugin") == 0 || std::strcmp(a, "-plugin") == 0) &&
        i + 1 < *argc) {
      PluginFlagStore().push_back(argv[++i]);
      a = nullptr;
    }
    if (a != nullptr) argv[out++] = argv[i];
  }
  *argc = out;
  argv[out] = nullptr;
}

const std::vector<std::string>& PluginFlags() { return PluginFlagStore(); }

int CmdRun(const std::vector<std::string>& args, const std::string& command_line) {
  if (args.size() != 1) {
    std::fprintf(stderr,
                 "usage: flashscope run SUITE [--plugin FILE]... [--kernels GLOB] [--out FILE] "
                 "[--dump DIR] [--metrics SET] [--resume JOURNAL] [--sanitize[=TOOL]] "
                 "[--dry_run]\n");
    return 2;
  }
  auto path = suites::ResolveSuitePath(args[0], SuitesDir());
  if (!path.ok()) {
    std::fprintf(stderr, "flashscope run: %s\n", std::string(path.status().message()).c_str());
    return 2;
  }
  auto worker = suites::FindWorker();
  if (!worker.ok()) {
    std::fprintf(stderr, "flashscope run: %s\n", std::string(worker.status().message()).c_str());
    return 2;
  }
  suites::SuperviseArgs sa;
  sa.suite_path = *path;
  sa.kernels_filter = absl::GetFlag(FLAGS_kernels);
  sa.plugins = PluginFlags();
  sa.out_path = absl::GetFlag(FLAGS_out);
  sa.resume_journal = absl::GetFlag(FLAGS_resume);
  sa.metrics = absl::GetFlag(FLAGS_metrics);
  sa.dump_dir = absl::GetFlag(FLAGS_dump);
  sa.case_timeout_s = absl::GetFlag(FLAGS_case_timeout_s);
  sa.deadline_s = absl::GetFlag(FLAGS_deadline_s);
  sa.shard = absl::GetFlag(FLAGS_shard);
  sa.sanitize_tool = absl::GetFlag(FLAGS_sanitize);
  sa.worker_exe = *worker;
  sa.command_line = command_line;
  sa.quiet = absl::GetFlag(FLAGS_quiet);
  sa.dry_run = absl::GetFlag(FLAGS_dry_run);
  suites::SuperviseResult r = suites::Supervise(sa);
  if (r.report_path.empty()) return r.exit_code;
  const bool color = absl::GetFlag(FLAGS_color) && reports::StdoutIsTty();
  std::printf("%s\n%s", reports::RenderSummary(r.report, color).c_str(),
              reports::RenderCaseTable(r.report, color).c_str());
  std::printf("\nreport: %s\n", r.report_path.c_str());
  return r.exit_code;
}

}  // namespace flashscope::cli
