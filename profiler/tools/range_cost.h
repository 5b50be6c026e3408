// flashscope-metric-probe --mode range-cost: what one user range of a batched counter session
// (RangeProfiler::ProfileBatch, the trust check `work`'s sessions) costs on the host, by counter
// set. The work check's floor is CUPTI's PushRange/PopRange, ~2 ms a range and pass on an H200
// (docs/trust.md, "Cost"); which counters make a range expensive decides how to group them.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "profiler/device_info.h"
#include "profiler/tools/probe_workloads.h"

namespace flashscope::profiler {

// For the first workload of `set`: every screen counter of this GPU alone (the DRAM bytes among
// them), the whole screen and `extra` ("hw:A+B" entries of --configs), each in batched sessions
// of 1, 16 and kMaxBatchLaunches launches, `repeat` times. Writes out["range_cost"]; 1 when a
// session failed.
int RunRangeCost(const DeviceInfo& device, const WorkloadSet& set, int repeat,
                 const std::vector<std::string>& extra, cudaStream_t stream, nlohmann::json& out);

}  // namespace flashscope::profiler
