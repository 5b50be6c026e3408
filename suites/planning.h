// Planning, from the supervisor's side: the plan is made in a flashscope-worker (the only kind of
// process that loads plugins) and comes back as data. A plugin that crashes that worker while it
// loads is named, dropped and planned around (its cases become errors); a plugin that is refused
// (missing symbol, wrong ABI version, duplicate ids, bad fields) refuses the run.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "suites/worker_protocol.h"

namespace flashscope::suites {

struct PlanRequest {
  std::string worker_exe;
  std::string suite_path;
  std::vector<std::string> plugins;  // resolved (suites/plugin_paths.h)
  std::string kernels_filter;
  std::string shard;
};

// InvalidArgument: bad input (the message says what and how to fix it); other errors: the worker
// could not plan at all.
absl::StatusOr<protocol::PlanningResult> PlanInWorker(const PlanRequest& request);

}  // namespace flashscope::suites
