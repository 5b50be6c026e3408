#include "supervisor/supervisor.h"

#include <chrono>
#include <cstdio>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "reports/journal.h"
#include "reports/text_safety.h"
#include "suites/plan_cases.h"
#include "suites/plugin_paths.h"
#include "supervisor/device_scheduler.h"
#include "supervisor/device_selection.h"
#include "supervisor/dry_run_command.h"
#include "supervisor/planning.h"
#include "supervisor/run_journal.h"
#include "supervisor/run_progress.h"
#include "supervisor/run_window.h"
#include "supervisor/sanitize.h"
#include "supervisor/sanitizer_output.h"

namespace flashscope::suites {
namespace {

SuperviseResult Fail(int code, const std::string& message) {
  // Messages quote paths and plugins' strings: shown inert.
  std::fprintf(stderr, "flashscope run: %s\n", reports::text::TerminalSafeLines(message).c_str());
  SuperviseResult r;
  r.exit_code = code;
  return r;
}

// The flags that shape the plan, as the user gave them (for the dry-run command a refusal names).
std::vector<std::pair<std::string, std::string>> UsersPlanFlags(const SuperviseArgs& args) {
  std::vector<std::pair<std::string, std::string>> flags = {{"--kernels", args.kernels_filter}};
  for (const auto& p : args.plugins) flags.emplace_back("--plugin", p);
  flags.emplace_back("--shard", args.shard);
  return flags;
}

// The plan, made by a worker; exit code 2 and a message when it cannot be made.
absl::StatusOr<protocol::PlanningResult> Plan(const SuperviseArgs& args, const Suite& suite) {
  auto plugins =
      ResolvePlugins(PluginSourcesFromEnvironment(suite.plugins, args.plugins, args.worker_exe));
  if (!plugins.ok()) return plugins.status();
  PlanRequest request{args.worker_exe,     args.suite_path, *plugins,
                      args.kernels_filter, args.shard,      args.dry_run};
  return PlanInWorker(request);
}

// What the parts of one run share.
struct RunContext {
  const SuperviseArgs* args = nullptr;
  const Suite* suite = nullptr;
  const reports::PlanRecord* plan = nullptr;
  std::vector<DeviceSlot> devices;
  std::string journal_path;
  const reports::JournalContents* journal = nullptr;  // as opened: what is done, what is missing
  double case_limit_s = 300;
  std::chrono::steady_clock::time_point run_start;
};

// A case its worker could not record (it died or hung in it), with the GPU it was on.
absl::Status RecordLost(const RunContext& run, reports::JournalWriter& writer,
                        const LostCase& lost) {
  const reports::PlannedCaseRecord& c = *lost.planned;
  reports::CaseResult r = NewCaseResult(*run.plan, c, *run.suite);
  r.status = lost.status;
  r.reason = lost.reason;
  r.wall_s = lost.wall_s;
  r.device = lost.device->device.index;
  r.device_uuid = lost.device->device.uuid;
  return writer.CaseFinished(c.index, r);
}

// The plan's cases that the journal does not hold, on the run's GPUs, until each is recorded or
// the deadline passes. Returns a failure message, or "" to go on.
std::string RunCases(const RunContext& run) {
  auto writer = reports::JournalWriter::Open(run.journal_path, /*append=*/true);
  if (!writer.ok()) return std::string(writer.status().message());
  const std::vector<std::string> missing = run.journal->MissingKeys();
  const std::set<std::string> todo(missing.begin(), missing.end());
  ScheduleJob job;
  job.worker_exe = run.args->worker_exe;
  job.plan = run.plan;
  for (const auto& c : run.plan->cases) {
    if (todo.count(c.key)) job.cases.push_back(&c);
  }
  job.devices = run.devices;
  job.case_limit_s = run.case_limit_s;
  job.window = RunWindow(run.args->metrics, *run.suite);
  job.deadline_s = run.args->deadline_s;
  job.start = run.run_start;
  job.request = [&](const DeviceSlot&) {
    protocol::WorkerRequest r;
    r.command = protocol::Command::kRun;
    r.journal_path = run.journal_path;
    r.metrics = run.args->metrics;
    r.dump_dir = run.args->dump_dir;
    return r;
  };
  job.record = [&](const LostCase& lost) { return RecordLost(run, *writer, lost); };
  const int total = static_cast<int>(run.plan->cases.size());
  RunProgress progress(total, total - static_cast<int>(missing.size()),
                       static_cast<int>(run.devices.size()), run.args->quiet, run.run_start);
  job.ended = [&](const CaseEnded& e) { progress.Ended(e); };
  job.note = [](const DeviceSlot&, const std::string& text) {
    std::fprintf(stderr, "flashscope run: %s\n", reports::text::TerminalSafe(text).c_str());
  };
  const ScheduleResult result = RunOnDevices(job);
  if (!result.failure.empty()) return result.failure;
  if (result.stopped_by_deadline) {
    std::fprintf(stderr,
                 "flashscope run: stopped at the --deadline_s limit of %.0f s; continue with: "
                 "flashscope run %s --resume %s\n",
                 run.args->deadline_s, run.args->suite_path.c_str(), run.journal_path.c_str());
  }
  return "";
}

// The sanitizer's pass over a complete run; `after_run` is the journal as the workers left it.
// Returns whether the pass ran (and so appended to the journal).
absl::StatusOr<bool> Sanitize(const SuperviseArgs& args, const RunContext& run,
                              const std::string& sanitizer_path,
                              const reports::JournalContents& after_run) {
  if (!after_run.MissingKeys().empty()) {
    std::fprintf(stderr,
                 "flashscope run: --sanitize: not started, the run is incomplete; resume it "
                 "with --sanitize to check its cases\n");
    return false;
  }
  SanitizeArgs sa;
  sa.tool = args.sanitize_tool;
  sa.sanitizer_path = sanitizer_path;
  sa.worker_exe = args.worker_exe;
  sa.journal_path = run.journal_path;
  sa.case_limit_s = run.case_limit_s;
  sa.quiet = args.quiet;
  sa.environment = PinningEnvironment(run.devices[0]);  // one case at a time, on the first GPU
  sa.journal = &after_run;
  if (absl::Status s = RunSanitizePass(sa, *run.plan); !s.ok()) return s;
  return true;
}

// The report from the journal, written atomically; the journal goes only when every planned case
// is in the report.
SuperviseResult FinalReport(const RunContext& run, const std::string& out_path,
                            const reports::JournalContents& journal) {
  auto report = WriteReportFromJournal(run.journal_path, out_path, /*remove_journal=*/false,
                                       &journal, reports::WriteOptions{run.args->force});
  if (!report.ok()) return Fail(2, std::string(report.status().message()));
  SuperviseResult result;
  result.report = *std::move(report);
  result.report_path = out_path;
  result.exit_code = result.report.complete && run.plan->lost_plugins.empty() ? 0 : 1;
  for (const auto& c : result.report.cases) {
    if (c.status == reports::CaseStatus::kFailed || c.status == reports::CaseStatus::kError ||
        c.status == reports::CaseStatus::kTimeout) {
      result.exit_code = 1;
    }
    if (c.sanitizer && c.sanitizer->errors > 0) result.exit_code = 1;  // a finding is a failure
  }
  return result;
}

// --dry_run: the plan, and the GPUs it would run on (checked when a worker can see them).
SuperviseResult DryRun(const SuperviseArgs& args, const DeviceSelection& selection,
                       const protocol::PlanningResult& planned) {
  SuperviseResult r;
  std::printf("%s", RenderPlan(planned.plan, planned.refusals).c_str());
  if (!planned.device.usable) {
    std::printf("device: none usable: %s%s\n", planned.device.reason.c_str(),
                selection.given ? " (so --devices cannot be checked here)" : "");
  } else if (!selection.given) {
    std::printf("device: %s (sm_%d)\n", planned.device.name.c_str(), planned.device.cc);
  } else {
    std::vector<std::string> warnings;
    auto slots = ChooseDevices(selection, planned.devices, {}, args.force, &warnings);
    if (!slots.ok()) return Fail(2, std::string(slots.status().message()));
    for (const auto& w : warnings) std::printf("%s\n", w.c_str());
    std::printf("devices: %zu, one worker each\n%s", slots->size(), RenderDevices(*slots).c_str());
  }
  r.exit_code = planned.plan.lost_plugins.empty() ? 0 : 1;
  return r;
}

// The run's GPUs: --devices among those a worker found, one model unless --force, counting the
// GPUs that ran the resumed journal's cases.
absl::StatusOr<std::vector<DeviceSlot>> ChooseRunDevices(const SuperviseArgs& args,
                                                         const DeviceSelection& selection,
                                                         const protocol::PlanningResult& planned,
                                                         const reports::JournalContents* resumed) {
  const std::vector<reports::DeviceRecord> before =
      resumed != nullptr ? resumed->devices : std::vector<reports::DeviceRecord>{};
  std::vector<std::string> warnings;
  auto slots = ChooseDevices(selection, planned.devices, before, args.force, &warnings);
  for (const auto& w : warnings) {
    std::fprintf(stderr, "flashscope run: %s\n", reports::text::TerminalSafe(w).c_str());
  }
  return slots;
}

}  // namespace

SuperviseResult Supervise(const SuperviseArgs& args) {
  auto suite = LoadSuiteFile(args.suite_path);
  if (!suite.ok()) return Fail(2, std::string(suite.status().message()));
  auto selection = ParseDeviceSelection(args.devices);
  if (!selection.ok()) return Fail(2, std::string(selection.status().message()));
  // A journal to resume must read and be this suite's, with --dry_run too (the plan is compared
  // once planned). Then it is claimed before anything else: a second run on it, or a new run over
  // the journal of an unfinished one, is refused at once (issue 23).
  if (!args.resume_journal.empty()) {
    if (absl::Status s = CheckResumableSuite(args.resume_journal, *suite); !s.ok()) {
      return Fail(2, std::string(s.message()));
    }
  }
  JournalRequest request{args.resume_journal, args.out_path, args.command_line,
                         args.kernels_filter};
  std::optional<RunJournal> journal;
  if (!args.dry_run) {
    auto claimed = ClaimRunJournal(request, *suite);
    if (!claimed.ok()) return Fail(2, std::string(claimed.status().message()));
    journal.emplace(*std::move(claimed));
    if (!journal->lock_note.empty()) {
      std::fprintf(stderr, "flashscope run: %s\n",
                   reports::text::TerminalSafe(journal->lock_note).c_str());
    }
  }
  // --sanitize: refuse at once, before the run, when the tool cannot be used.
  std::string sanitizer_path;
  if (!args.sanitize_tool.empty() && !args.dry_run) {
    if (auto s = CheckSanitizerTool(args.sanitize_tool); !s.ok()) {
      return Fail(2, std::string(s.message()));
    }
    auto found = FindComputeSanitizer();
    if (!found.ok()) return Fail(2, absl::StrCat("--sanitize: ", found.status().message()));
    sanitizer_path = *found;
  }
  auto planned = Plan(args, *suite);
  if (!planned.ok()) return Fail(2, std::string(planned.status().message()));
  const reports::PlanRecord& plan = planned->plan;
  if (args.dry_run) {
    // The journal a real resume would refuse is refused here, with the same reason.
    if (!args.resume_journal.empty()) {
      if (absl::Status s = CheckResumable(args.resume_journal, plan); !s.ok()) {
        return Fail(2, std::string(s.message()));
      }
    }
    return DryRun(args, *selection, *planned);
  }
  if (!planned->device.usable) {
    return Fail(2, absl::StrCat("no usable GPU: ", planned->device.reason,
                                ". Nothing was run and no journal was written; `",
                                DryRunCommand("run", args.suite_path, UsersPlanFlags(args)),
                                "` shows the plan without a GPU"));
  }
  // The journal is read once before the run (a resumed one: its GPUs, its plan, what is done) and
  // once after it (the workers' results), again only after a sanitizer pass appended to it.
  std::optional<reports::JournalContents> resumed;
  if (!args.resume_journal.empty()) {
    auto read = reports::ReadJournal(args.resume_journal);
    if (!read.ok()) return Fail(2, std::string(read.status().message()));
    resumed = *std::move(read);
  }
  RunContext run;
  auto devices = ChooseRunDevices(args, *selection, *planned, resumed ? &*resumed : nullptr);
  if (!devices.ok()) return Fail(2, std::string(devices.status().message()));
  run.devices = *std::move(devices);
  request.resumed = resumed ? &*resumed : nullptr;
  if (absl::Status s = StartRunJournal(request, *suite, plan, &*journal); !s.ok()) {
    return Fail(2, std::string(s.message()));
  }
  run.journal = &journal->contents;

  run.args = &args;
  run.suite = &*suite;
  run.plan = &plan;
  run.journal_path = journal->journal_path;
  run.case_limit_s = args.case_timeout_s > 0 ? args.case_timeout_s : suite->case_timeout_s;
  run.run_start = std::chrono::steady_clock::now();
  std::fprintf(stderr, "flashscope run: suite %s, %zu cases; journal %s\n", suite->name.c_str(),
               plan.cases.size(), run.journal_path.c_str());
  if (selection->given) {
    std::fprintf(stderr, "flashscope run: %zu GPU%s, one worker each:\n%s", run.devices.size(),
                 run.devices.size() == 1 ? "" : "s",
                 reports::text::TerminalSafe(RenderDevices(run.devices)).c_str());
  }
  if (std::string failure = RunCases(run); !failure.empty()) return Fail(2, failure);
  auto after = reports::ReadJournal(run.journal_path);
  if (!after.ok()) return Fail(2, std::string(after.status().message()));
  if (!sanitizer_path.empty()) {
    auto sanitized = Sanitize(args, run, sanitizer_path, *after);
    if (!sanitized.ok()) return Fail(2, std::string(sanitized.status().message()));
    if (*sanitized) after = reports::ReadJournal(run.journal_path);  // the findings it appended
    if (!after.ok()) return Fail(2, std::string(after.status().message()));
  }
  return FinalReport(run, journal->out_path, *after);
}

}  // namespace flashscope::suites
