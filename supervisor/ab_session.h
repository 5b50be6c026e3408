// The cases of one `flashscope ab` (supervisor/ab_supervisor.h) on its GPUs, through the scheduler
// that `run` uses (supervisor/device_scheduler.h): one `flashscope-worker ab` per GPU on the two
// journals (one per side), each handed one case (a pair) at a time; a line per case with its
// verdict and the ETA; and what a worker could not record: the pair it died or hung in (the side
// whose code was running gets the error; the other side keeps what it measured, or is skipped
// with why), or, when a side's plugin crashed while loading, every case of that plugin.
// Both sides of a pair always run in one worker, hence on one GPU (issue 19).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analysis/ab_verdict.h"
#include "reports/journal.h"
#include "reports/plan.h"
#include "suites/suite.h"
#include "supervisor/device_selection.h"
#include "supervisor/run_lock.h"

namespace flashscope::suites {

// What the parts of one ab share. Sides: 0 base, 1 new.
struct AbContext {
  const Suite* suite = nullptr;
  const reports::PlanRecord* plans[2] = {nullptr, nullptr};
  std::string journals[2];
  std::shared_ptr<RunLock> locks[2];  // one ab per journal (supervisor/run_lock.h)
  std::string plugins[2];             // the sides' plugin files, resolved
  std::string worker_exe;
  std::string metrics;
  uint64_t seed = 0;
  reports::AbOptions options;
  std::vector<DeviceSlot> devices;  // one worker each
  double pair_limit_s = 600;        // a pair runs two kernels: twice a case's limit
  bool quiet = false;
  std::chrono::steady_clock::time_point start;
  std::function<bool()> interrupted;  // polled a few times a second; true: stop now
};

struct AbCasesOutcome {
  bool interrupted = false;  // stopped because ctx.interrupted() said so; nothing recorded after
  int recorded = 0;          // cases recorded in this ab
  std::string failure;       // why the cases could not all be run (no GPU left, a journal error)
  std::string cannot_test;   // a side's plugin crashed or hung while loading: why
};

// The journal writers of the two sides (0 base, 1 new), owned by the caller.
using AbWriters = std::array<reports::JournalWriter*, 2>;

// Runs every case that the journals do not hold yet for both sides.
AbCasesOutcome RunAbCases(const AbContext& ctx, const AbWriters& writers);

// A case of the ab: its key and its plan index on each side (-1: that side has no such case). In
// base order, then the new side's own cases.
struct AbUnit {
  std::string key;
  int index[2] = {-1, -1};
};
std::vector<AbUnit> AbUnits(const reports::PlanRecord& base, const reports::PlanRecord& next);

// How many units every side holding them has recorded, read from the journals.
absl::StatusOr<int> FinishedAbUnits(const AbContext& ctx);

}  // namespace flashscope::suites
