// `flashscope run` (the supervisor) and the hidden `__worker` it starts. Without CUDA both are
// declared (so that their help and flag checks work) but refuse to run.
#include <unistd.h>

#include <climits>
#include <cstdio>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/output.h"
#include "reports/file_util.h"
#include "reports/render_terminal.h"
#include "suites/suite.h"
#include "suites/worker.h"

#if defined(FLASHSCOPE_HAVE_CUDA)
#include "suites/supervisor.h"
#endif

namespace flashscope::cli {
namespace {

#if defined(FLASHSCOPE_HAVE_CUDA)
std::string SelfPath() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  return std::string(buf, static_cast<size_t>(n));
}

int Run(const Args& a) {
  auto path = suites::ResolveSuitePath(a.positional()[0], SuitesDir(a));
  if (!path.ok()) {
    PrintError("run", path.status().message());
    return 2;
  }
  // A report path the final atomic write would refuse is refused before anything runs.
  if (const std::string& out = a.String("out"); !out.empty()) {
    if (absl::Status s = reports::CheckOutputTarget(out); !s.ok()) {
      PrintError("run", absl::StrCat("--out ", s.message()));
      return 2;
    }
  }
  suites::SuperviseArgs sa;
  sa.suite_path = *path;
  sa.kernels_filter = a.String("kernels");
  sa.out_path = a.String("out");
  sa.resume_journal = a.String("resume");
  sa.metrics = a.String("metrics");
  sa.dump_dir = a.String("dump");
  sa.case_timeout_s = a.Double("case_timeout_s");
  sa.deadline_s = a.Double("deadline_s");
  sa.shard = a.String("shard");
  sa.sanitize_tool = a.String("sanitize");
  sa.worker_exe = SelfPath();
  sa.command_line = a.command_line();
  sa.quiet = a.Bool("quiet");
  suites::SuperviseResult r = suites::Supervise(sa);
  if (r.report_path.empty()) return r.exit_code;
  const bool color = UseColor(a);
  const std::string text = reports::RenderSummary(r.report, color) + "\n" +
                           reports::RenderCaseTable(r.report, color) +
                           "\nreport: " + r.report_path + "\n";
  Print(text);
  return r.exit_code;
}

int Worker(const Args& a) {
  suites::WorkerArgs wa;
  wa.suite_path = a.String("suite");
  wa.kernels_filter = a.String("kernels");
  wa.journal_path = a.String("journal");
  wa.metrics = a.String("metrics");
  wa.dump_dir = a.String("dump");
  wa.progress_fd = a.Int("progress_fd");
  wa.shard = a.String("shard");
  wa.sanitize_rerun = a.Bool("sanitize_rerun");
  for (absl::string_view part : absl::StrSplit(a.String("only_cases"), ',', absl::SkipEmpty())) {
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
#else
int Run(const Args&) {
  std::fprintf(stderr,
               "flashscope run: this flashscope was built without CUDA (no nvcc, or "
               "-DFLASHSCOPE_CUDA=OFF), so it cannot run kernels. Rebuild with the CUDA toolkit "
               "on a machine with a GPU; `flashscope show` reads committed reports meanwhile.\n");
  return 2;
}
int Worker(const Args& a) { return Run(a); }
#endif

Flag KernelsFlag() {
  return Flag::String("kernels", "GLOB", "comma list of kernel ids or globs narrowing the suite");
}

}  // namespace

Command RunCommand() {
  Command c("run", "SUITE",
            "run a suite (a name in suites/ or a path): verify, time and profile each case", 1, 1,
            Run);
  c.details =
      "Writes the report atomically from a journal that keeps every finished case; exit 0 all\n"
      "passed or skipped, 1 a case failed, errored or timed out, 2 bad input or usage.";
  c.Add(KernelsFlag())
      .Add(OutFlag("report path (default reports/runs/<utc time>-<suite>.json)"))
      .Add(Flag::String("dump", "DIR",
                        "write output, reference and inputs of every verified case as .npy"))
      .Add(Flag::String("metrics", "SET",
                        "hardware metrics to collect: basic, full, or a comma list "
                        "(`flashscope metrics`)"))
      .Add(Flag::String("resume", "JOURNAL", "continue the interrupted run of this journal file"))
      .Add(Flag::Double("case_timeout_s", "S",
                        "kill a case that runs longer than this (0 = the suite's limit)", 0)
               .Check(AtLeast(0)))
      .Add(Flag::Double("deadline_s", "S",
                        "stop after this many seconds, keeping the journal for --resume (0 = no "
                        "limit)",
                        0)
               .Check(AtLeast(0)))
      .Add(Flag::String("sanitize", "TOOL",
                        "afterwards rerun each case under compute-sanitizer --tool TOOL (memcheck, "
                        "racecheck, initcheck, synccheck; alone: memcheck) and record findings")
               .ImplicitValue("memcheck"))
      .Add(Flag::String("shard", "K/N",
                        "only shard K of N of the plan (e.g. 2/4); join the reports with "
                        "`flashscope merge`"))
      .Add(SuitesDirFlag())
      .Add(ColorFlag())
      .Add(Flag::Bool("quiet", "no per-case progress lines"));
  return c;
}

Command WorkerCommand() {
  Command c("__worker", "", "internal: runs cases for `flashscope run`, which starts it", 0, 0,
            Worker);
  c.hidden = true;
  c.usage_exit_code = suites::kWorkerExitFatal;  // bad arguments: the supervisor must not retry
  c.Add(Flag::String("suite", "FILE", "the suite file").Hidden())
      .Add(Flag::String("journal", "FILE", "the run's journal").Hidden())
      .Add(KernelsFlag().Hidden())
      .Add(Flag::String("metrics", "SET", "hardware metrics").Hidden())
      .Add(Flag::String("dump", "DIR", ".npy folder").Hidden())
      .Add(Flag::String("shard", "K/N", "the shard").Hidden())
      .Add(Flag::Int("progress_fd", "FD", "where progress goes", -1).Check(AtLeast(-1)).Hidden())
      .Add(Flag::String("only_cases", "LIST", "comma list of case indices to run").Hidden())
      .Add(Flag::Bool("sanitize_rerun", "a rerun under compute-sanitizer").Hidden());
  return c;
}

}  // namespace flashscope::cli
