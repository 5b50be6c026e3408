// The device half of flashscope-verify-host-bench (--device; CUDA builds only): the copies to
// the host and the Workspace's Redraw and Verify, measured on the GPU
// (verify_host_bench_device.cc).
#pragma once

#include "common/problem.h"

namespace flashscope::verify::testing {

// Prints two markdown tables; 0 when every step ran and the verify passed, 1 otherwise.
int RunDeviceBench(const AttentionProblem& p, int side, int block_m, int reps);

}  // namespace flashscope::verify::testing
