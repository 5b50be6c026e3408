#include "suites/worker_session.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/text_safety.h"
#include "suites/plan_cases.h"
#include "suites/progress_text.h"
#include "suites/worker_process.h"

namespace flashscope::suites {
namespace {

using Clock = std::chrono::steady_clock;
namespace protocol = suites::protocol;

// Waiting for the worker's first case covers its start-up and the peak measurement.
constexpr double kStartupLimitS = 900;

// What the supervisor knows of the worker while it runs.
struct Watch {
  std::string current;  // key of the case in flight, "" between cases
  std::string phase;    // its phase
  std::string loading;  // plugin file being loaded
  Clock::time_point case_start;
  bool timed_out = false;
};

struct Progress {
  int finished = 0;  // cases with a result in the journal
  int total = 0;
};

void PrintFinished(const RunContext& run, const Progress& p, const std::string& status,
                   const std::string& key, const std::string& reason) {
  if (!reason.empty()) {
    std::fprintf(stderr, "[%d/%d] %-8s %s: %s\n", p.finished, p.total, status.c_str(), key.c_str(),
                 reports::text::TerminalSafe(reason).c_str());
    return;
  }
  if (run.quiet) return;
  std::fprintf(
      stderr, "[%d/%d] %-8s %s  %s\n", p.finished, p.total, status.c_str(), key.c_str(),
      ElapsedAndEta(SecondsSince(run.run_start), run.done_this_run, p.total - p.finished).c_str());
}

// Records `key` with `status` and `reason` (a case the worker could not record itself).
absl::Status Record(RunContext& run, reports::JournalWriter& writer, Progress& p,
                    const reports::PlannedCaseRecord& c, reports::CaseStatus status,
                    const std::string& reason, double wall_s) {
  reports::CaseResult r = NewCaseResult(*run.plan, c, *run.suite);
  r.status = status;
  r.reason = reason;
  r.wall_s = wall_s;
  if (absl::Status s = writer.CaseFinished(c.index, r); !s.ok()) return s;
  ++p.finished;
  ++run.done_this_run;
  PrintFinished(run, p, reports::CaseStatusName(status), c.key, reason);
  return absl::OkStatus();
}

// Follows the worker until it ends, the case in flight passes its limit, or the deadline comes.
void Follow(RunContext& run, WorkerProcess& worker, Watch& w, Progress& p, SessionOutcome& out) {
  protocol::Message m;
  while (true) {
    double limit =
        w.current.empty() ? kStartupLimitS : run.case_limit_s - SecondsSince(w.case_start);
    bool deadline_first = false;
    if (run.deadline_s > 0) {
      const double left = run.deadline_s - SecondsSince(run.run_start);
      if (left < limit) limit = std::max(left, 0.0), deadline_first = true;
    }
    const auto read = worker.Next(limit, &m);
    if (read == WorkerProcess::Read::kEnded) return;
    if (read == WorkerProcess::Read::kTimedOut) {
      worker.Kill();
      // At the deadline the case in flight is simply unfinished: --resume runs it again.
      (deadline_first ? out.stopped_by_deadline : w.timed_out) = true;
      return;
    }
    switch (m.event) {
      case protocol::Event::kCaseStarted:
        w.current = m.key, w.phase.clear(), w.case_start = Clock::now();
        break;
      case protocol::Event::kPhase:
        w.phase = m.text;
        break;
      case protocol::Event::kCaseFinished:
        w.current.clear();
        out.progressed = true;
        ++p.finished;
        ++run.done_this_run;
        PrintFinished(run, p, m.status, m.key, "");
        break;
      case protocol::Event::kLoad:
        w.loading = m.text;
        break;
      case protocol::Event::kLoaded:
        w.loading.clear();
        break;
      case protocol::Event::kNote:
        std::fprintf(stderr, "flashscope run: %s\n", reports::text::TerminalSafe(m.text).c_str());
        break;
      case protocol::Event::kFatal:
        out.fatal = m.text;
        break;
    }
  }
}

// The worker died while loading a plugin file: every case of that plugin's kernels that is not
// recorded yet is an error (the next worker would only crash the same way).
// Returns how many cases it recorded.
absl::StatusOr<int> RecordLoadCrash(RunContext& run, reports::JournalWriter& writer, Progress& p,
                                    const std::string& plugin, const std::string& reason) {
  const reports::PlanRecord& plan = *run.plan;
  auto journal = reports::ReadJournal(run.journal_path);
  if (!journal.ok()) return journal.status();
  const auto done = journal->FinishedByKey();
  int recorded = 0;
  for (const auto& c : plan.cases) {
    const reports::ProvenanceRecord* from = plan.ProvenanceOf(c.kernel_id);
    if (from == nullptr || from->path != plugin || done.count(c.key)) continue;
    if (absl::Status s = Record(run, writer, p, c, reports::CaseStatus::kError, reason, 0);
        !s.ok()) {
      return s;
    }
    ++recorded;
  }
  return recorded;
}

const reports::PlannedCaseRecord* FindCase(const reports::PlanRecord& plan,
                                           const std::string& key) {
  for (const auto& c : plan.cases) {
    if (c.key == key) return &c;
  }
  return nullptr;
}

}  // namespace

SessionOutcome RunWorkerSession(RunContext& run, reports::JournalWriter& writer) {
  SessionOutcome out;
  auto journal = reports::ReadJournal(run.journal_path);
  if (!journal.ok()) {
    out.failure = std::string(journal.status().message());
    return out;
  }
  Progress p{static_cast<int>(run.plan->cases.size() - journal->MissingKeys().size()),
             static_cast<int>(run.plan->cases.size())};
  protocol::WorkerRequest request;
  request.command = protocol::Command::kRun;
  request.journal_path = run.journal_path;
  request.metrics = run.metrics;
  request.dump_dir = run.dump_dir;
  auto worker = WorkerProcess::Start(run.worker_exe, request);
  if (!worker.ok()) {
    out.failure = std::string(worker.status().message());
    return out;
  }
  Watch w;
  Follow(run, *worker, w, p, out);
  const int status = worker->Wait();
  out.exit = DescribeExit(status);
  if (out.stopped_by_deadline) return out;
  absl::Status recorded = absl::OkStatus();
  if (const reports::PlannedCaseRecord* c = FindCase(*run.plan, w.current)) {
    // The case in flight has no result: the worker hung or died inside it.
    const std::string reason =
        w.timed_out ? absl::StrFormat(
                          "exceeded the case time limit of %.0f s and was killed "
                          "(raise it with --case_timeout_s or the suite's "
                          "case_timeout_s)",
                          run.case_limit_s)
                    : protocol::CrashReason(w.phase, run.plan->ProvenanceOf(c->kernel_id),
                                            CauseOfDeath(status));
    recorded = Record(run, writer, p, *c,
                      w.timed_out ? reports::CaseStatus::kTimeout : reports::CaseStatus::kError,
                      reason, w.timed_out ? run.case_limit_s : SecondsSince(w.case_start));
    out.progressed = true;
  } else if (!w.loading.empty() && (DiedOfSignal(status) || w.timed_out)) {
    const std::string reason =
        w.timed_out
            ? absl::StrCat("plugin ", w.loading, " hung while loading (killed after ",
                           kStartupLimitS, " s)")
            : absl::StrCat("plugin ", w.loading, " crashed while loading: ", CauseOfDeath(status));
    auto n = RecordLoadCrash(run, writer, p, w.loading, reason);
    recorded = n.status();
    out.progressed = n.ok() && *n > 0;
  } else if (w.timed_out) {
    out.startup_timed_out = true;
  }
  if (!recorded.ok()) out.failure = std::string(recorded.message());
  return out;
}

}  // namespace flashscope::suites
