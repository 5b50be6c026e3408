// `flashscope-worker run`: runs the cases of the plan in the journal's header that the journal
// does not hold yet, by key, in plan order, appending each result to the journal and telling the
// supervisor over a pipe when a case starts, which phase it is in, and how it ended. It exits as
// soon as the CUDA context is lost, so one faulting kernel costs one case.
#pragma once

#include "absl/status/statusor.h"
#include "reports/journal.h"
#include "reports/plan.h"
#include "runner/case_runner.h"
#include "suites/suite.h"
#include "protocol/worker_protocol.h"

namespace flashscope::runner {

// Returns the process exit code (0, or protocol::kExit*).
int RunCases(const suites::protocol::WorkerRequest& request);

// The peaks this worker's cases compare against: its GPU's, from the journal when a worker on it
// measured them before; else measured now and recorded (a device line, and the environment line
// when the run has none). The sanitizer's reruns measure nothing (their timings mean nothing
// under the tool) and journals of runs before device lines lend their environment's peaks.
absl::Status SetUpPeaks(const suites::protocol::WorkerRequest& request,
                        const reports::JournalContents& journal, CaseRunner& runner,
                        reports::JournalWriter& writer);

// Records in `r` the GPU it ran on: the supervisor's index and its UUID.
void StampDevice(const suites::protocol::WorkerRequest& request, const CaseRunner& runner,
                 reports::CaseResult* r);

// The suite file as planned: its policies (timing, verification, inputs) come from it. Refused
// when the file changed since the plan was made.
absl::StatusOr<suites::Suite> PlannedSuite(const reports::PlanRecord& plan);

}  // namespace flashscope::runner
