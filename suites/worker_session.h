// One worker session of a run: start a flashscope-worker on the run's journal, follow its
// progress lines, kill it when a case passes its time limit (or the run its deadline), and record
// what the worker could not: the case it died or hung in (with the phase and, for a plugin's
// kernel, the plugin that crashed), or the cases of a plugin that crashed it while loading.
#pragma once

#include <chrono>
#include <string>

#include "reports/journal.h"
#include "reports/plan.h"
#include "suites/suite.h"

namespace flashscope::suites {

// What the sessions of one run share.
struct RunContext {
  const Suite* suite = nullptr;
  const reports::PlanRecord* plan = nullptr;
  std::string worker_exe;
  std::string journal_path;
  std::string metrics;
  std::string dump_dir;
  double case_limit_s = 300;
  double deadline_s = 0;  // 0 = none
  std::chrono::steady_clock::time_point run_start;
  bool quiet = false;
  int done_this_run = 0;  // cases recorded since this supervisor started (for the ETA)
};

struct SessionOutcome {
  bool progressed = false;           // at least one case was recorded
  bool stopped_by_deadline = false;  // the run's deadline passed: stop, keep the journal
  std::string fatal;                 // the worker's FATAL message, if it gave one
  std::string failure;               // why the session could not even run, if so
  std::string exit;                  // how the worker ended, in words
  bool startup_timed_out = false;    // no case started within the start-up limit
};

SessionOutcome RunWorkerSession(RunContext& run, reports::JournalWriter& writer);

}  // namespace flashscope::suites
