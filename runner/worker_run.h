// `flashscope-worker run`: runs the cases of the plan in the journal's header that the journal
// does not hold yet, by key, in plan order, appending each result to the journal and telling the
// supervisor over a pipe when a case starts, which phase it is in, and how it ended. It exits as
// soon as the CUDA context is lost, so one faulting kernel costs one case.
#pragma once

#include "absl/status/statusor.h"
#include "reports/plan.h"
#include "suites/suite.h"
#include "suites/worker_protocol.h"

namespace flashscope::runner {

// Returns the process exit code (0, or protocol::kExit*).
int RunCases(const suites::protocol::WorkerRequest& request);

// The suite file as planned: its policies (timing, verification, inputs) come from it. Refused
// when the file changed since the plan was made.
absl::StatusOr<suites::Suite> PlannedSuite(const reports::PlanRecord& plan);

}  // namespace flashscope::runner
