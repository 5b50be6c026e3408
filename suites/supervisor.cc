#include "suites/supervisor.h"

#include <chrono>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "reports/journal.h"
#include "reports/text_safety.h"
#include "suites/plan_cases.h"
#include "suites/planning.h"
#include "suites/plugin_paths.h"
#include "suites/run_journal.h"
#include "suites/sanitize.h"
#include "suites/sanitizer_output.h"
#include "suites/worker_session.h"

namespace flashscope::suites {
namespace {

SuperviseResult Fail(int code, const std::string& message) {
  // Messages quote paths and plugins' strings: shown inert.
  std::fprintf(stderr, "flashscope run: %s\n", reports::text::TerminalSafe(message).c_str());
  SuperviseResult r;
  r.exit_code = code;
  return r;
}

// The plan, made by a worker; exit code 2 and a message when it cannot be made.
absl::StatusOr<protocol::PlanningResult> Plan(const SuperviseArgs& args, const Suite& suite) {
  auto plugins =
      ResolvePlugins(PluginSourcesFromEnvironment(suite.plugins, args.plugins, args.worker_exe));
  if (!plugins.ok()) return plugins.status();
  PlanRequest request{args.worker_exe, args.suite_path, *plugins, args.kernels_filter, args.shard};
  return PlanInWorker(request);
}

// Worker sessions until every planned case is recorded, the deadline passes, or workers die
// before running anything twice in a row. Returns a failure message, or "" to go on.
std::string RunCases(RunContext& run, const std::string& suite_path) {
  auto writer = reports::JournalWriter::Open(run.journal_path, /*append=*/true);
  if (!writer.ok()) return std::string(writer.status().message());
  int failed_starts = 0;
  while (true) {
    auto journal = reports::ReadJournal(run.journal_path);
    if (!journal.ok()) return std::string(journal.status().message());
    if (journal->MissingKeys().empty()) return "";
    SessionOutcome s = RunWorkerSession(run, *writer);
    if (!s.failure.empty()) return s.failure;
    if (s.stopped_by_deadline) {
      std::fprintf(stderr,
                   "flashscope run: stopped at the --deadline_s limit of %.0f s; continue with: "
                   "flashscope run %s --resume %s\n",
                   run.deadline_s, suite_path.c_str(), run.journal_path.c_str());
      return "";
    }
    if (s.progressed) {
      failed_starts = 0;
      continue;
    }
    if (!s.fatal.empty()) return s.fatal;
    if (s.startup_timed_out) return "the worker did not start a case within 900 s";
    // Guard against a loop of workers that die before they run anything.
    if (++failed_starts >= 2) {
      return absl::StrCat("flashscope-worker ", s.exit,
                          " before running any case, twice; "
                          "giving up");
    }
  }
}

absl::Status Sanitize(const SuperviseArgs& args, const RunContext& run,
                      const std::string& sanitizer_path) {
  auto so_far = reports::ReadJournal(run.journal_path);
  if (!so_far.ok()) return so_far.status();
  if (!so_far->MissingKeys().empty()) {
    std::fprintf(stderr,
                 "flashscope run: --sanitize: not started, the run is incomplete; resume it "
                 "with --sanitize to check its cases\n");
    return absl::OkStatus();
  }
  SanitizeArgs sa;
  sa.tool = args.sanitize_tool;
  sa.sanitizer_path = sanitizer_path;
  sa.worker_exe = args.worker_exe;
  sa.journal_path = run.journal_path;
  sa.case_limit_s = run.case_limit_s;
  sa.quiet = args.quiet;
  return RunSanitizePass(sa, *run.plan);
}

// The report from the journal, written atomically; the journal goes only when every planned case
// is in the report.
SuperviseResult FinalReport(const RunContext& run, const std::string& out_path) {
  auto report = WriteReportFromJournal(run.journal_path, out_path);
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

}  // namespace

SuperviseResult Supervise(const SuperviseArgs& args) {
  auto suite = LoadSuiteFile(args.suite_path);
  if (!suite.ok()) return Fail(2, std::string(suite.status().message()));
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
    std::printf("%s", RenderPlan(plan).c_str());
    std::printf("device: %s\n",
                planned->device.usable
                    ? absl::StrCat(planned->device.name, " (sm_", planned->device.cc, ")").c_str()
                    : absl::StrCat("none usable: ", planned->device.reason).c_str());
    SuperviseResult r;
    r.exit_code = plan.lost_plugins.empty() ? 0 : 1;
    return r;
  }
  if (!planned->device.usable) {
    return Fail(2, absl::StrCat("no usable GPU: ", planned->device.reason,
                                ". Nothing was run and no journal was written; `flashscope run ",
                                args.suite_path, " --dry_run` shows the plan without a GPU"));
  }
  auto journal = OpenRunJournal(
      {args.resume_journal, args.out_path, args.command_line, args.kernels_filter}, *suite, plan);
  if (!journal.ok()) return Fail(2, std::string(journal.status().message()));

  RunContext run;
  run.suite = &*suite;
  run.plan = &plan;
  run.worker_exe = args.worker_exe;
  run.journal_path = journal->journal_path;
  run.metrics = args.metrics;
  run.dump_dir = args.dump_dir;
  run.case_limit_s = args.case_timeout_s > 0 ? args.case_timeout_s : suite->case_timeout_s;
  run.deadline_s = args.deadline_s;
  run.run_start = std::chrono::steady_clock::now();
  run.quiet = args.quiet;
  std::fprintf(stderr, "flashscope run: suite %s, %zu cases; journal %s\n", suite->name.c_str(),
               plan.cases.size(), run.journal_path.c_str());
  if (std::string failure = RunCases(run, args.suite_path); !failure.empty()) {
    return Fail(2, failure);
  }
  if (!sanitizer_path.empty()) {
    if (absl::Status s = Sanitize(args, run, sanitizer_path); !s.ok()) {
      return Fail(2, std::string(s.message()));
    }
  }
  return FinalReport(run, journal->out_path);
}

}  // namespace flashscope::suites
