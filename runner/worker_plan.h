// `flashscope-worker plan`: loads the plugins, plans the suite (runner/planner.h), probes the
// devices and writes the planning result (protocol::PlanningResult) to the request's plan_out.
// The suite file is read and parsed once, its SHA-256 taken of the same bytes (ReadSuiteFile).
#pragma once

#include "protocol/worker_protocol.h"

namespace flashscope::runner {

// CUDA's device 0 (a run without --devices uses it) and every GPU this process can see, for the
// supervisor to choose from (supervisor/device_selection.h); `flashscope metrics` takes its
// architecture from device 0. Reads properties only: no context.
void ProbeDevices(suites::protocol::PlanningResult* result);

// Returns the process exit code (0, or protocol::kExit*); a refusal is told on progress_fd.
int PlanSuite(const suites::protocol::WorkerRequest& request);

}  // namespace flashscope::runner
