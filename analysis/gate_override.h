// The per-kernel settings of a gate policy, looked up as the gate looks them up (analysis/gate.cc),
// for the other judges of a policy: the history's change points (history/changes.h).
#pragma once

#include <string>

#include "analysis/gate.h"

namespace flashscope::reports {

// The first override whose `kernels` glob matches `kernel_id`, or null (the policy's own settings
// apply).
const KernelOverride* FindKernelOverride(const GatePolicy& policy, const std::string& kernel_id);

}  // namespace flashscope::reports
