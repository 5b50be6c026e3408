// `flashscope run`: the supervisor (supervisor/supervisor.h). Kernels run in flashscope-worker
// processes; this process never touches CUDA nor loads a plugin, so it builds and plans (with
// --dry_run) on any machine.
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/common_flags.h"
#include "cli/output.h"
#include "cli/worker_command.h"
#include "protocol/worker_process.h"
#include "render/render_terminal.h"
#include "reports/file_util.h"
#include "suites/suite.h"
#include "supervisor/supervisor.h"

namespace flashscope::cli {
namespace {

Flag KernelsFlag() {
  return Flag::String("kernels", "GLOB", "comma list of kernel ids or globs narrowing the suite");
}

int Run(const Args& a) {
  auto path = suites::ResolveSuitePath(a.positional()[0], SuitesDir(a));
  if (!path.ok()) {
    PrintError("run", path.status().message());
    return 2;
  }
  // A report path the final atomic write would refuse is refused before anything runs.
  if (const std::string& out = a.String("out"); !out.empty()) {
    if (absl::Status s = reports::CheckOutputTarget(out, WriteOptionsOf(a)); !s.ok()) {
      PrintError("run", absl::StrCat("--out ", s.message()));
      return 2;
    }
  }
  auto worker = suites::FindWorker();
  if (!worker.ok()) {
    PrintError("run", worker.status().message());
    return 2;
  }
  suites::SuperviseArgs sa;
  FillWorkerRunArgs(a, *path, *worker, &sa);
  sa.plugins = a.List("plugin");
  sa.out_path = a.String("out");
  sa.resume_journal = a.String("resume");
  sa.dump_dir = a.String("dump");
  sa.deadline_s = a.Double("deadline_s");
  sa.shard = a.String("shard");
  sa.sanitize_tool = a.String("sanitize");
  suites::SuperviseResult r = suites::Supervise(sa);
  if (r.report_path.empty()) return r.exit_code;
  const bool color = UseColor(a);
  const std::string text =
      reports::RenderReportTerminal(r.report, color) + "\nreport: " + r.report_path + "\n";
  Print(text);
  return r.exit_code;
}

}  // namespace

Command RunCommand() {
  Command c("run", "SUITE",
            "run a suite (a name in suites/ or a path): verify, time and profile each case", 1, 1,
            Run);
  c.details =
      "Writes the report atomically from a journal that keeps every finished case; exit 0 all\n"
      "passed or skipped, 1 a case failed, errored or timed out, 2 bad input or usage.\n"
      "Kernels run in flashscope-worker processes (beside flashscope, or $FLASHSCOPE_WORKER);\n"
      "plugins come from the suite's \"plugins\", --plugin, else $FLASHSCOPE_PLUGINS\n"
      "(docs/plugins.md).";
  c.Add(KernelsFlag())
      .Add(PluginFlag())
      .Add(Flag::Bool("dry_run",
                      "print the plan (its cases, and where each kernel comes from) and stop: "
                      "needs no GPU, writes no journal"))
      .Add(OutFlag("report path (default results/runs/<utc time>-<suite>.json)"))
      .Add(MaxInputFlag())
      .Add(Flag::String("dump", "DIR",
                        "write output, reference and inputs of every verified case as .npy"))
      .Add(Flag::String("metrics", "SET",
                        "hardware metrics to collect: basic, full, or a comma list "
                        "(`flashscope metrics`)"))
      .Add(Flag::String("resume", "JOURNAL",
                        "continue the interrupted run of this journal file (same arguments: a "
                        "journal of another plan is refused)"))
      .Add(Flag::Double("case_timeout_s", "S",
                        "kill a case that runs longer than this (0 = the suite's limit)", 0)
               .Check(AtLeast(0)))
      .Add(Flag::Double("deadline_s", "S",
                        "stop after this many seconds (workers get 5 s more to record the cases "
                        "they hold), keeping the journal for --resume (0 = no limit)",
                        0)
               .Check(AtLeast(0)))
      .Add(Flag::String("sanitize", "TOOL",
                        "afterwards rerun each case under compute-sanitizer --tool TOOL (memcheck, "
                        "racecheck, initcheck, synccheck; alone: memcheck) and record findings")
               .ImplicitValue("memcheck"))
      .Add(Flag::String("shard", "K/N",
                        "only shard K of N of the plan (e.g. 2/4); join the reports with "
                        "`flashscope merge`"))
      .Add(DevicesFlag())
      .Add(ForceFlag("with --devices: run on GPUs of different models (refused otherwise: their "
                     "timings do not compare within one report)"))
      .Add(SuitesDirFlag())
      .Add(ColorFlag())
      .Add(Flag::Bool("quiet", "no per-case progress lines"));
  return c;
}

}  // namespace flashscope::cli
