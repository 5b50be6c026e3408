// One worker session of `flashscope ab` (suites/ab_supervisor.h): start `flashscope-worker ab` on
// the two journals (one per side), follow its progress lines, print a line per case with its
// verdict and the ETA, kill the worker when a pair passes its time limit or the ab is
// interrupted, and record what the worker could not: the pair it died or hung in (the side whose
// code was running gets the error; the other side keeps what it measured, or is skipped with
// why), or, when a side's plugin crashed while loading, every case not recorded yet.
// Both sides of a pair always run in one worker, hence on one GPU.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reports/ab_verdict.h"
#include "reports/journal.h"
#include "reports/plan.h"
#include "suites/suite.h"

namespace flashscope::suites {

// What the sessions of one ab share. Sides: 0 base, 1 new.
struct AbContext {
  const Suite* suite = nullptr;
  const reports::PlanRecord* plans[2] = {nullptr, nullptr};
  std::string journals[2];
  std::string plugins[2];  // the sides' plugin files, resolved
  std::string worker_exe;
  std::string metrics;
  uint64_t seed = 0;
  reports::AbOptions options;
  double pair_limit_s = 600;  // a pair runs two kernels: twice a case's limit
  bool quiet = false;
  std::chrono::steady_clock::time_point start;
  int done_this_run = 0;              // cases recorded since this ab started (for the ETA)
  std::function<bool()> interrupted;  // polled a few times a second; true: stop now
};

struct AbSessionOutcome {
  bool progressed = false;   // at least one case was recorded
  bool interrupted = false;  // stopped because ctx.interrupted() said so; nothing recorded after
  bool startup_timed_out = false;
  std::string fatal;        // the worker's FATAL message, if it gave one
  std::string failure;      // why the session could not even run, if so
  std::string exit;         // how the worker ended, in words
  std::string cannot_test;  // a side's plugin crashed or hung while loading: why
};

// The journal writers of the two sides (0 base, 1 new), owned by the caller.
using AbWriters = std::array<reports::JournalWriter*, 2>;

AbSessionOutcome RunAbSession(AbContext& ctx, const AbWriters& writers);

// A case of the session: its key and its plan index on each side (-1: that side has no such
// case). In base order, then the new side's own cases.
struct AbUnit {
  std::string key;
  int index[2] = {-1, -1};
};
std::vector<AbUnit> AbUnits(const reports::PlanRecord& base, const reports::PlanRecord& next);

// How many units every side holding them has recorded, read from the journals.
absl::StatusOr<int> FinishedAbUnits(const AbContext& ctx);

}  // namespace flashscope::suites
