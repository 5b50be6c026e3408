// Planning, from the supervisor's side: the plan is made in a flashscope-worker (the only kind of
// process that loads plugins) and comes back as data. A plugin that crashes that worker while it
// loads is named, dropped and planned around (its cases become errors); a plugin that is refused
// (missing symbol, wrong ABI version, duplicate ids, bad fields) refuses the run.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "protocol/worker_protocol.h"

namespace flashscope::suites {

struct PlanRequest {
  std::string worker_exe;
  std::string suite_path;
  std::vector<std::string> plugins;  // resolved (suites/plugin_paths.h)
  std::string kernels_filter;
  std::string shard;
  bool check_supports = false;  // --dry_run: PlanningResult::refusals
};

// InvalidArgument: bad input (the message says what and how to fix it); other errors: the worker
// could not plan at all.
absl::StatusOr<protocol::PlanningResult> PlanInWorker(const PlanRequest& request);

struct AbPlanRequest {
  std::string worker_exe;
  std::string suite_path;
  std::string base, next;  // the two sides' plugin files, resolved
  std::string kernels_filter;
};

// The plans of a `flashscope ab` session (PlanningResult::plan for the base side, ab_new for the
// new one). Nothing is planned around a side that fails to load: FailedPrecondition when one is
// refused (not a plugin, a wrong ABI, bad fields, clashing ids) or crashes or hangs while
// loading, the "cannot test" of `git bisect run`; InvalidArgument for bad input; other errors:
// the worker could not plan at all.
absl::StatusOr<protocol::PlanningResult> PlanAbInWorker(const AbPlanRequest& request);

}  // namespace flashscope::suites
