#include "runner/worker_run.h"

#include <unistd.h>

#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "reports/devices.h"
#include "reports/journal.h"
#include "runner/case_runner.h"
#include "runner/kernel_loading.h"
#include "runner/phase_trace.h"
#include "runner/planner.h"
#include "suites/plan_cases.h"

namespace flashscope::runner {
namespace {

namespace protocol = suites::protocol;
using suites::protocol::Event;
using suites::protocol::Tell;

// A rerun under compute-sanitizer (supervisor/sanitize.h): one timed sample, no warm-up, no L2
// flush, no metrics, heatmaps or dumps, since the tool slows every launch 10-100x and only the
// kernel's memory accesses matter.
void ForSanitizer(suites::Suite* suite, RunOptions* options) {
  suite->timing.cold = false;
  suite->timing.warmup = 0;
  suite->timing.min_samples = suite->timing.max_samples = 1;
  suite->timing.noise_target = 1.0;
  suite->timing.time_cap_s = 0.0;
  suite->metrics.clear();
  suite->verify.heatmaps = "none";
  options->metrics.clear();
  options->dump_dir.clear();
}

// Records a case the runner finished (at once, or when its parked counters were settled): the
// journal, then the F line. False when the journal cannot be written (the worker must stop).
bool RecordFinished(const suites::protocol::WorkerRequest& request, const CaseRunner& runner,
                    reports::JournalWriter& writer, int index, const std::string& key,
                    reports::CaseResult r) {
  StampDevice(request, runner, &r);
  if (auto s = writer.CaseFinished(index, r); !s.ok()) {
    protocol::TellFatal(request.progress_fd, std::string(s.message()));
    return false;
  }
  Tell(request.progress_fd, {Event::kCaseFinished, key, reports::CaseStatusName(r.status), ""});
  return true;
}

// Runs one case and records it, or parks it (runner/case_settle.cc: recorded when settled).
// Returns false when the worker must stop (the journal cannot be written); exits at once when
// the case left the CUDA context unusable.
bool RunOne(const suites::protocol::WorkerRequest& request, const reports::PlanRecord& plan,
            const suites::Suite& suite, const BoundCase& b, CaseRunner& runner,
            reports::JournalWriter& writer, PhaseTrace* trace) {
  const int fd = request.progress_fd;
  const reports::PlannedCaseRecord& c = *b.planned;
  Tell(fd, {Event::kCaseStarted, c.key, "", ""});
  if (trace != nullptr) trace->CaseBegins(c.key), trace->Mark("journal_started");
  if (auto s = writer.CaseStarted(c.index, c.key); !s.ok()) {
    protocol::TellFatal(fd, std::string(s.message()));
    return false;
  }
  const CaseToRun run{c.index, c.key, b.kernel, c.problem, suites::NewCaseResult(plan, c, suite)};
  std::optional<reports::CaseResult> r = runner.RunOrPark(run);
  if (trace != nullptr) trace->Mark(r ? "journal_finished" : "parked");
  if (r && !RecordFinished(request, runner, writer, c.index, c.key, *std::move(r))) return false;
  if (trace != nullptr) trace->CaseEnds();
  if (runner.context_lost()) {
    // Leave without touching CUDA again: the context would only return the same error. Cases
    // still parked were not recorded: the supervisor runs them again.
    _exit(suites::protocol::kExitContextLost);
  }
  return true;
}

// Collects the parked cases' counters and records each (`all` false: a scalar kernel's cases
// may wait for a later settle). False when the journal cannot be written.
bool SettleParked(const suites::protocol::WorkerRequest& request, CaseRunner& runner,
                  reports::JournalWriter& writer, PhaseTrace* trace, bool all) {
  if (runner.parked() == 0) return true;
  if (trace != nullptr) {
    trace->CaseBegins(absl::StrCat("settle of ", runner.parked(), " cases"));
    // Its own segment, not the wait that preceded it (4 x H200, session 7: 230-364 ms a settle
    // up to its first profiled launch, which the trace had called waiting); the counter
    // sessions' steps then mark themselves (SetCounterStepObserver).
    trace->Mark("settle_setup");
  }
  bool journal_ok = true;
  runner.Settle(
      all,
      [&](const CaseToRun& c, const reports::CaseResult& r) {
        journal_ok = journal_ok && RecordFinished(request, runner, writer, c.index, c.key, r);
      },
      [&](const std::string& key, const char* phase) {
        Tell(request.progress_fd, {Event::kPhase, key, "", phase});
        if (trace != nullptr) trace->Mark(phase);
      });
  if (trace != nullptr) trace->CaseEnds();
  if (journal_ok && runner.context_lost()) _exit(suites::protocol::kExitContextLost);
  return journal_ok;
}

// How long a worker holding parked cases waits for the next RUN line before it settles them:
// the supervisor sends its window at once and the next lines as soon as F lines arrive, so a
// silence this long means it waits for this worker's results.
constexpr int kParkedWaitMs = 20;

// The cases the supervisor hands out, one RUN line each, until it closes the channel. Several
// may be outstanding (supervisor/device_scheduler.h, the window): cases are parked and settled
// together when the batch is full, the next case's problem would hold too much memory, the
// supervisor has nothing more to say for a moment, or at the end.
int RunCommanded(const suites::protocol::WorkerRequest& request, const reports::PlanRecord& plan,
                 const suites::Suite& suite, const std::vector<BoundCase>& bound,
                 CaseRunner& runner, reports::JournalWriter& writer, PhaseTrace* trace) {
  std::map<std::string, const BoundCase*> by_key;
  for (const BoundCase& b : bound) by_key[b.planned->key] = &b;
  suites::protocol::CommandReader commands(request.command_fd);
  runner.EnableParking(true);
  using Wait = suites::protocol::CommandWait;
  while (true) {
    if (trace != nullptr) trace->Mark("wait");
    std::string key;
    const Wait wait = commands.NextWithin(runner.parked() > 0 ? kParkedWaitMs : -1, &key);
    if (wait == Wait::kNone) {
      if (!SettleParked(request, runner, writer, trace, /*all=*/false)) return protocol::kExitFatal;
      continue;
    }
    if (wait == Wait::kEnd) break;
    auto it = by_key.find(key);
    if (it == by_key.end() || it->second->kernel == nullptr) {
      return protocol::TellFatal(
          request.progress_fd,
          absl::StrCat("asked to run case '", key,
                       "', which the journal's plan does not hold as a runnable case (a "
                       "flashscope defect; please report it)"));
    }
    const reports::PlannedCaseRecord& c = *it->second->planned;
    const CaseRunner::SettleNeed need = runner.SettleBefore(c.problem);
    if (need != CaseRunner::SettleNeed::kNone &&
        !SettleParked(request, runner, writer, trace,
                      /*all=*/need == CaseRunner::SettleNeed::kEverything)) {
      return protocol::kExitFatal;
    }
    if (!RunOne(request, plan, suite, *it->second, runner, writer, trace)) {
      return protocol::kExitFatal;
    }
  }
  return SettleParked(request, runner, writer, trace, /*all=*/true) ? 0 : protocol::kExitFatal;
}

}  // namespace

void StampDevice(const suites::protocol::WorkerRequest& request, const CaseRunner& runner,
                 reports::CaseResult* r) {
  r->device = request.device;
  r->device_uuid = runner.DescribeDevice(request.device).uuid;
}

absl::Status SetUpPeaks(const suites::protocol::WorkerRequest& request,
                        const reports::JournalContents& journal, CaseRunner& runner,
                        reports::JournalWriter& writer) {
  const reports::DeviceRecord mine = runner.DescribeDevice(request.device);
  if (const reports::DeviceRecord* known = reports::FindDevice(journal.devices, mine.uuid)) {
    runner.SetPeaks(known->peaks);
    return absl::OkStatus();
  }
  if (request.sanitize_rerun || (journal.environment && journal.devices.empty())) {
    if (journal.environment) runner.SetPeaks(journal.environment->peaks);
    if (request.sanitize_rerun) return absl::OkStatus();
    return writer.WriteDevice(runner.DescribeDevice(request.device));
  }
  Tell(request.progress_fd, {Event::kNote, "", "", "measuring device peaks"});
  const reports::Environment env = runner.DescribeEnvironment(/*measure_peaks=*/true);
  if (absl::Status s = writer.WriteDevice(runner.DescribeDevice(request.device)); !s.ok()) {
    return s;
  }
  return journal.environment ? absl::OkStatus() : writer.WriteEnvironment(env);
}

absl::StatusOr<suites::Suite> PlannedSuite(const reports::PlanRecord& plan) {
  auto file = ReadSuiteFile(plan.suite_path);
  if (!file.ok()) return file.status();
  if (file->sha256 != plan.suite_sha256) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the suite file ", plan.suite_path, " changed since the run was planned; start a new run"));
  }
  return std::move(file->suite);
}

int RunCases(const suites::protocol::WorkerRequest& request) {
  const int fd = request.progress_fd;
  auto journal = reports::ReadJournal(request.journal_path);
  if (!journal.ok()) return protocol::TellFatal(fd, std::string(journal.status().message()));
  if (!journal->plan) {
    return protocol::TellFatal(
        fd, absl::StrCat(request.journal_path,
                         " holds no plan (written by an older flashscope); finish it "
                         "with that version, or start a new run"));
  }
  const reports::PlanRecord& plan = *journal->plan;
  auto suite = PlannedSuite(plan);
  if (!suite.ok()) return protocol::TellFatal(fd, std::string(suite.status().message()));
  plugins::PluginSet kernels;
  std::vector<std::string> files;
  for (const auto& p : plan.plugins) {
    if (!p.builtin) files.push_back(p.path);
  }
  if (absl::Status s = LoadKernels(files, fd, &kernels); !s.ok()) {
    return protocol::TellFatal(fd, std::string(s.message()), suites::protocol::kExitBadPlugin);
  }
  auto bound = BindPlan(plan, kernels);
  if (!bound.ok()) return protocol::TellFatal(fd, std::string(bound.status().message()));

  RunOptions options{request.metrics, request.dump_dir};
  if (request.sanitize_rerun) ForSanitizer(&*suite, &options);
  auto runner = CaseRunner::Create(*suite, options);
  if (!runner.ok()) return protocol::TellFatal(fd, std::string(runner.status().message()));
  auto writer = reports::JournalWriter::Open(request.journal_path, /*append=*/true);
  if (!writer.ok()) return protocol::TellFatal(fd, std::string(writer.status().message()));
  if (absl::Status s = SetUpPeaks(request, *journal, **runner, *writer); !s.ok()) {
    return protocol::TellFatal(fd, std::string(s.message()));
  }
  const std::unique_ptr<PhaseTrace> trace = PhaseTrace::FromEnvironment(request.device);
  (*runner)->SetPhaseObserver([fd, t = trace.get()](const char* phase) {
    Tell(fd, {Event::kPhase, "", "", phase});
    if (t != nullptr) t->Mark(phase);
  });
  if (trace != nullptr) {
    (*runner)->SetCounterStepObserver([t = trace.get()](const char* step) { t->Mark(step); });
  }
  if (request.command_fd >= 0) {
    return RunCommanded(request, plan, *suite, *bound, **runner, *writer, trace.get());
  }
  // Without a supervisor handing cases out (the sanitizer's reruns): the plan's, in order.
  const auto done = journal->FinishedByKey();
  const std::set<std::string> only(request.only_keys.begin(), request.only_keys.end());
  for (const BoundCase& b : *bound) {
    const reports::PlannedCaseRecord& c = *b.planned;
    if (b.kernel == nullptr || done.count(c.key)) continue;  // planned errors: the supervisor's
    if (!only.empty() && !only.count(c.key)) continue;
    if (!RunOne(request, plan, *suite, b, **runner, *writer, trace.get())) {
      return protocol::kExitFatal;
    }
  }
  return 0;
}

}  // namespace flashscope::runner
