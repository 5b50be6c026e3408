// `flashscope-worker run`: runs the cases of the plan in the journal's header that the journal
// does not hold yet, by key, in plan order, appending each result to the journal and telling the
// supervisor over a pipe when a case starts, which phase it is in, and how it ended. It exits as
// soon as the CUDA context is lost, so one faulting kernel costs one case.
#pragma once

#include "suites/worker_protocol.h"

namespace flashscope::runner {

// Returns the process exit code (0, or protocol::kExit*).
int RunCases(const suites::protocol::WorkerRequest& request);

}  // namespace flashscope::runner
