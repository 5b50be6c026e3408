// flashscope-metric-probe --mode pass-cost: where a counter pass's host time goes. The trust
// checks' work counters cost ~12 ms of host time per user-replay pass around kernels of
// microseconds (docs/trust.md, "Cost"); this mode measures each step of a pass (before hook,
// drain, CUPTI Start, launch and wait, CUPTI Stop, after hook) for the configurations a cheaper
// design could use: the work counters' hardware scope with auto ranges and with one user range,
// one metric alone, several launches in one pass, and CUPTI's kernel replay.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "profiler/device_info.h"
#include "profiler/tools/probe_workloads.h"

namespace flashscope::profiler {

// Profiles each workload of `set` under every configuration, `repeat` times each; writes one
// entry per (workload, configuration) into out["pass_cost"]. Returns 0, or 1 when a profile failed
// (named in its entry; the other configurations still run).
// `only`: configuration names to run (empty: all); an unknown name is an error (2).
int RunPassCost(const DeviceInfo& device, const WorkloadSet& set, int repeat,
                const std::vector<std::string>& only, cudaStream_t stream, nlohmann::json& out);

}  // namespace flashscope::profiler
