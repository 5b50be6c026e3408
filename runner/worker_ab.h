// `flashscope-worker ab`: runs the pairs of a `flashscope ab` that the supervisor hands it (RUN
// lines, one per case key, as for `run`), in one process pinned to one GPU: the plans of its two
// journals (one per side, the same case keys), each case of both sides run
// by CaseRunner::RunPair (verified apart, timed interleaved) and each side's result appended to
// its own journal. It tells the supervisor which side's code runs (SIDE), each pair's verdict in
// words (AB) and when a pair ends (F base_status/new_status). A case only one side offers runs
// alone on that side. It exits as soon as the CUDA context is lost, like `run`.
#pragma once

#include "protocol/worker_protocol.h"

namespace flashscope::runner {

// Returns the process exit code (0, or protocol::kExit*).
int RunAbPairs(const suites::protocol::WorkerRequest& request);

}  // namespace flashscope::runner
